-- Resource Central Fig 7 (inter-arrival times): the gaps between consecutive
-- VM arrivals per dataset, summarized with a Weibull fit F(x) = 1 − exp(−(x/λ)^k)
-- by least squares of ln(−ln(1−F)) on ln x over the empirical CDF
-- (Bernard's median ranks (i − 0.3)/(n + 0.4)); zero gaps (simultaneous
-- arrivals) are counted apart and left out of the fit.
--
-- Arrivals are grouped by start time first: within one second the gaps are
-- zero, and between consecutive distinct start times there is one gap, so
-- the sort is over distinct start times rather than VMs. Above 1M gaps the
-- fit uses a 1-in-k sample of them (a hash of the arrival time on a stride,
-- k = ⌊gaps / 1,000,000⌋; column fit_gaps); counts, mean and median use all.
CREATE OR REPLACE VIEW interarrival AS
WITH t AS (
    SELECT dataset, start_s, count(*) AS arrivals FROM vm WHERE start_s >= 0 GROUP BY ALL
), a AS MATERIALIZED (
    SELECT dataset, start_s, arrivals, start_s - lag(start_s) OVER (PARTITION BY dataset ORDER BY start_s) AS gap FROM t
), z AS (
    SELECT dataset, sum(arrivals - 1) AS zero_gaps, count(gap) FILTER (WHERE gap > 0) AS gaps,
           avg(gap) FILTER (WHERE gap > 0) AS mean_gap_s, median(gap) FILTER (WHERE gap > 0) AS median_gap_s,
           greatest(1, count(gap) FILTER (WHERE gap > 0) // 1000000) AS k
    FROM a GROUP BY dataset
), g AS (
    SELECT a.dataset, a.gap,
           row_number() OVER (PARTITION BY a.dataset ORDER BY a.gap) AS i,
           count(*) OVER (PARTITION BY a.dataset) AS n
    FROM a JOIN z ON z.dataset = a.dataset
    WHERE a.gap > 0 AND hash(a.start_s) % z.k = 0
), fit AS (
    SELECT dataset, regr_slope(ln(-ln(1 - (i - 0.3) / (n + 0.4))), ln(gap)) AS k,
           regr_intercept(ln(-ln(1 - (i - 0.3) / (n + 0.4))), ln(gap)) AS b, count(*) AS fit_gaps
    FROM g GROUP BY dataset
)
SELECT z.dataset, z.gaps, z.zero_gaps,
       round(z.mean_gap_s, 3) AS mean_gap_s, round(z.median_gap_s, 3) AS median_gap_s,
       round(f.k, 4) AS weibull_shape, round(exp(-f.b / f.k), 4) AS weibull_scale_s, f.fit_gaps
FROM z JOIN fit f ON f.dataset = z.dataset
ORDER BY z.dataset;
