-- replay_vms: the VMs of a dataset alive at some point of [$2, $3), in no
-- order: the loader sorts them into arrival order (ties: tenant, then id)
-- itself, which holds far less than a sort here would on a trace of
-- millions of VMs. NULL end = alive past the trace.
-- Tenants and types come as numbers, so a trace of millions of VMs moves no
-- strings: tenant_rank is the tenant's rank among the window's tenants by
-- name (the loader renumbers them by first arrival), type_rank the type's
-- position in replay_types (NULL, with the name in bad_type, for a type the
-- vm_type table lacks). The placement constraints of a pod (vm_constraint:
-- node sets, tenant bounds) come along; NULL when the VM has none.
WITH w AS (
    SELECT vm_id, tenant, vm_type, priority, start_s, end_s, load_id
    FROM vm
    WHERE dataset = $1 AND start_s < $3 AND (end_s IS NULL OR end_s > $2)
), tenants AS (
    SELECT tenant, row_number() OVER (ORDER BY tenant) - 1 AS tenant_rank
    FROM (SELECT DISTINCT tenant FROM w)
), types AS (
    SELECT vm_type, row_number() OVER (ORDER BY vm_type) - 1 AS type_rank
    FROM vm_type WHERE dataset = $1
)
SELECT w.vm_id, tn.tenant_rank::INTEGER, ty.type_rank::INTEGER,
       CASE WHEN ty.type_rank IS NULL THEN w.vm_type END AS bad_type,
       w.priority, w.start_s, w.end_s,
       c.affinity_set, c.tolerated_set, c.max_per_machine, c.max_skew
FROM w
JOIN tenants tn ON tn.tenant = w.tenant
LEFT JOIN types ty ON ty.vm_type = w.vm_type
LEFT JOIN vm_constraint c ON c.load_id = w.load_id AND c.vm_id = w.vm_id;
