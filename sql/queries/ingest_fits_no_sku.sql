-- ingest_fits_no_sku: the VMs of a load whose type fits no SKU of its
-- inventory (derive_type_demand wrote no demand for it: larger than every
-- SKU in some dimension, or than each in a different one), in vm_id order,
-- with the type's sizes in the user's units and, beside them, the largest
-- capacity any SKU has in each dimension (cores, memory_gb, ssd_gb, hdd_gb,
-- nic_gbps, gpus). Read by the workload file's ingest for its
-- vm-fits-no-sku warning. $1 = load_id.
WITH top AS (
    SELECT max(cores) AS cores, max(memory_gb) AS memory_gb, max(ssd_gb) AS ssd_gb,
           max(hdd_gb) AS hdd_gb, max(nic_gbps) AS nic_gbps, max(gpus) AS gpus
    FROM sku WHERE load_id = $1
)
SELECT v.vm_id,
       coalesce(t.cores, 0), coalesce(t.memory_gb, 0), coalesce(t.ssd_gb, 0),
       coalesce(t.hdd_gb, 0), coalesce(t.nic_gbps, 0), coalesce(t.gpus, 0),
       top.cores, top.memory_gb, top.ssd_gb, top.hdd_gb, top.nic_gbps, top.gpus
FROM vm v
JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
JOIN top ON true
WHERE v.load_id = $1
  AND NOT EXISTS (SELECT 1 FROM vm_type_demand d WHERE d.load_id = v.load_id AND d.vm_type = v.vm_type)
ORDER BY v.vm_id;
