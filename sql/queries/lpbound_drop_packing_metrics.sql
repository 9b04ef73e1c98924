-- lpbound_drop_packing_metrics: drop the run_metric rows of the offline
-- packings an earlier placelab lpbound stored for run $1.
DELETE FROM run_metric WHERE run_id IN (
    SELECT run_id FROM run
    WHERE engine = 'offline' AND TRY_CAST(json_extract_string(params, '$.source_run') AS BIGINT) = $1);
