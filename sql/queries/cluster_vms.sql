-- cluster_vms: every VM of a load with its name and whether it is pinned to
-- its node (a DaemonSet or static pod). $1 = load_id.
SELECT v.vm_id, v.name, coalesce(c.pinned, false)
FROM vm v
LEFT JOIN vm_constraint c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
WHERE v.load_id = $1
ORDER BY v.vm_id;
