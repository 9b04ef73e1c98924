-- Resource Central §3 (per-subscription perspective): the coefficient of
-- variation (stddev / mean) of each metric across the VMs of a subscription,
-- for subscriptions with at least 2 VMs; per metric, the share of
-- subscriptions with CoV below 1 and the median CoV.
CREATE OR REPLACE VIEW subscription_cov AS
WITH v AS (
    SELECT v.dataset, v.subscription, v.cpu_avg, v.cpu_p95max, t.cores, t.memory_gb,
           v.end_s - v.start_s AS lifetime
    FROM vm v LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
    WHERE v.subscription IS NOT NULL
), s AS (
    SELECT dataset, subscription,
           stddev_pop(cpu_avg) / nullif(avg(cpu_avg), 0) AS cpu_avg,
           stddev_pop(cpu_p95max) / nullif(avg(cpu_p95max), 0) AS cpu_p95max,
           stddev_pop(cores) / nullif(avg(cores), 0) AS cores,
           stddev_pop(memory_gb) / nullif(avg(memory_gb), 0) AS memory_gb,
           stddev_pop(lifetime) / nullif(avg(lifetime), 0) AS lifetime
    FROM v GROUP BY dataset, subscription HAVING count(*) >= 2
), l AS (
    UNPIVOT s ON cpu_avg, cpu_p95max, cores, memory_gb, lifetime INTO NAME metric VALUE cov
)
SELECT dataset, metric, count(*) AS subscriptions,
       round(100.0 * count(*) FILTER (WHERE cov < 1) / count(*), 2) AS pct_cov_below_1,
       round(median(cov), 4) AS median_cov
FROM l
GROUP BY dataset, metric
ORDER BY dataset, metric;
