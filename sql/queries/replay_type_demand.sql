-- replay_type_demand: every VM type's demand per SKU, as fractions of one
-- machine of that SKU. $1 = dataset.
SELECT vm_type, sku, cores, memory, ssd, hdd, nic, gpu, coalesce(pods, 0)
FROM vm_type_demand WHERE dataset = $1 ORDER BY vm_type, sku;
