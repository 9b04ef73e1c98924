-- paragon_runs: the repeated measurements behind a dataset's platform
-- matrix (app_run), one row per run, grouped by app and campaign for the
-- repeat ceiling. $1 = dataset.
SELECT app, campaign, repeat, col, value
FROM app_run
WHERE dataset = $1 AND matrix = 'platform'
ORDER BY app, campaign, repeat, col;
