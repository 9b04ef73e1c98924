-- Protean Fig 5 and Resource Central Fig 5: CDF of VM lifetimes per dataset
-- at fixed points from 5 minutes to 30 days, over completed VMs (start and end
-- known); censored VMs (still alive at the end of the trace) are counted apart
-- and their lower-bound lifetimes are not in the CDF. Each VM falls into the
-- first point at or above its lifetime; the CDF is the running sum (one pass).
CREATE OR REPLACE VIEW lifetime_cdf AS
WITH pts(k, label, seconds) AS (
    VALUES (1, '5m', 300), (2, '10m', 600), (3, '15m', 900), (4, '30m', 1800), (5, '1h', 3600), (6, '2h', 7200),
           (7, '6h', 21600), (8, '12h', 43200), (9, '1d', 86400), (10, '2d', 172800), (11, '7d', 604800),
           (12, '14d', 1209600), (13, '30d', 2592000)
), v AS (
    SELECT dataset, end_s - start_s AS life FROM vm
), b AS (
    SELECT dataset,
           CASE WHEN life <= 300 THEN 1 WHEN life <= 600 THEN 2 WHEN life <= 900 THEN 3 WHEN life <= 1800 THEN 4
                WHEN life <= 3600 THEN 5 WHEN life <= 7200 THEN 6 WHEN life <= 21600 THEN 7 WHEN life <= 43200 THEN 8
                WHEN life <= 86400 THEN 9 WHEN life <= 172800 THEN 10 WHEN life <= 604800 THEN 11
                WHEN life <= 1209600 THEN 12 WHEN life <= 2592000 THEN 13 END AS k,
           count(*) AS n
    FROM v WHERE life IS NOT NULL GROUP BY ALL
), tot AS (
    SELECT dataset, count(life) AS completed, count(*) - count(life) AS censored FROM v GROUP BY dataset
)
SELECT t.dataset, p.label, p.seconds AS lifetime_s,
       round(100.0 * sum(coalesce(b.n, 0)) OVER (PARTITION BY t.dataset ORDER BY p.k) / nullif(t.completed, 0), 3) AS cdf_pct,
       t.completed AS completed_vms, t.censored AS censored_vms
FROM tot t
CROSS JOIN pts p
LEFT JOIN b ON b.dataset = t.dataset AND b.k = p.k
ORDER BY t.dataset, p.seconds;
