-- k8s_objects: a Kubernetes load's objects as ingest read them, nodes first
-- (by machine_id), then pods in input order (by vm_id), each pod with its
-- owner kind and the node it was bound or pinned to. $1 = load_id.
SELECT o.kind, o.name, o.vm_id, o.machine_id, o.object, p.owner_kind,
       coalesce(p.node, (SELECT regexp_extract(ns.description, '^pinned to (.*)$', 1)
                         FROM vm_constraint c JOIN node_set ns ON ns.load_id = c.load_id AND ns.set_id = c.affinity_set
                         WHERE c.load_id = o.load_id AND c.vm_id = o.vm_id AND c.pinned))
FROM k8s_object o
LEFT JOIN k8s_pod p ON p.load_id = o.load_id AND p.vm_id = o.vm_id
WHERE o.load_id = $1
ORDER BY o.kind, coalesce(o.machine_id, 0), coalesce(o.vm_id, 0);
