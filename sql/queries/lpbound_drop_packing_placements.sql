-- lpbound_drop_packing_placements: drop the placements of the offline
-- packings an earlier placelab lpbound stored for run $1.
DELETE FROM placement WHERE run_id IN (
    SELECT run_id FROM run
    WHERE engine = 'offline' AND TRY_CAST(json_extract_string(params, '$.source_run') AS BIGINT) = $1);
