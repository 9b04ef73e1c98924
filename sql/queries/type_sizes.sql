-- type_sizes: each VM type's own size in absolute units (a pod's requests),
-- whatever machine it runs on; NULL where a dataset gives a type only as
-- fractions of machines (the Azure packing trace). $1 = load_id.
SELECT vm_type, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus, pods
FROM vm_type WHERE load_id = $1 ORDER BY vm_type;
