-- run_alive: the VMs a run had placed at time $2 (seconds), with their
-- machine then. $1 = run_id. A VM is alive on a machine if it was placed
-- (or healed) there at or before $2, has not ended, was not evicted and did
-- not leave it (a hard failure of the machine: vm_move) by then.
WITH stays AS (
    SELECT * FROM vm_stay WHERE run_id = $1
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
