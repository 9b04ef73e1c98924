-- Resource Central Fig 1: CDFs over VMs of average CPU utilization and of the
-- 95th percentile of maximum CPU utilization (5-minute readings), at every 5%
-- from 0 to 100. VMs without utilization summaries are left out.
CREATE OR REPLACE VIEW cpu_utilization_cdf AS
WITH pts AS (SELECT x::DOUBLE AS util_pct FROM range(0, 105, 5) r(x))
SELECT v.dataset, p.util_pct,
       round(100.0 * count(*) FILTER (WHERE v.cpu_avg <= p.util_pct) / nullif(count(v.cpu_avg), 0), 3) AS avg_cdf_pct,
       round(100.0 * count(*) FILTER (WHERE v.cpu_p95max <= p.util_pct) / nullif(count(v.cpu_p95max), 0), 3) AS p95max_cdf_pct,
       count(v.cpu_avg) AS vms
FROM vm v, pts p
WHERE v.cpu_avg IS NOT NULL OR v.cpu_p95max IS NOT NULL
GROUP BY v.dataset, p.util_pct
ORDER BY v.dataset, p.util_pct;
