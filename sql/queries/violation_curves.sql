-- violation_curves: a dataset's per-tenant demand curves (demand_curve,
-- e.g. Bitbrains loaded with placelab ingest gwa) in time order, with the
-- tenant's class — its VM size in cores, as the paper groups databases by
-- edition and size — and its capacity (the class's cap). $1 = dataset.
SELECT d.tenant, coalesce('cores=' || regexp_replace(CAST(t.cores AS VARCHAR), '\.0$', ''), v.vm_type, 'unknown') AS class, t.cores, t.memory_gb, d.t_s, d.cpu_cores, d.memory_gb, d.disk_gb
FROM demand_curve d
LEFT JOIN vm v ON v.dataset = d.dataset AND v.load_id = d.load_id AND v.name = d.tenant
LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
WHERE d.dataset = $1
ORDER BY d.tenant, d.t_s;
