-- experiment_merged_already: a stored run that is the shard point
-- ($1 experiment, $2 point, $3 seed, $4 started_at) merged before.
SELECT run_id FROM run
WHERE engine = 'experiment' AND policy = $1 AND CAST(json_extract(params, '$.point') AS INTEGER) = $2
  AND seed = $3 AND started_at = $4
LIMIT 1;
