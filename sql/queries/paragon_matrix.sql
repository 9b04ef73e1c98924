-- paragon_matrix: a dataset's app × platform matrix (app_score, matrix
-- 'platform'): normalized score (1 = the app's best) and the raw measurement
-- (e.g. median run time). $1 = dataset.
SELECT app, col, score, raw
FROM app_score
WHERE dataset = $1 AND matrix = 'platform'
ORDER BY app, col;
