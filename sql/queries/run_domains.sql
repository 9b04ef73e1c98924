-- run_domains: the fault and update domain (0-based; NULL when that kind
-- is off) of each VM of a run with availability sets. $1 = run_id.
SELECT vm_id, fault_domain, update_domain FROM placement_domain WHERE run_id = $1 ORDER BY vm_id;
