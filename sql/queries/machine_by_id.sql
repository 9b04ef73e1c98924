-- machine_by_id: one machine of a dataset. $1 = dataset, $2 = machine_id.
SELECT name, cluster, rack, sku, health FROM machine WHERE dataset = $1 AND machine_id = $2;
