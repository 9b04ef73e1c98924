-- experiment_shard: the rows of experiment_results for the runs with ids in
-- [$1, $2], kept in a temporary table for export.
CREATE OR REPLACE TEMP TABLE experiment_shard AS
SELECT experiment, point, params, seed, version, started_at, seconds, metric, t_s, value
FROM experiment_results
WHERE run_id BETWEEN $1 AND $2;
