-- replay_vms: the VMs of a dataset alive at some point of [$2, $3), in
-- arrival order (ties: tenant, then id). NULL end = alive past the trace.
SELECT vm_id, tenant, vm_type, priority, start_s, end_s
FROM vm
WHERE dataset = $1 AND start_s < $3 AND (end_s IS NULL OR end_s > $2)
ORDER BY start_s, tenant, vm_id;
