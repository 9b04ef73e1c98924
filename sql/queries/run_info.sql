-- run_info: a run's dataset and the time of its last metric sample. $1 = run_id.
SELECT r.dataset, coalesce((SELECT max(t_s) FROM run_metric m WHERE m.run_id = r.run_id AND m.metric = 'packing_density'), 0)
FROM run r WHERE r.run_id = $1;
