-- Resource Central Fig 1: CDFs over VMs of average CPU utilization and of the
-- 95th percentile of maximum CPU utilization (5-minute readings), at every 5%
-- from 0 to 100. VMs without utilization summaries are left out. Each VM
-- falls into the first 5% step at or above its value; the CDF is the running
-- sum over steps (one pass over the VMs).
CREATE OR REPLACE VIEW cpu_utilization_cdf AS
WITH pts AS (SELECT x::DOUBLE AS util_pct FROM range(0, 105, 5) r(x)),
v AS (
    SELECT dataset, cpu_avg, cpu_p95max FROM vm WHERE cpu_avg IS NOT NULL OR cpu_p95max IS NOT NULL
), a AS (
    SELECT dataset, least(greatest(ceil(cpu_avg / 5) * 5, 0), 100) AS util_pct, count(*) AS n
    FROM v WHERE cpu_avg IS NOT NULL AND cpu_avg <= 100 GROUP BY ALL
), p AS (
    SELECT dataset, least(greatest(ceil(cpu_p95max / 5) * 5, 0), 100) AS util_pct, count(*) AS n
    FROM v WHERE cpu_p95max IS NOT NULL AND cpu_p95max <= 100 GROUP BY ALL
), tot AS (
    SELECT dataset, count(cpu_avg) AS na, count(cpu_p95max) AS np FROM v GROUP BY dataset
), grid AS (
    SELECT t.dataset, pts.util_pct, t.na, t.np FROM tot t, pts
)
SELECT g.dataset, g.util_pct,
       round(100.0 * sum(coalesce(a.n, 0)) OVER (PARTITION BY g.dataset ORDER BY g.util_pct) / nullif(g.na, 0), 3) AS avg_cdf_pct,
       round(100.0 * sum(coalesce(p.n, 0)) OVER (PARTITION BY g.dataset ORDER BY g.util_pct) / nullif(g.np, 0), 3) AS p95max_cdf_pct,
       g.na AS vms
FROM grid g
LEFT JOIN a ON a.dataset = g.dataset AND a.util_pct = g.util_pct
LEFT JOIN p ON p.dataset = g.dataset AND p.util_pct = g.util_pct
ORDER BY g.dataset, g.util_pct;
