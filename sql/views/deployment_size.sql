-- Resource Central Fig 4: per subscription and day, the size (VMs) of its
-- largest deployment created that day; the distribution of that maximum.
-- Datasets without subscriptions give no rows.
CREATE OR REPLACE VIEW deployment_size AS
WITH d AS (
    SELECT dataset, subscription, tenant, CAST(floor(start_s / 86400) AS BIGINT) AS day, count(*) AS vms
    FROM vm WHERE subscription IS NOT NULL AND start_s >= 0
    GROUP BY ALL
), m AS (
    SELECT dataset, subscription, day, max(vms) AS max_size FROM d GROUP BY ALL
)
SELECT dataset, max_size, count(*) AS subscription_days,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset), 3) AS pct,
       round(100.0 * sum(count(*)) OVER (PARTITION BY dataset ORDER BY max_size)
             / sum(count(*)) OVER (PARTITION BY dataset), 3) AS cdf_pct
FROM m
GROUP BY dataset, max_size
ORDER BY dataset, max_size;
