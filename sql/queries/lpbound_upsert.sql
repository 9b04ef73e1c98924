-- lpbound_upsert: store a run's LP-interval figures, replacing previous
-- values, in one statement. $1 = run_id; $2, $3, $4 = JSON arrays of the
-- same length: snapshot times (s), metric names, values.
INSERT OR REPLACE INTO run_metric (run_id, t_s, metric, value)
SELECT $1, unnest(CAST($2 AS DOUBLE[])), unnest(CAST(CAST($3 AS JSON) AS VARCHAR[])), unnest(CAST($4 AS DOUBLE[]));
