-- experiment_merge_runs: the distinct points of an exported shard file
-- (experiment_shard_file is a temporary table read from Parquet).
SELECT DISTINCT experiment, grid, point, params, seed, version, started_at, seconds, grid_points, shard, sweep
FROM experiment_shard_file
ORDER BY experiment, grid, point, seed;
