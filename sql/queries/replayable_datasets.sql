-- The datasets a replay can run on: those whose current load has machines,
-- by name. The CLI's --dataset defaults to the only one.
SELECT d.name
FROM dataset d
WHERE EXISTS (SELECT 1 FROM machine m WHERE m.dataset = d.name AND m.load_id = d.load_id)
ORDER BY d.name;
