-- One row per stay of a VM on a machine in a stored run: its placement
-- (seq 0), then each machine a hard failure's heal moved it to (vm_move,
-- seq 1, 2, …; machine_id NULL for a healing failure). t0 is when the stay
-- began (a heal's placed_s), left_s when the VM left the machine before it
-- (a move's t_s), moved_s when it left this one (the next move's t_s),
-- prev_machine the machine before. A stay ends at the earliest of the VM's
-- end, its eviction (evicted_s) and moved_s. Read by the independent checks
-- (check_capacity, check_availability) and by everything that rebuilds a
-- run's placements at a time (run_alive, run_placements), always filtered
-- by run_id. dataset is the run's.
CREATE OR REPLACE VIEW vm_stay AS
WITH moves AS (
    SELECT p.run_id, p.vm_id, 0 AS seq, p.t_s AS t0, NULL::DOUBLE AS left_s, p.machine_id, p.evicted_s
    FROM placement p
    WHERE p.machine_id IS NOT NULL
    UNION ALL
    SELECT mv.run_id, mv.vm_id, mv.seq, coalesce(mv.placed_s, mv.t_s), mv.t_s, mv.machine_id, p.evicted_s
    FROM vm_move mv JOIN placement p ON p.run_id = mv.run_id AND p.vm_id = mv.vm_id
)
SELECT m.*, lead(m.left_s) OVER w AS moved_s, lag(m.machine_id) OVER w AS prev_machine, r.dataset
FROM moves m JOIN run r USING (run_id)
WINDOW w AS (PARTITION BY m.run_id, m.vm_id ORDER BY m.seq);
