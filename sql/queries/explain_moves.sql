-- explain_moves: a VM's heal moves in a run, in order, with the machines'
-- names and, for a healing failure, the rule that refused it.
-- $1 = run_id, $2 = vm_id.
SELECT mv.seq, mv.t_s, f.name, t.name, mv.failed_rule
FROM vm_move mv
JOIN run r ON r.run_id = mv.run_id
LEFT JOIN machine f ON f.load_id = r.load_id AND f.machine_id = mv.from_machine
LEFT JOIN machine t ON t.load_id = r.load_id AND t.machine_id = mv.machine_id
WHERE mv.run_id = $1 AND mv.vm_id = $2
ORDER BY mv.seq;
