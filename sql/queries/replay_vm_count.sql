-- replay_vm_count: how many VMs replay_vms returns, and how many tenants
-- they belong to (so the loader sizes its arrays once).
SELECT count(*), count(DISTINCT tenant)
FROM vm
WHERE dataset = $1 AND start_s < $3 AND (end_s IS NULL OR end_s > $2);
