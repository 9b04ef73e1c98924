-- Workload summary per dataset: VMs, tenants, span, lifetimes (completed VMs
-- only; censored ones counted apart), priority mix, cores and memory.
CREATE OR REPLACE VIEW workload_summary AS
SELECT v.dataset,
       count(*) AS vms,
       count(DISTINCT v.tenant) AS tenants,
       count(DISTINCT v.vm_type) AS vm_types,
       round(min(v.start_s) / 86400, 3) AS first_start_days,
       round(max(v.start_s) / 86400, 3) AS last_start_days,
       count(*) FILTER (WHERE v.end_s IS NULL) AS censored_vms,
       round(median(v.end_s - v.start_s) FILTER (WHERE v.end_s IS NOT NULL) / 60, 1) AS median_lifetime_min,
       round(100.0 * count(*) FILTER (WHERE v.end_s - v.start_s > 86400) / count(*), 2) AS pct_longer_than_1d,
       round(100.0 * count(*) FILTER (WHERE v.priority = 1) / count(*), 2) AS pct_low_priority,
       round(sum(t.cores), 0) AS total_cores,
       round(avg(t.cores), 2) AS mean_cores,
       round(avg(t.memory_gb), 2) AS mean_memory_gb
FROM vm v
LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
GROUP BY v.dataset
ORDER BY v.dataset;
