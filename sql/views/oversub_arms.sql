-- Resource Central §6.2: prediction-informed CPU oversubscription, one row
-- per stored arm (placelab oversub): scheduling failures, 5-minute server
-- utilization readings above 100% (the co-located VMs' maximum
-- utilizations summed), readings of oversubscribed servers, and how often
-- the P95 prediction was confident and right. RC's month on 880 servers:
-- Baseline 0.25% failures and no reading above 100%; RC-informed-soft no
-- failures and 77 readings above 100%; Naive 6× RC's readings.
CREATE OR REPLACE VIEW oversub_arms AS
SELECT r.run_id, r.dataset, r.policy AS arm,
       max(m.value) FILTER (WHERE m.metric = 'max_oversub') AS max_oversub,
       max(m.value) FILTER (WHERE m.metric = 'max_util') AS max_util,
       max(m.value) FILTER (WHERE m.metric = 'vms')::BIGINT AS vms,
       max(m.value) FILTER (WHERE m.metric = 'failures')::BIGINT AS failures,
       round(max(m.value) FILTER (WHERE m.metric = 'failure_pct'), 3) AS failure_pct,
       max(m.value) FILTER (WHERE m.metric = 'readings')::BIGINT AS readings,
       max(m.value) FILTER (WHERE m.metric = 'readings_over_100')::BIGINT AS readings_over_100,
       max(m.value) FILTER (WHERE m.metric = 'oversubscribed_readings')::BIGINT AS oversubscribed_readings,
       round(max(m.value) FILTER (WHERE m.metric = 'mean_util_pct'), 2) AS mean_util_pct,
       round(max(m.value) FILTER (WHERE m.metric = 'p99_util_pct'), 2) AS p99_util_pct,
       round(100 * max(m.value) FILTER (WHERE m.metric = 'correct_predictions')
             / nullif(max(m.value) FILTER (WHERE m.metric = 'confident_predictions'), 0), 1) AS prediction_precision_pct,
       round(100 * max(m.value) FILTER (WHERE m.metric = 'confident_predictions')
             / nullif(max(m.value) FILTER (WHERE m.metric = 'non_production_requests'), 0), 1) AS confident_pct
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'oversub'
GROUP BY r.run_id, r.dataset, r.policy
ORDER BY r.run_id;
