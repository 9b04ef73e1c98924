-- Resource Central Table 3 (buckets) with the shares of Table 4's "%"
-- columns: for each metric RC predicts, the share of VMs in each bucket.
--   avg and P95-max CPU utilization: 0–25%, 25–50%, 50–75%, 75–100%
--   deployment size in VMs and in cores: 1, 2–10, 11–100, > 100
--   lifetime (completed VMs): ≤ 15 min, 15–60 min, 1–24 h, > 24 h
--   workload class: delay-insensitive, interactive (from placelab classify)
-- A deployment is a tenant's VMs (VMs without a tenant are deployments of
-- one). Metrics a dataset lacks give no rows.
CREATE OR REPLACE VIEW rc_buckets AS
WITH dep AS (
    SELECT v.load_id, v.tenant, count(*) AS vms, sum(coalesce(t.cores, 1)) AS cores
    FROM vm v LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    WHERE v.tenant IS NOT NULL GROUP BY ALL
), v AS (
    SELECT v.dataset, v.cpu_avg, v.cpu_p95max,
           CASE WHEN v.end_s IS NOT NULL THEN v.end_s - v.start_s END AS lifetime,
           coalesce(d.vms, 1) AS dep_vms, coalesce(d.cores, t.cores) AS dep_cores
    FROM vm v
    LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    LEFT JOIN dep d ON d.load_id = v.load_id AND d.tenant = v.tenant
), b AS (
    SELECT dataset, metric, bucket, count(*) AS vms FROM (
        SELECT dataset, 'avg_cpu' AS metric,
               CASE WHEN cpu_avg <= 25 THEN 1 WHEN cpu_avg <= 50 THEN 2 WHEN cpu_avg <= 75 THEN 3 ELSE 4 END AS bucket
        FROM v WHERE cpu_avg IS NOT NULL
        UNION ALL
        SELECT dataset, 'p95_cpu',
               CASE WHEN cpu_p95max <= 25 THEN 1 WHEN cpu_p95max <= 50 THEN 2 WHEN cpu_p95max <= 75 THEN 3 ELSE 4 END
        FROM v WHERE cpu_p95max IS NOT NULL
        UNION ALL
        SELECT dataset, 'deploy_vms',
               CASE WHEN dep_vms <= 1 THEN 1 WHEN dep_vms <= 10 THEN 2 WHEN dep_vms <= 100 THEN 3 ELSE 4 END
        FROM v
        UNION ALL
        SELECT dataset, 'deploy_cores',
               CASE WHEN dep_cores <= 1 THEN 1 WHEN dep_cores <= 10 THEN 2 WHEN dep_cores <= 100 THEN 3 ELSE 4 END
        FROM v WHERE dep_cores IS NOT NULL
        UNION ALL
        SELECT dataset, 'lifetime',
               CASE WHEN lifetime <= 900 THEN 1 WHEN lifetime <= 3600 THEN 2 WHEN lifetime <= 86400 THEN 3 ELSE 4 END
        FROM v WHERE lifetime IS NOT NULL
        UNION ALL
        SELECT dataset, 'workload_class', CASE class WHEN 'delay-insensitive' THEN 1 ELSE 2 END
        FROM workload_class WHERE class <> 'unknown'
    ) GROUP BY ALL
)
SELECT dataset, metric, bucket,
       CASE metric
           WHEN 'avg_cpu' THEN ['0-25%', '25-50%', '50-75%', '75-100%'][bucket]
           WHEN 'p95_cpu' THEN ['0-25%', '25-50%', '50-75%', '75-100%'][bucket]
           WHEN 'deploy_vms' THEN ['1', '2-10', '11-100', '>100'][bucket]
           WHEN 'deploy_cores' THEN ['1', '2-10', '11-100', '>100'][bucket]
           WHEN 'lifetime' THEN ['<=15 min', '15-60 min', '1-24 h', '>24 h'][bucket]
           ELSE ['delay-insensitive', 'interactive'][bucket]
       END AS label,
       vms, round(100.0 * vms / sum(vms) OVER (PARTITION BY dataset, metric), 2) AS pct
FROM b
ORDER BY dataset, metric, bucket;
