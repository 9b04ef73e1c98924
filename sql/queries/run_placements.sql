-- run_placements: every VM a run placed, with when it was placed, where,
-- and when it was evicted (NULL if never). $1 = run_id.
SELECT p.vm_id, p.machine_id, p.t_s, p.evicted_s
FROM placement p
WHERE p.run_id = $1 AND p.machine_id IS NOT NULL
ORDER BY p.t_s, p.vm_id;
