-- lpbound_clear: drop a run's LP-bound metrics at times not in the list
-- $2 (a JSON array of seconds). $1 = run_id.
DELETE FROM run_metric
WHERE run_id = $1 AND metric LIKE 'lp!_%' ESCAPE '!'
  AND NOT list_contains(CAST($2 AS DOUBLE[]), t_s);
