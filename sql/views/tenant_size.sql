-- Protean §2.2: service request sizes — the VMs of one tenant arriving at the
-- same time form one request. The paper: 94% of requests are single VMs, 99%
-- five or fewer, a few reach hundreds. One row per (dataset, size).
CREATE OR REPLACE VIEW tenant_size AS
WITH req AS (
    SELECT dataset, tenant, start_s, count(*) AS size
    FROM vm WHERE start_s >= 0
    GROUP BY dataset, tenant, start_s
)
SELECT dataset, size, count(*) AS requests,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset), 3) AS pct,
       round(100.0 * sum(count(*)) OVER (PARTITION BY dataset ORDER BY size)
             / sum(count(*)) OVER (PARTITION BY dataset), 3) AS cdf_pct
FROM req
GROUP BY dataset, size
ORDER BY dataset, size;
