-- Resource Central Figs 2 and 3: distribution of virtual cores and of memory
-- (GB) per VM, with CDFs.
CREATE OR REPLACE VIEW vm_size_distribution AS
WITH s AS (
    SELECT v.dataset, 'cores' AS metric, t.cores AS value
    FROM vm v JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type WHERE t.cores IS NOT NULL
    UNION ALL
    SELECT v.dataset, 'memory_gb', t.memory_gb
    FROM vm v JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type WHERE t.memory_gb IS NOT NULL
)
SELECT dataset, metric, value, count(*) AS vms,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset, metric), 3) AS pct,
       round(100.0 * sum(count(*)) OVER (PARTITION BY dataset, metric ORDER BY value)
             / sum(count(*)) OVER (PARTITION BY dataset, metric), 3) AS cdf_pct
FROM s
GROUP BY dataset, metric, value
ORDER BY dataset, metric, value;
