-- Lifetime-aware placement over seeds (placelab lifetime): one row per
-- dataset, window and arm from the latest stored run of each seed, with
-- the figures placelab lifetime prints, computed again here in SQL from
-- the stored runs alone:
--   empty_machines_*          time-weighted mean of machines with no VM
--   empty_gain_vs_off_*       per seed, that minus the off arm's
--   oracle_gain_share_*       per seed, the gain over the gain of the arm's
--                             own oracle (model: oracle, nilas: nilas-oracle,
--                             lava: lava-oracle; an oracle arm is its own),
--                             where that gain is not 0
--   best_oracle_gain_share_*  per seed, the gain over the best gain of the
--                             oracle arms stored for the window, where it
--                             is above 0
--   seeds_losing_to_off       seeds on which the arm has fewer empty
--                             machines than off by more than off's own
--                             spread over the seeds (max − min)
-- *_median is the median over the seeds (the mean of the two middle values
-- for an even count), *_min and *_max the range. A window is the replayed
-- span (window_from_s, window_to_s) of one load of the dataset, with
-- in_sample true for a comparison run before the models' training cut
-- (NULL for runs stored before placelab recorded it) and the reprediction
-- cadence of the life-class arms.
CREATE OR REPLACE VIEW lifetime_arms AS
WITH runs AS (
    SELECT r.run_id, r.dataset, r.load_id, r.policy AS arm, r.seed,
           json_extract(r.params, '$.in_sample')::BOOLEAN AS in_sample,
           json_extract(r.params, '$.repredict_every_s')::DOUBLE AS repredict_every_s,
           max(m.value) FILTER (WHERE m.metric = 'window_from_s') AS window_from_s,
           max(m.value) FILTER (WHERE m.metric = 'window_to_s') AS window_to_s,
           max(m.value) FILTER (WHERE m.metric = 'empty_machines_time_mean') AS empty,
           max(m.value) FILTER (WHERE m.metric = 'packing_density_mean_pct') AS density,
           max(m.value) FILTER (WHERE m.metric = 'stranded_cores_pct_mean') AS stranded_cores,
           max(m.value) FILTER (WHERE m.metric = 'stranded_memory_pct_mean') AS stranded_memory,
           max(m.value) FILTER (WHERE m.metric = 'rejected') AS rejected
    FROM run r JOIN run_metric m USING (run_id)
    WHERE r.engine = 'lifetime' AND r.status = 'done'
    GROUP BY r.run_id, r.dataset, r.load_id, r.policy, r.seed, r.params
), latest AS (
    SELECT *,
           -- one key per window, so the joins below match NULLs too
           concat_ws('|', dataset, coalesce(load_id::VARCHAR, '-'), window_from_s::VARCHAR, window_to_s::VARCHAR,
                     coalesce(in_sample::VARCHAR, '-'), coalesce(repredict_every_s::VARCHAR, '-')) AS win
    FROM runs
    QUALIFY row_number() OVER (PARTITION BY dataset, load_id, window_from_s, window_to_s, in_sample, repredict_every_s, arm, seed
                               ORDER BY run_id DESC) = 1
), gains AS (
    SELECT l.*, l.empty - o.empty AS gain
    FROM latest l LEFT JOIN latest o ON o.win = l.win AND o.seed = l.seed AND o.arm = 'off'
), shares AS (
    SELECT g.*,
           CASE WHEN own.gain <> 0 THEN g.gain / own.gain END AS own_share,
           CASE WHEN best.gain > 0 THEN g.gain / best.gain END AS best_share
    FROM gains g
    LEFT JOIN gains own ON own.win = g.win AND own.seed = g.seed
         AND own.arm = CASE g.arm WHEN 'model' THEN 'oracle' WHEN 'nilas' THEN 'nilas-oracle'
                                  WHEN 'lava' THEN 'lava-oracle' WHEN 'off' THEN NULL ELSE g.arm END
    LEFT JOIN (SELECT win, seed, max(gain) AS gain FROM gains
               WHERE arm IN ('oracle', 'nilas-oracle', 'lava-oracle') GROUP BY win, seed) best
         ON best.win = g.win AND best.seed = g.seed
), spread AS (
    SELECT win, max(empty) - min(empty) AS off_spread FROM latest WHERE arm = 'off' GROUP BY win
)
SELECT s.dataset, s.window_from_s, s.window_to_s, any_value(s.in_sample) AS in_sample,
       any_value(s.repredict_every_s) AS repredict_every_s, s.arm,
       count(*) AS seeds,
       median(s.empty) AS empty_machines_median, min(s.empty) AS empty_machines_min, max(s.empty) AS empty_machines_max,
       median(s.gain) AS empty_gain_vs_off_median, min(s.gain) AS empty_gain_vs_off_min, max(s.gain) AS empty_gain_vs_off_max,
       median(s.own_share) AS oracle_gain_share_median, min(s.own_share) AS oracle_gain_share_min,
       max(s.own_share) AS oracle_gain_share_max,
       median(s.best_share) AS best_oracle_gain_share_median, min(s.best_share) AS best_oracle_gain_share_min,
       max(s.best_share) AS best_oracle_gain_share_max,
       count(*) FILTER (WHERE s.gain < -sp.off_spread) AS seeds_losing_to_off,
       median(s.density) AS packing_density_pct_median,
       median(s.stranded_cores) AS stranded_cores_pct_median,
       median(s.stranded_memory) AS stranded_memory_pct_median,
       median(s.rejected) AS rejected_median,
       list(s.run_id ORDER BY s.seed) AS run_ids
FROM shares s LEFT JOIN spread sp ON sp.win = s.win
GROUP BY s.dataset, s.win, s.window_from_s, s.window_to_s, s.arm
ORDER BY s.dataset, s.window_from_s, s.window_to_s, s.win,
         CASE s.arm WHEN 'off' THEN 0 WHEN 'oracle' THEN 1 WHEN 'model' THEN 2 WHEN 'nilas' THEN 3 WHEN 'lava' THEN 4
                    WHEN 'nilas-oracle' THEN 5 WHEN 'lava-oracle' THEN 6 ELSE 7 END, s.arm;
