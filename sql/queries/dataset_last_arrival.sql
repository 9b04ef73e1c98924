-- dataset_last_arrival: the last arrival of a dataset's current load and
-- the dataset's time origin (NULL: relative times). $1 = dataset.
SELECT max(v.start_s), any_value(d.time_origin)
FROM vm v
JOIN dataset d ON d.name = v.dataset AND d.load_id = v.load_id
WHERE v.dataset = $1;
