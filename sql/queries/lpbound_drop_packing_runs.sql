-- lpbound_drop_packing_runs: drop the offline packings an earlier placelab
-- lpbound stored for run $1 (their placements and metrics go first).
DELETE FROM run
WHERE engine = 'offline' AND TRY_CAST(json_extract_string(params, '$.source_run') AS BIGINT) = $1;
