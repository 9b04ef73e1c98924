-- Resource Central Figs 2 and 3: distribution of virtual cores and of memory
-- (GB) per VM, with CDFs.
-- VMs are counted per type first (a few dozen groups) and the counts then
-- joined to the types' sizes, rather than joining every VM to its type.
CREATE OR REPLACE VIEW vm_size_distribution AS
WITH c AS (
    SELECT dataset, load_id, vm_type, count(*) AS n FROM vm GROUP BY ALL
), s AS (
    SELECT c.dataset, 'cores' AS metric, t.cores AS value, c.n
    FROM c JOIN vm_type t ON t.load_id = c.load_id AND t.vm_type = c.vm_type WHERE t.cores IS NOT NULL
    UNION ALL
    SELECT c.dataset, 'memory_gb', t.memory_gb, c.n
    FROM c JOIN vm_type t ON t.load_id = c.load_id AND t.vm_type = c.vm_type WHERE t.memory_gb IS NOT NULL
)
SELECT dataset, metric, value, sum(n)::BIGINT AS vms,
       round(100.0 * sum(n) / sum(sum(n)) OVER (PARTITION BY dataset, metric), 3) AS pct,
       round(100.0 * sum(sum(n)) OVER (PARTITION BY dataset, metric ORDER BY value)
             / sum(sum(n)) OVER (PARTITION BY dataset, metric), 3) AS cdf_pct
FROM s
GROUP BY dataset, metric, value
ORDER BY dataset, metric, value;
