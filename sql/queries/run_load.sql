-- run_load: the dataset and load a run read, whether that load is still the
-- dataset's current one, its placements, and the run's cores limit
-- (MAX_OVERSUB of an oversubscribing run, else 1). $1 = run_id.
SELECT r.dataset, r.load_id, d.load_id AS current_load,
       (SELECT count(*) FROM placement p WHERE p.run_id = r.run_id) AS placements,
       coalesce(TRY_CAST(json_extract_string(r.params, '$.max_oversub') AS DOUBLE), 1) AS cores_limit
FROM run r LEFT JOIN dataset d ON d.name = r.dataset
WHERE r.run_id = $1;
