-- run_placements: every stay of a VM on a machine in a run — its
-- placement, then, for a run with failures, each machine it was healed to
-- (vm_move) — with when it began, where, and when it was cut short: the
-- earlier of its eviction and its next move (NULL if neither; its end is
-- the VM's). $1 = run_id.
WITH stays AS (
    SELECT * FROM vm_stay WHERE run_id = $1
)
SELECT vm_id, machine_id, t0 AS t_s,
       CASE WHEN evicted_s IS NULL AND moved_s IS NULL THEN NULL
            ELSE least(coalesce(evicted_s, 'infinity'::DOUBLE), coalesce(moved_s, 'infinity'::DOUBLE)) END AS evicted_s
FROM stays
WHERE machine_id IS NOT NULL
ORDER BY t_s, vm_id;
