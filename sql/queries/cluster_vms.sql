-- cluster_vms: every VM of a load with its name, whether it is pinned to
-- its node (a DaemonSet or static pod) and whether it is a static pod (its
-- Kubernetes owner is the Node: the kubelet runs it from a manifest, as
-- the control plane's pods), and its tenant (a pod's namespace/owner).
-- $1 = load_id.
SELECT v.vm_id, v.name, coalesce(c.pinned, false), coalesce(k.owner_kind = 'Node', false), v.tenant
FROM vm v
LEFT JOIN vm_constraint c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
LEFT JOIN k8s_pod k ON k.load_id = v.load_id AND k.vm_id = v.vm_id
WHERE v.load_id = $1
ORDER BY v.vm_id;
