-- Protean Table 3: distribution of VM cores, in the paper's buckets 1, 2, 4,
-- 8, ≥10 and ≥20 (disjoint: 10–19 and 20+; sizes between buckets go to the
-- next bucket up, e.g. 3 → 4, 6 → 8).
CREATE OR REPLACE VIEW cores_mix AS
WITH c AS (
    SELECT dataset, load_id, vm_type, count(*) AS n FROM vm GROUP BY ALL -- per type first
), b AS (
    SELECT c.dataset, c.n,
           CASE WHEN t.cores <= 1 THEN 1 WHEN t.cores <= 2 THEN 2 WHEN t.cores <= 4 THEN 3
                WHEN t.cores < 10 THEN 4 WHEN t.cores < 20 THEN 5 ELSE 6 END AS k
    FROM c JOIN vm_type t ON t.load_id = c.load_id AND t.vm_type = c.vm_type
    WHERE t.cores IS NOT NULL
)
SELECT dataset, k AS bucket_order,
       ['1', '2', '4', '8', '>=10', '>=20'][k] AS cores,
       sum(n)::BIGINT AS vms,
       round(100.0 * sum(n) / sum(sum(n)) OVER (PARTITION BY dataset), 2) AS pct
FROM b
GROUP BY dataset, k
ORDER BY dataset, k;
