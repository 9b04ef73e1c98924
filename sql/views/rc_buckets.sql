-- Resource Central Table 3 (buckets) with the shares of Table 4's "%"
-- columns: for each metric RC predicts, the share of VMs in each bucket.
--   avg and P95-max CPU utilization: 0–25%, 25–50%, 50–75%, 75–100%
--   deployment size in VMs and in cores: 1, 2–10, 11–100, > 100
--   lifetime (completed VMs): ≤ 15 min, 15–60 min, 1–24 h, > 24 h
--   workload class: delay-insensitive, interactive (from placelab classify)
-- A deployment is a tenant's VMs (VMs without a tenant are deployments of
-- one). Buckets are the rc_*_bucket macros (schema 0007). Metrics a dataset lacks give no rows. One pass over the VMs counts
-- the buckets of the per-VM metrics; deployment buckets are counted over
-- deployments, each weighted by its VMs (no join back to the VMs).
CREATE OR REPLACE VIEW rc_buckets AS
WITH c1 AS (
    SELECT dataset,
           count(*) FILTER (WHERE cpu_avg IS NOT NULL AND rc_util_bucket(cpu_avg) = 1) AS "avg_cpu|1",
           count(*) FILTER (WHERE cpu_avg IS NOT NULL AND rc_util_bucket(cpu_avg) = 2) AS "avg_cpu|2",
           count(*) FILTER (WHERE cpu_avg IS NOT NULL AND rc_util_bucket(cpu_avg) = 3) AS "avg_cpu|3",
           count(*) FILTER (WHERE cpu_avg IS NOT NULL AND rc_util_bucket(cpu_avg) = 4) AS "avg_cpu|4",
           count(*) FILTER (WHERE cpu_p95max IS NOT NULL AND rc_util_bucket(cpu_p95max) = 1) AS "p95_cpu|1",
           count(*) FILTER (WHERE cpu_p95max IS NOT NULL AND rc_util_bucket(cpu_p95max) = 2) AS "p95_cpu|2",
           count(*) FILTER (WHERE cpu_p95max IS NOT NULL AND rc_util_bucket(cpu_p95max) = 3) AS "p95_cpu|3",
           count(*) FILTER (WHERE cpu_p95max IS NOT NULL AND rc_util_bucket(cpu_p95max) = 4) AS "p95_cpu|4",
           count(*) FILTER (WHERE end_s IS NOT NULL AND rc_lifetime_bucket(end_s - start_s) = 1) AS "lifetime|1",
           count(*) FILTER (WHERE end_s IS NOT NULL AND rc_lifetime_bucket(end_s - start_s) = 2) AS "lifetime|2",
           count(*) FILTER (WHERE end_s IS NOT NULL AND rc_lifetime_bucket(end_s - start_s) = 3) AS "lifetime|3",
           count(*) FILTER (WHERE end_s IS NOT NULL AND rc_lifetime_bucket(end_s - start_s) = 4) AS "lifetime|4"
    FROM vm GROUP BY dataset
), dep AS (
    SELECT v.dataset, v.tenant, count(*) AS vms, sum(t.cores) AS cores
    FROM vm v LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    WHERE v.tenant IS NOT NULL GROUP BY ALL
    UNION ALL
    SELECT v.dataset, NULL, 1, t.cores
    FROM vm v LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    WHERE v.tenant IS NULL
), c2 AS (
    SELECT dataset,
           sum(vms) FILTER (WHERE true AND rc_size_bucket(vms) = 1) AS "deploy_vms|1",
           sum(vms) FILTER (WHERE true AND rc_size_bucket(vms) = 2) AS "deploy_vms|2",
           sum(vms) FILTER (WHERE true AND rc_size_bucket(vms) = 3) AS "deploy_vms|3",
           sum(vms) FILTER (WHERE true AND rc_size_bucket(vms) = 4) AS "deploy_vms|4",
           sum(vms) FILTER (WHERE cores IS NOT NULL AND rc_size_bucket(cores) = 1) AS "deploy_cores|1",
           sum(vms) FILTER (WHERE cores IS NOT NULL AND rc_size_bucket(cores) = 2) AS "deploy_cores|2",
           sum(vms) FILTER (WHERE cores IS NOT NULL AND rc_size_bucket(cores) = 3) AS "deploy_cores|3",
           sum(vms) FILTER (WHERE cores IS NOT NULL AND rc_size_bucket(cores) = 4) AS "deploy_cores|4"
    FROM dep GROUP BY dataset
), b AS (
    SELECT dataset, split_part(key, '|', 1) AS metric, split_part(key, '|', 2)::INTEGER AS bucket, vms
    FROM (UNPIVOT c1 ON "avg_cpu|1", "avg_cpu|2", "avg_cpu|3", "avg_cpu|4", "p95_cpu|1", "p95_cpu|2", "p95_cpu|3", "p95_cpu|4", "lifetime|1", "lifetime|2", "lifetime|3", "lifetime|4" INTO NAME key VALUE vms) WHERE vms > 0
    UNION ALL
    SELECT dataset, split_part(key, '|', 1), split_part(key, '|', 2)::INTEGER, vms
    FROM (UNPIVOT c2 ON "deploy_vms|1", "deploy_vms|2", "deploy_vms|3", "deploy_vms|4", "deploy_cores|1", "deploy_cores|2", "deploy_cores|3", "deploy_cores|4" INTO NAME key VALUE vms) WHERE vms > 0
    UNION ALL
    SELECT dataset, 'workload_class', CASE class WHEN 'delay-insensitive' THEN 1 ELSE 2 END, count(*)
    FROM workload_class WHERE class <> 'unknown' GROUP BY ALL
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
