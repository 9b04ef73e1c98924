-- replay_machines: the machines of a dataset in id order. $1 = dataset.
SELECT machine_id, name, cluster, rack, update_domain, sku, health
FROM machine WHERE dataset = $1 ORDER BY machine_id;
