-- replay_vms: the VMs of a dataset alive at some point of [$2, $3), in
-- arrival order (ties: tenant, then id). NULL end = alive past the trace.
-- The placement constraints of a pod (vm_constraint: node sets, tenant
-- bounds) come along; NULL when the VM has none.
SELECT v.vm_id, v.tenant, v.vm_type, v.priority, v.start_s, v.end_s,
       c.affinity_set, c.tolerated_set, c.max_per_machine, c.max_skew
FROM vm v
LEFT JOIN vm_constraint c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
WHERE v.dataset = $1 AND v.start_s < $3 AND (v.end_s IS NULL OR v.end_s > $2)
ORDER BY v.start_s, v.tenant, v.vm_id;
