-- replay_node_sets: the node sets of a dataset's placement constraints,
-- one row per member machine (a set with no member still has a row, with
-- a NULL machine). $1 = dataset.
SELECT s.set_id, s.kind, s.description, m.machine_id
FROM node_set s
LEFT JOIN node_set_member m ON m.load_id = s.load_id AND m.set_id = s.set_id
WHERE s.dataset = $1
ORDER BY s.set_id, m.machine_id;
