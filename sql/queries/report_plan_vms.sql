-- report_plan_vms: the VMs of one stored plan (report_plans) by name: where
-- the source run had each at the plan's instant (run_alive's rule: placed or
-- healed there by then, not ended, evicted or moved away) and where the plan
-- puts it. from_machine is NULL for a VM the source run did not hold then;
-- to_machine NULL for one the plan leaves out (a DaemonSet's pod on a node
-- the plan removes). pinned: a DaemonSet or static pod, which stays on its
-- node. $1 = the plan's run_id, $2 = its source run, $3 = its instant (s).
WITH src AS (
    SELECT * FROM vm_stay WHERE run_id = $2
),
plan AS (
    SELECT run_id, load_id FROM run WHERE run_id = $1
),
before AS (
    SELECT s.vm_id, s.machine_id
    FROM src s
    JOIN plan p ON true
    JOIN vm v ON v.load_id = p.load_id AND v.vm_id = s.vm_id
    WHERE s.machine_id IS NOT NULL AND s.t0 <= $3
      AND (v.end_s IS NULL OR v.end_s > $3)
      AND (s.evicted_s IS NULL OR s.evicted_s > $3)
      AND (s.moved_s IS NULL OR s.moved_s > $3)
),
after AS (
    SELECT vm_id, machine_id FROM placement WHERE run_id = $1 AND machine_id IS NOT NULL
)
SELECT vm_id, v.name AS vm, coalesce(c.pinned, false) AS pinned,
       b.machine_id AS from_id, mf.name AS from_machine,
       a.machine_id AS to_id, mt.name AS to_machine
FROM before b
FULL JOIN after a USING (vm_id)
JOIN plan p ON true
JOIN vm v ON v.load_id = p.load_id AND v.vm_id = vm_id
LEFT JOIN vm_constraint c ON c.load_id = p.load_id AND c.vm_id = vm_id
LEFT JOIN machine mf ON mf.load_id = p.load_id AND mf.machine_id = b.machine_id
LEFT JOIN machine mt ON mt.load_id = p.load_id AND mt.machine_id = a.machine_id
ORDER BY vm_id;
