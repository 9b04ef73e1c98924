-- paragon_matrix: a dataset's app × platform matrix (app_score, matrix
-- 'platform'): normalized score (1 = the app's best), the raw measurement
-- (e.g. median run time) and the application the app belongs to (the app
-- itself when the source names none). $1 = dataset.
SELECT app, col, score, raw, coalesce(application, app) AS application
FROM app_score
WHERE dataset = $1 AND matrix = 'platform'
ORDER BY app, col;
