-- Resource Central Fig 7 (inter-arrival times): the gaps between consecutive
-- VM arrivals per dataset, summarized with a Weibull fit F(x) = 1 − exp(−(x/λ)^k)
-- by least squares of ln(−ln(1−F)) on ln x over the empirical CDF
-- (Bernard's median ranks (i − 0.3)/(n + 0.4)); zero gaps (simultaneous
-- arrivals) are counted apart and left out of the fit.
CREATE OR REPLACE VIEW interarrival AS
WITH a AS (
    SELECT dataset, start_s - lag(start_s) OVER (PARTITION BY dataset ORDER BY start_s, vm_id) AS gap
    FROM vm WHERE start_s >= 0
), g AS (
    SELECT dataset, gap,
           row_number() OVER (PARTITION BY dataset ORDER BY gap) AS i,
           count(*) OVER (PARTITION BY dataset) AS n
    FROM a WHERE gap > 0
), fit AS (
    SELECT dataset, regr_slope(ln(-ln(1 - (i - 0.3) / (n + 0.4))), ln(gap)) AS k,
           regr_intercept(ln(-ln(1 - (i - 0.3) / (n + 0.4))), ln(gap)) AS b,
           count(*) AS gaps, avg(gap) AS mean_gap_s, median(gap) AS median_gap_s
    FROM g GROUP BY dataset
)
SELECT f.dataset, f.gaps, (SELECT count(*) FROM a WHERE a.dataset = f.dataset AND a.gap = 0) AS zero_gaps,
       round(f.mean_gap_s, 3) AS mean_gap_s, round(f.median_gap_s, 3) AS median_gap_s,
       round(f.k, 4) AS weibull_shape, round(exp(-f.b / f.k), 4) AS weibull_scale_s
FROM fit f
ORDER BY f.dataset;
