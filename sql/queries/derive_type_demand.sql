-- derive_type_demand: for a dataset whose VM types have nominal sizes, write
-- each type's demand on every SKU of the dataset where it fits, as a
-- fraction of one machine. Pod slots count only where the SKU has them
-- (sku.pods > 0; migration 0010). $1 = dataset, $2 = load_id.
INSERT INTO vm_type_demand (dataset, load_id, vm_type, sku, cores, memory, ssd, hdd, nic, gpu, pods)
SELECT t.dataset, t.load_id, t.vm_type, s.sku,
       t.cores / s.cores,
       coalesce(t.memory_gb, 0) / s.memory_gb,
       CASE WHEN s.ssd_gb > 0 THEN coalesce(t.ssd_gb, 0) / s.ssd_gb ELSE 0 END,
       CASE WHEN s.hdd_gb > 0 THEN coalesce(t.hdd_gb, 0) / s.hdd_gb ELSE 0 END,
       CASE WHEN s.nic_gbps > 0 THEN coalesce(t.nic_gbps, 0) / s.nic_gbps ELSE 0 END,
       CASE WHEN s.gpus > 0 THEN coalesce(t.gpus, 0) / s.gpus ELSE 0 END,
       CASE WHEN coalesce(s.pods, 0) > 0 THEN coalesce(t.pods, 0) / s.pods ELSE 0 END
FROM vm_type t
JOIN sku s ON s.load_id = t.load_id
WHERE t.dataset = $1 AND t.load_id = $2 AND t.cores IS NOT NULL
  AND t.cores <= s.cores
  AND coalesce(t.memory_gb, 0) <= s.memory_gb
  AND (coalesce(t.ssd_gb, 0) = 0 OR coalesce(t.ssd_gb, 0) <= s.ssd_gb)
  AND (coalesce(t.hdd_gb, 0) = 0 OR coalesce(t.hdd_gb, 0) <= s.hdd_gb)
  AND (coalesce(t.nic_gbps, 0) = 0 OR coalesce(t.nic_gbps, 0) <= s.nic_gbps)
  AND (coalesce(t.gpus, 0) = 0 OR coalesce(t.gpus, 0) <= s.gpus)
  AND (coalesce(s.pods, 0) = 0 OR coalesce(t.pods, 0) <= s.pods);
