-- plan_machines: a dataset's machines per SKU ($1 dataset, its current load).
SELECT m.sku, count(*) AS machines
FROM machine m
JOIN dataset d ON d.name = m.dataset AND d.load_id = m.load_id
WHERE m.dataset = $1
GROUP BY m.sku ORDER BY m.sku
