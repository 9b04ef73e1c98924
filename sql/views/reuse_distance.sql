-- Protean Fig 2: reuse distance — for each VM request of type v (in arrival
-- order, arrivals only), the number of distinct VM types requested since the
-- previous request of v. First requests of a type have no distance and are
-- left out. One row per (dataset, distance) with its share and CDF.
--
-- Consecutive requests of one type form a run; inside a run the distance is
-- 0. For the first request of a run, the distance is a DISTINCT count over a
-- window frame reaching back, in run order, to the type's previous run —
-- computed over runs rather than requests, which are far fewer when most
-- distances are zero. One sort of the requests finds where runs start (the
-- row number and the previous type share a window); a run's size is the
-- distance to the next run's start.
CREATE OR REPLACE VIEW reuse_distance AS
WITH b AS (
    SELECT dataset, vm_type, row_number() OVER w AS seq, lag(vm_type) OVER w AS prev,
           count(*) OVER (PARTITION BY dataset) AS n
    FROM vm WHERE start_s >= 0
    WINDOW w AS (PARTITION BY dataset ORDER BY start_s, vm_id)
), runs AS (
    SELECT dataset, vm_type,
           row_number() OVER (PARTITION BY dataset ORDER BY seq) AS run,
           coalesce(lead(seq) OVER (PARTITION BY dataset ORDER BY seq), n + 1) - seq AS size
    FROM b WHERE prev IS DISTINCT FROM vm_type
), p AS (
    SELECT dataset, run, vm_type, size,
           run - lag(run) OVER (PARTITION BY dataset, vm_type ORDER BY run) AS gap
    FROM runs
), d AS MATERIALIZED (
    SELECT dataset, size, gap,
           count(DISTINCT vm_type) OVER (PARTITION BY dataset ORDER BY run
               ROWS BETWEEN (coalesce(gap, 1) - 1) PRECEDING AND 1 PRECEDING) AS distance
    FROM p
), e AS (
    -- the run's first request (when the type was seen before) ...
    SELECT dataset, distance, 1 AS n FROM d WHERE gap IS NOT NULL
    UNION ALL
    -- ... and the rest of the run, at distance 0
    SELECT dataset, 0, size - 1 FROM d WHERE size > 1
)
SELECT dataset, distance, sum(n) AS requests,
       round(100.0 * sum(n) / sum(sum(n)) OVER (PARTITION BY dataset), 3) AS pct,
       round(100.0 * sum(sum(n)) OVER (PARTITION BY dataset ORDER BY distance)
             / sum(sum(n)) OVER (PARTITION BY dataset), 3) AS cdf_pct
FROM e
GROUP BY dataset, distance
ORDER BY dataset, distance;
