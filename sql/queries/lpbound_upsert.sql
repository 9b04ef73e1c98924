-- lpbound_upsert: store one LP-bound figure of a run's snapshot, replacing
-- a previous value. $1 = run_id, $2 = t_s, $3 = metric, $4 = value.
INSERT OR REPLACE INTO run_metric (run_id, t_s, metric, value) VALUES ($1, $2, $3, $4);
