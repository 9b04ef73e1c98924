-- plan_vms: a dataset's VMs alive at $2 ($1 dataset, its current load),
-- with their type's absolute size and whether a placement constraint holds
-- them.
SELECT v.vm_id, v.name, v.tenant, v.vm_type, v.priority, v.start_s, v.end_s,
       t.cores, t.memory_gb, coalesce(t.gpus, 0) AS gpus,
       c.vm_id IS NOT NULL AND (c.affinity_set IS NOT NULL OR c.tolerated_set IS NOT NULL OR c.pinned
           OR c.max_per_machine IS NOT NULL OR c.max_skew IS NOT NULL) AS constrained
FROM vm v
JOIN dataset d ON d.name = v.dataset AND d.load_id = v.load_id
JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
LEFT JOIN vm_constraint c ON c.load_id = v.load_id AND c.vm_id = v.vm_id
WHERE v.dataset = $1 AND v.start_s <= $2 AND (v.end_s IS NULL OR v.end_s > $2)
ORDER BY v.vm_id
