-- machine_by_run: a machine's name in the load a run read. $1 = run_id,
-- $2 = machine_id.
SELECT m.name FROM machine m JOIN run r ON m.load_id = r.load_id
WHERE r.run_id = $1 AND m.machine_id = $2;
