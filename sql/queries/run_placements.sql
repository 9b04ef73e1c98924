-- run_placements: every stay of a VM on a machine in a run — its
-- placement, then, for a run with failures, each machine it was healed to
-- (vm_move) — with when it began, where, and when it was cut short: the
-- earlier of its eviction and its next move (NULL if neither; its end is
-- the VM's). $1 = run_id.
WITH moves AS (
    SELECT p.vm_id, 0 AS seq, p.t_s AS t0, NULL::DOUBLE AS left_s, p.machine_id, p.evicted_s
    FROM placement p
    WHERE p.run_id = $1 AND p.machine_id IS NOT NULL
    UNION ALL
    SELECT mv.vm_id, mv.seq, coalesce(mv.placed_s, mv.t_s), mv.t_s, mv.machine_id, p.evicted_s
    FROM vm_move mv JOIN placement p ON p.run_id = mv.run_id AND p.vm_id = mv.vm_id
    WHERE mv.run_id = $1
),
stays AS (
    SELECT *, lead(left_s) OVER (PARTITION BY vm_id ORDER BY seq) AS moved_s FROM moves
)
SELECT vm_id, machine_id, t0 AS t_s,
       CASE WHEN evicted_s IS NULL AND moved_s IS NULL THEN NULL
            ELSE least(coalesce(evicted_s, 'infinity'::DOUBLE), coalesce(moved_s, 'infinity'::DOUBLE)) END AS evicted_s
FROM stays
WHERE machine_id IS NOT NULL
ORDER BY t_s, vm_id;
