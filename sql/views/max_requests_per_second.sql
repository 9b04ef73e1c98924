-- Protean Fig 4: requests per second, as the maximum over each 5-minute
-- interval of the per-second request counts (arrivals only).
CREATE OR REPLACE VIEW max_requests_per_second AS
WITH s AS (
    SELECT dataset, CAST(floor(start_s) AS BIGINT) AS sec, count(*) AS n
    FROM vm WHERE start_s >= 0 GROUP BY ALL
)
SELECT dataset, (sec // 300) * 300 AS interval_start_s, max(n) AS max_requests_per_s,
       sum(n) AS requests
FROM s
GROUP BY dataset, sec // 300
ORDER BY dataset, interval_start_s;
