-- explain_absent: why a VM has no record in a run: the run's engine and the
-- VM's name in the run's load (NULL: no such VM). $1 = run_id, $2 = vm_id.
SELECT r.engine, v.name
FROM run r
LEFT JOIN vm v ON v.load_id = r.load_id AND v.vm_id = $2
WHERE r.run_id = $1;
