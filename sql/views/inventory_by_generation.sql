-- Protean Table 1: distribution of hardware generations in a zone — cores per
-- machine and number of machines per generation (SKUs of one generation
-- aggregated, as the paper does).
CREATE OR REPLACE VIEW inventory_by_generation AS
SELECT m.dataset, s.generation, s.cores AS cores_per_machine,
       count(*) AS machines,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY m.dataset), 2) AS pct_machines
FROM machine m
JOIN sku s ON s.load_id = m.load_id AND s.sku = m.sku
GROUP BY m.dataset, s.generation, s.cores
ORDER BY m.dataset, s.generation NULLS LAST, s.cores;
