-- resolve_machine: the machines of a run's load named $2 — or, when none
-- is, the machine whose machine_id is $2 written in decimal — with how many
-- share the name. $1 = run_id.
WITH r AS (SELECT load_id FROM run WHERE run_id = $1),
named AS (SELECT m.machine_id FROM machine m JOIN r USING (load_id) WHERE m.name = $2),
byid AS (SELECT m.machine_id FROM machine m JOIN r USING (load_id) WHERE CAST(m.machine_id AS VARCHAR) = $2)
SELECT min(machine_id), count(*) FROM named HAVING count(*) > 0
UNION ALL
SELECT machine_id, 1 FROM byid WHERE NOT EXISTS (SELECT 1 FROM named);
