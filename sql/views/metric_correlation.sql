-- Resource Central Fig 8: Spearman rank correlation between per-VM metrics —
-- average and P95-max CPU, lifetime (completed VMs), cores, memory and the
-- size of the VM's deployment — as the Pearson correlation of average ranks
-- (ties share their mean rank). Only VMs with every metric count.
CREATE OR REPLACE VIEW metric_correlation AS
WITH d AS (
    SELECT dataset, tenant, count(*) AS deployment_size FROM vm GROUP BY ALL
), v AS (
    SELECT v.dataset, v.cpu_avg, v.cpu_p95max, v.end_s - v.start_s AS lifetime,
           t.cores, t.memory_gb, d.deployment_size
    FROM vm v
    JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    JOIN d ON d.dataset = v.dataset AND d.tenant = v.tenant
    WHERE v.cpu_avg IS NOT NULL AND v.cpu_p95max IS NOT NULL AND v.end_s IS NOT NULL
      AND t.cores IS NOT NULL AND t.memory_gb IS NOT NULL
), r AS (
    SELECT dataset,
           (rank() OVER (PARTITION BY dataset ORDER BY cpu_avg) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY cpu_avg DESC)) / 2.0 AS cpu_avg,
           (rank() OVER (PARTITION BY dataset ORDER BY cpu_p95max) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY cpu_p95max DESC)) / 2.0 AS cpu_p95max,
           (rank() OVER (PARTITION BY dataset ORDER BY lifetime) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY lifetime DESC)) / 2.0 AS lifetime,
           (rank() OVER (PARTITION BY dataset ORDER BY cores) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY cores DESC)) / 2.0 AS cores,
           (rank() OVER (PARTITION BY dataset ORDER BY memory_gb) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY memory_gb DESC)) / 2.0 AS memory_gb,
           (rank() OVER (PARTITION BY dataset ORDER BY deployment_size) + count(*) OVER (PARTITION BY dataset) + 1 - rank() OVER (PARTITION BY dataset ORDER BY deployment_size DESC)) / 2.0 AS deployment_size
    FROM v
), c AS (
    SELECT dataset, count(*) AS vms,
           corr(cpu_avg, cpu_avg) AS "cpu_avg|cpu_avg",
           corr(cpu_avg, cpu_p95max) AS "cpu_avg|cpu_p95max",
           corr(cpu_avg, lifetime) AS "cpu_avg|lifetime",
           corr(cpu_avg, cores) AS "cpu_avg|cores",
           corr(cpu_avg, memory_gb) AS "cpu_avg|memory_gb",
           corr(cpu_avg, deployment_size) AS "cpu_avg|deployment_size",
           corr(cpu_p95max, cpu_p95max) AS "cpu_p95max|cpu_p95max",
           corr(cpu_p95max, lifetime) AS "cpu_p95max|lifetime",
           corr(cpu_p95max, cores) AS "cpu_p95max|cores",
           corr(cpu_p95max, memory_gb) AS "cpu_p95max|memory_gb",
           corr(cpu_p95max, deployment_size) AS "cpu_p95max|deployment_size",
           corr(lifetime, lifetime) AS "lifetime|lifetime",
           corr(lifetime, cores) AS "lifetime|cores",
           corr(lifetime, memory_gb) AS "lifetime|memory_gb",
           corr(lifetime, deployment_size) AS "lifetime|deployment_size",
           corr(cores, cores) AS "cores|cores",
           corr(cores, memory_gb) AS "cores|memory_gb",
           corr(cores, deployment_size) AS "cores|deployment_size",
           corr(memory_gb, memory_gb) AS "memory_gb|memory_gb",
           corr(memory_gb, deployment_size) AS "memory_gb|deployment_size",
           corr(deployment_size, deployment_size) AS "deployment_size|deployment_size"
    FROM r GROUP BY dataset
), u AS (
    UNPIVOT c ON "cpu_avg|cpu_avg", "cpu_avg|cpu_p95max", "cpu_avg|lifetime", "cpu_avg|cores", "cpu_avg|memory_gb", "cpu_avg|deployment_size", "cpu_p95max|cpu_p95max", "cpu_p95max|lifetime", "cpu_p95max|cores", "cpu_p95max|memory_gb", "cpu_p95max|deployment_size", "lifetime|lifetime", "lifetime|cores", "lifetime|memory_gb", "lifetime|deployment_size", "cores|cores", "cores|memory_gb", "cores|deployment_size", "memory_gb|memory_gb", "memory_gb|deployment_size", "deployment_size|deployment_size" INTO NAME pair VALUE rho
)
SELECT dataset, split_part(pair, '|', 1) AS metric_a, split_part(pair, '|', 2) AS metric_b,
       round(rho, 4) AS spearman, vms
FROM u
ORDER BY dataset, metric_a, metric_b;
