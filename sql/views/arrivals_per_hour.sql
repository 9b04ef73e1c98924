-- VM arrivals per hour since the start of each trace (the series behind
-- Protean Fig 3 and Resource Central Fig 7). VMs alive before collection
-- began (negative start) are not arrivals.
CREATE OR REPLACE VIEW arrivals_per_hour AS
SELECT dataset, CAST(floor(start_s / 3600) AS BIGINT) AS hour, count(*) AS arrivals
FROM vm
WHERE start_s >= 0
GROUP BY ALL
ORDER BY dataset, hour;
