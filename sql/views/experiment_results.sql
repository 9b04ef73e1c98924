-- Every stored experiment point (placelab experiment) with its figures: one
-- row per (run, figure). The shape placelab experiment --shard writes to
-- Parquet and placelab merge reads back.
CREATE OR REPLACE VIEW experiment_results AS
SELECT r.run_id, r.policy AS experiment, CAST(json_extract(r.params, '$.point') AS INTEGER) AS point,
       r.params, r.seed, r.version, r.started_at, r.seconds, m.metric, m.t_s, m.value
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'experiment'
ORDER BY r.policy, point, r.run_id, m.metric;
