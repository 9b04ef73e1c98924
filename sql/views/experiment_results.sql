-- Every stored experiment point (placelab experiment) with its figures: one
-- row per (run, figure). grid says which grid the point was run on, 'quick'
-- (--quick) or 'full'; runs stored before the grid key read it from their
-- boolean quick key. The shape placelab experiment --shard writes to Parquet
-- and placelab merge reads back.
CREATE OR REPLACE VIEW experiment_results AS
SELECT r.run_id, r.policy AS experiment,
       COALESCE(json_extract_string(r.params, '$.grid'),
                CASE CAST(json_extract(r.params, '$.quick') AS BOOLEAN) WHEN true THEN 'quick' WHEN false THEN 'full' END) AS grid,
       CAST(json_extract(r.params, '$.point') AS INTEGER) AS point,
       r.params, r.seed, r.version, r.started_at, r.seconds, m.metric, m.t_s, m.value
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'experiment'
ORDER BY r.policy, grid, point, r.run_id, m.metric;
