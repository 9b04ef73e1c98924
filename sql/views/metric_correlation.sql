-- Resource Central Fig 8: Spearman rank correlation between per-VM metrics —
-- average and P95-max CPU, lifetime (completed VMs), cores, memory and the
-- size of the VM's deployment — as the Pearson correlation of average ranks
-- (ties share their mean rank). Only VMs with every metric count.
--
-- Ranks are computed once per distinct value of each metric (a running sum
-- of counts minus half the ties) and joined back; deployment sizes are
-- counted per tenant over every VM.
--
-- Traces of more than 1M VMs are sampled: a VM takes part when a hash of its
-- id falls on a 1-in-k stride, k = ⌊VMs / 1,000,000⌋, so about 1M VMs are
-- ranked (column vms says how many). The standard error of a Spearman
-- coefficient over 1M pairs is below 0.001; exactness would cost a rank join
-- of every VM per metric.
CREATE OR REPLACE VIEW metric_correlation AS
WITH stride AS (
    SELECT load_id, greatest(1, count(*) // 1000000) AS k FROM vm GROUP BY load_id
), sv AS MATERIALIZED (
    SELECT v.load_id, v.dataset, v.tenant, v.cpu_avg, v.cpu_p95max, v.end_s - v.start_s AS lifetime,
           t.cores, t.memory_gb
    FROM vm v
    JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    JOIN stride s ON s.load_id = v.load_id
    WHERE hash(v.vm_id) % s.k::UBIGINT = 0 AND v.cpu_avg IS NOT NULL AND v.cpu_p95max IS NOT NULL AND v.end_s IS NOT NULL
      AND t.cores IS NOT NULL AND t.memory_gb IS NOT NULL
), dep AS (
    SELECT load_id, tenant, count(*) AS deployment_size FROM vm
    WHERE (load_id, tenant) IN (SELECT load_id, tenant FROM sv) GROUP BY ALL
), v AS MATERIALIZED (
    SELECT sv.dataset, sv.cpu_avg, sv.cpu_p95max, sv.lifetime, sv.cores, sv.memory_gb,
           coalesce(dep.deployment_size, 1) AS deployment_size
    FROM sv LEFT JOIN dep ON dep.load_id = sv.load_id AND dep.tenant = sv.tenant
), r_cpu_avg AS (
    SELECT dataset, cpu_avg AS x, sum(n) OVER (PARTITION BY dataset ORDER BY cpu_avg) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, cpu_avg, count(*) AS n FROM v GROUP BY ALL)), r_cpu_p95max AS (
    SELECT dataset, cpu_p95max AS x, sum(n) OVER (PARTITION BY dataset ORDER BY cpu_p95max) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, cpu_p95max, count(*) AS n FROM v GROUP BY ALL)), r_lifetime AS (
    SELECT dataset, lifetime AS x, sum(n) OVER (PARTITION BY dataset ORDER BY lifetime) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, lifetime, count(*) AS n FROM v GROUP BY ALL)), r_cores AS (
    SELECT dataset, cores AS x, sum(n) OVER (PARTITION BY dataset ORDER BY cores) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, cores, count(*) AS n FROM v GROUP BY ALL)), r_memory_gb AS (
    SELECT dataset, memory_gb AS x, sum(n) OVER (PARTITION BY dataset ORDER BY memory_gb) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, memory_gb, count(*) AS n FROM v GROUP BY ALL)), r_deployment_size AS (
    SELECT dataset, deployment_size AS x, sum(n) OVER (PARTITION BY dataset ORDER BY deployment_size) - (n - 1) / 2.0 AS rk
    FROM (SELECT dataset, deployment_size, count(*) AS n FROM v GROUP BY ALL)), r AS (
    SELECT v.dataset, r_cpu_avg.rk AS cpu_avg, r_cpu_p95max.rk AS cpu_p95max, r_lifetime.rk AS lifetime, r_cores.rk AS cores, r_memory_gb.rk AS memory_gb, r_deployment_size.rk AS deployment_size
    FROM v
    JOIN r_cpu_avg ON r_cpu_avg.dataset = v.dataset AND r_cpu_avg.x = v.cpu_avg
    JOIN r_cpu_p95max ON r_cpu_p95max.dataset = v.dataset AND r_cpu_p95max.x = v.cpu_p95max
    JOIN r_lifetime ON r_lifetime.dataset = v.dataset AND r_lifetime.x = v.lifetime
    JOIN r_cores ON r_cores.dataset = v.dataset AND r_cores.x = v.cores
    JOIN r_memory_gb ON r_memory_gb.dataset = v.dataset AND r_memory_gb.x = v.memory_gb
    JOIN r_deployment_size ON r_deployment_size.dataset = v.dataset AND r_deployment_size.x = v.deployment_size
), c AS (
    SELECT dataset, count(*) AS vms,
           CASE WHEN var_pop(cpu_avg) > 0 THEN 1.0 END AS "cpu_avg|cpu_avg",
           corr(cpu_avg, cpu_p95max) AS "cpu_avg|cpu_p95max",
           corr(cpu_avg, lifetime) AS "cpu_avg|lifetime",
           corr(cpu_avg, cores) AS "cpu_avg|cores",
           corr(cpu_avg, memory_gb) AS "cpu_avg|memory_gb",
           corr(cpu_avg, deployment_size) AS "cpu_avg|deployment_size",
           CASE WHEN var_pop(cpu_p95max) > 0 THEN 1.0 END AS "cpu_p95max|cpu_p95max",
           corr(cpu_p95max, lifetime) AS "cpu_p95max|lifetime",
           corr(cpu_p95max, cores) AS "cpu_p95max|cores",
           corr(cpu_p95max, memory_gb) AS "cpu_p95max|memory_gb",
           corr(cpu_p95max, deployment_size) AS "cpu_p95max|deployment_size",
           CASE WHEN var_pop(lifetime) > 0 THEN 1.0 END AS "lifetime|lifetime",
           corr(lifetime, cores) AS "lifetime|cores",
           corr(lifetime, memory_gb) AS "lifetime|memory_gb",
           corr(lifetime, deployment_size) AS "lifetime|deployment_size",
           CASE WHEN var_pop(cores) > 0 THEN 1.0 END AS "cores|cores",
           corr(cores, memory_gb) AS "cores|memory_gb",
           corr(cores, deployment_size) AS "cores|deployment_size",
           CASE WHEN var_pop(memory_gb) > 0 THEN 1.0 END AS "memory_gb|memory_gb",
           corr(memory_gb, deployment_size) AS "memory_gb|deployment_size",
           CASE WHEN var_pop(deployment_size) > 0 THEN 1.0 END AS "deployment_size|deployment_size"
    FROM r GROUP BY dataset
), u AS (
    UNPIVOT c ON "cpu_avg|cpu_avg", "cpu_avg|cpu_p95max", "cpu_avg|lifetime", "cpu_avg|cores", "cpu_avg|memory_gb", "cpu_avg|deployment_size", "cpu_p95max|cpu_p95max", "cpu_p95max|lifetime", "cpu_p95max|cores", "cpu_p95max|memory_gb", "cpu_p95max|deployment_size", "lifetime|lifetime", "lifetime|cores", "lifetime|memory_gb", "lifetime|deployment_size", "cores|cores", "cores|memory_gb", "cores|deployment_size", "memory_gb|memory_gb", "memory_gb|deployment_size", "deployment_size|deployment_size" INTO NAME pair VALUE rho
)
SELECT dataset, split_part(pair, '|', 1) AS metric_a, split_part(pair, '|', 2) AS metric_b,
       round(rho, 4) AS spearman, vms
FROM u
ORDER BY dataset, metric_a, metric_b;
