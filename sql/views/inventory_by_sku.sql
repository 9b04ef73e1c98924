-- Inventory by SKU / hardware generation per dataset (the shape of Protean Table 1:
-- generation, cores per machine, number of machines).
CREATE OR REPLACE VIEW inventory_by_sku AS
SELECT m.dataset, s.sku, s.generation, s.cores, s.memory_gb, s.ssd_gb, s.gpus,
       count(*) AS machines,
       count(DISTINCT m.cluster) AS clusters,
       count(DISTINCT m.rack) AS racks,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY m.dataset), 2) AS pct_machines
FROM machine m
JOIN sku s ON s.load_id = m.load_id AND s.sku = m.sku
GROUP BY m.dataset, s.sku, s.generation, s.cores, s.memory_gb, s.ssd_gb, s.gpus
ORDER BY m.dataset, s.generation NULLS LAST, s.sku;
