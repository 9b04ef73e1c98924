-- replay_skus: the SKUs of a dataset. $1 = dataset.
SELECT sku, coalesce(generation, 0), cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus, coalesce(pods, 0)
FROM sku WHERE dataset = $1 ORDER BY sku;
