-- Paragon (ASPLOS'13) scheduling over seeds, Figs 4 and 9 as medians:
-- placelab paragon schedule stores one run per seed and policy; per
-- scenario, policy, D1 rule, interference model and scale this gives the
-- median QoS share (apps at ≥ 95% of their performance alone on their best
-- configuration) with its least and greatest value over the seeds, the
-- median mean normalized performance and usable capacity, from the latest
-- run of each seed. The paper, 1,000 EC2 servers at low load: 91% with
-- Paragon vs 14% / 11% / 3% with NH / NI / random (one run each).
-- dataset is NULL: the scenarios are synthetic.
CREATE OR REPLACE VIEW paragon_seed_summary AS
WITH runs AS (
    SELECT r.run_id, r.dataset, r.policy, r.seed,
           json_extract_string(r.params, '$.scenario') AS scenario,
           json_extract_string(r.params, '$.d1') AS d1,
           json_extract_string(r.params, '$.interference') AS interference,
           json_extract(r.params, '$.scale')::DOUBLE AS scale,
           max(m.value) FILTER (WHERE m.metric = 'qos_share') AS qos_share,
           max(m.value) FILTER (WHERE m.metric = 'mean_normalized_perf') AS mean_normalized_perf,
           max(m.value) FILTER (WHERE m.metric = 'usable_cores') AS usable_cores
    FROM run r JOIN run_metric m USING (run_id)
    WHERE r.engine = 'paragon' AND json_extract_string(r.params, '$.d1') IS NOT NULL
    GROUP BY r.run_id, r.dataset, r.policy, r.seed, r.params
), latest AS (
    SELECT *, row_number() OVER (PARTITION BY scenario, policy, d1, interference, scale, seed ORDER BY run_id DESC) AS k
    FROM runs
)
SELECT any_value(dataset) AS dataset, scenario, policy, d1, interference, scale,
       count(*) AS seeds,
       median(qos_share) AS qos_share_median,
       min(qos_share) AS qos_share_min,
       max(qos_share) AS qos_share_max,
       median(mean_normalized_perf) AS mean_normalized_perf_median,
       median(usable_cores) AS usable_cores_median
FROM latest
WHERE k = 1
GROUP BY scenario, policy, d1, interference, scale
ORDER BY scenario, d1, interference, scale,
         CASE policy WHEN 'paragon' THEN 0 WHEN 'oracle' THEN 1 WHEN 'nh' THEN 2 WHEN 'ni' THEN 3 WHEN 'random' THEN 4 ELSE 5 END, policy;
