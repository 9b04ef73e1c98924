-- Paragon (ASPLOS'13): stored classification evaluations (Table 1's
-- metrics on an app × platform matrix, beside the platform-mean baseline)
-- and scheduling scenarios (QoS share and mean normalized performance per
-- policy, Figs 4 and 9). The paper, 1,000 servers at low load: QoS met for
-- 91% of apps with Paragon, 14% / 11% / 3% with NH / NI / random.
-- dataset is the matrix's dataset (NULL for the scheduling scenarios).
CREATE OR REPLACE VIEW paragon_results AS
SELECT r.run_id, r.dataset, r.policy,
       coalesce(json_extract_string(r.params, '$.scenario'), 'classify ' || coalesce(r.dataset, '')) AS scenario,
       max(m.value) FILTER (WHERE m.metric = 'qos_share') AS qos_share,
       max(m.value) FILTER (WHERE m.metric = 'mean_normalized_perf') AS mean_normalized_perf,
       max(m.value) FILTER (WHERE m.metric = 'workloads')::BIGINT AS workloads,
       max(m.value) FILTER (WHERE m.metric = 'best_sc_accuracy') AS best_sc_accuracy,
       max(m.value) FILTER (WHERE m.metric = 'within_5pct_accuracy') AS within_5pct_accuracy,
       max(m.value) FILTER (WHERE m.metric = 'baseline_best_sc_accuracy') AS baseline_best_sc_accuracy,
       max(m.value) FILTER (WHERE m.metric = 'baseline_within_5pct_accuracy') AS baseline_within_5pct_accuracy,
       max(m.value) FILTER (WHERE m.metric = 'mean_abs_error') AS mean_abs_error
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'paragon'
GROUP BY r.run_id, r.policy, r.params, r.dataset
ORDER BY r.run_id;
