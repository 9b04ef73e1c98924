-- run_alive: the VMs a run had placed at time $2 (seconds), with their
-- machine. $1 = run_id. A VM is alive if placed at or before $2, not yet
-- ended, and not evicted by then.
SELECT p.vm_id, p.machine_id
FROM placement p
JOIN run r ON r.run_id = p.run_id
JOIN vm v ON v.load_id = r.load_id AND v.vm_id = p.vm_id
WHERE p.run_id = $1 AND p.machine_id IS NOT NULL AND p.t_s <= $2
  AND (v.end_s IS NULL OR v.end_s > $2)
  AND (p.evicted_s IS NULL OR p.evicted_s > $2)
ORDER BY p.vm_id;
