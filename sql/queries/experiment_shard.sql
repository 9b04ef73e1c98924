-- experiment_shard: the rows of experiment_results for experiment $3's runs
-- with ids in [$1, $2], kept in a temporary table for export to a shard's
-- Parquet file. Each row carries what placelab merge needs to check a
-- sweep is whole: the size of the grid ($4 points) and the shard's label
-- ($5: "i/n" for placelab experiment --shard, "job k/N" for --jobs), and
-- the experiments of the whole sweep ($6, comma-separated), so that a merge
-- that lacks every shard of one of them can tell.
CREATE OR REPLACE TEMP TABLE experiment_shard AS
SELECT experiment, grid, point, params, seed, version, started_at, seconds, metric, t_s, value,
       CAST($4 AS INTEGER) AS grid_points, CAST($5 AS VARCHAR) AS shard,
       CAST($6 AS VARCHAR) AS sweep
FROM experiment_results
WHERE run_id BETWEEN $1 AND $2 AND experiment = $3
ORDER BY point, metric;
