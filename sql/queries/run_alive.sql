-- run_alive: the VMs a run had placed at time $2 (seconds), with their
-- machine then. $1 = run_id. A VM is alive on a machine if it was placed
-- (or healed) there at or before $2, has not ended, was not evicted and did
-- not leave it (a hard failure of the machine: vm_move) by then.
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
SELECT s.vm_id, s.machine_id
FROM stays s
JOIN run r ON r.run_id = $1
JOIN vm v ON v.load_id = r.load_id AND v.vm_id = s.vm_id
WHERE s.machine_id IS NOT NULL AND s.t0 <= $2
  AND (v.end_s IS NULL OR v.end_s > $2)
  AND (s.evicted_s IS NULL OR s.evicted_s > $2)
  AND (s.moved_s IS NULL OR s.moved_s > $2)
ORDER BY s.vm_id;
