-- Resource Central Table 4 beside placelab predict evaluate's latest
-- evaluation of each (dataset, metric, predictor): accuracy, P^theta and
-- R^theta at theta = 0.6 (bucket 0 rows of prediction_eval), and per bucket
-- the share of test VMs, precision and recall. paper_* columns are RC's
-- Table 4 (Azure's production VMs, 2017: trained on two months, tested on
-- the third); they are set only beside a model's row (predictor xgboost or
-- random-forest) of a dataset that is not synthetic — a synthetic trace's
-- figures get no paper column. Fractions in [0, 1].
CREATE OR REPLACE VIEW rc_table4 AS
WITH paper(metric, bucket, p_acc, p_share, p_precision, p_recall, p_ptheta, p_rtheta) AS (
    VALUES ('avg_cpu', 0, 0.81, NULL, NULL, NULL, 0.87, 0.78),
           ('avg_cpu', 1, NULL, 0.74, 0.92, 0.83, NULL, NULL),
           ('avg_cpu', 2, NULL, 0.19, 0.73, 0.78, NULL, NULL),
           ('avg_cpu', 3, NULL, 0.06, 0.78, 0.74, NULL, NULL),
           ('avg_cpu', 4, NULL, 0.02, 0.74, 0.71, NULL, NULL),
           ('p95_cpu', 0, 0.83, NULL, NULL, NULL, 0.94, 0.73),
           ('p95_cpu', 1, NULL, 0.25, 0.83, 0.89, NULL, NULL),
           ('p95_cpu', 2, NULL, 0.15, 0.72, 0.74, NULL, NULL),
           ('p95_cpu', 3, NULL, 0.14, 0.73, 0.72, NULL, NULL),
           ('p95_cpu', 4, NULL, 0.46, 0.91, 0.86, NULL, NULL),
           ('deploy_vms', 0, 0.83, NULL, NULL, NULL, 0.88, 0.90),
           ('deploy_vms', 1, NULL, 0.49, 0.85, 0.87, NULL, NULL),
           ('deploy_vms', 2, NULL, 0.40, 0.79, 0.79, NULL, NULL),
           ('deploy_vms', 3, NULL, 0.10, 0.80, 0.74, NULL, NULL),
           ('deploy_vms', 4, NULL, 0.01, 0.87, 0.75, NULL, NULL),
           ('deploy_cores', 0, 0.86, NULL, NULL, NULL, 0.90, 0.92),
           ('deploy_cores', 1, NULL, 0.19, 0.81, 0.84, NULL, NULL),
           ('deploy_cores', 2, NULL, 0.60, 0.88, 0.90, NULL, NULL),
           ('deploy_cores', 3, NULL, 0.19, 0.81, 0.76, NULL, NULL),
           ('deploy_cores', 4, NULL, 0.03, 0.86, 0.66, NULL, NULL),
           ('lifetime', 0, 0.79, NULL, NULL, NULL, 0.85, 0.80),
           ('lifetime', 1, NULL, 0.29, 0.78, 0.81, NULL, NULL),
           ('lifetime', 2, NULL, 0.32, 0.70, 0.79, NULL, NULL),
           ('lifetime', 3, NULL, 0.32, 0.71, 0.77, NULL, NULL),
           ('lifetime', 4, NULL, 0.07, 0.69, 0.80, NULL, NULL),
           ('workload_class', 0, 0.90, NULL, NULL, NULL, 0.91, 0.98),
           ('workload_class', 1, NULL, 0.99, 1.00, 0.90, NULL, NULL),
           ('workload_class', 2, NULL, 0.01, 0.07, 0.84, NULL, NULL)
), latest AS (
    SELECT r.dataset, e.metric, e.predictor, max(e.run_id) AS run_id
    FROM prediction_eval e JOIN run r USING (run_id)
    GROUP BY ALL
), x AS (
    SELECT r.dataset, e.*,
           e.predictor IN ('xgboost', 'random-forest') AND coalesce(d.format, '') <> 'synthetic' AS paper_ok
    FROM prediction_eval e
    JOIN latest l USING (run_id, metric, predictor)
    JOIN run r USING (run_id)
    LEFT JOIN dataset d ON d.name = r.dataset
)
SELECT x.dataset, x.metric, x.predictor, x.model, x.bucket, x.run_id, x.vms,
       x.accuracy, x.p_theta, x.r_theta, x.coverage, x.share, x.precision, x.recall,
       CASE WHEN paper_ok THEN p.p_acc::DOUBLE END AS paper_accuracy,
       CASE WHEN paper_ok THEN p.p_ptheta::DOUBLE END AS paper_p_theta,
       CASE WHEN paper_ok THEN p.p_rtheta::DOUBLE END AS paper_r_theta,
       CASE WHEN paper_ok THEN p.p_share::DOUBLE END AS paper_share,
       CASE WHEN paper_ok THEN p.p_precision::DOUBLE END AS paper_precision,
       CASE WHEN paper_ok THEN p.p_recall::DOUBLE END AS paper_recall
FROM x LEFT JOIN paper p ON p.metric = x.metric AND p.bucket = x.bucket
ORDER BY x.dataset,
         CASE x.metric WHEN 'avg_cpu' THEN 1 WHEN 'p95_cpu' THEN 2 WHEN 'deploy_vms' THEN 3
                       WHEN 'deploy_cores' THEN 4 WHEN 'lifetime' THEN 5 ELSE 6 END,
         x.predictor, x.bucket;
