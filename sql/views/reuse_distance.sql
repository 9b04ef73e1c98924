-- Protean Fig 2: reuse distance — for each VM request of type v (in arrival
-- order, arrivals only), the number of distinct VM types requested since the
-- previous request of v: a DISTINCT count over a window frame that reaches
-- back to that request. First requests of a type have no distance and are
-- left out. One row per (dataset, distance) with its share and CDF.
CREATE OR REPLACE VIEW reuse_distance AS
WITH r AS (
    SELECT dataset, vm_type,
           row_number() OVER (PARTITION BY dataset ORDER BY start_s, vm_id) AS seq
    FROM vm WHERE start_s >= 0
), p AS (
    SELECT dataset, vm_type, seq,
           seq - lag(seq) OVER (PARTITION BY dataset, vm_type ORDER BY seq) AS gap
    FROM r
), d AS (
    SELECT dataset, gap,
           count(DISTINCT vm_type) OVER (PARTITION BY dataset ORDER BY seq
               ROWS BETWEEN (coalesce(gap, 1) - 1) PRECEDING AND 1 PRECEDING) AS distance
    FROM p
)
SELECT dataset, distance, count(*) AS requests,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset), 3) AS pct,
       round(100.0 * sum(count(*)) OVER (PARTITION BY dataset ORDER BY distance)
             / sum(count(*)) OVER (PARTITION BY dataset), 3) AS cdf_pct
FROM d
WHERE gap IS NOT NULL
GROUP BY dataset, distance
ORDER BY dataset, distance;
