-- One row per loaded dataset: what it holds.
CREATE OR REPLACE VIEW dataset_summary AS
SELECT d.name AS dataset, d.format, d.loaded_at, d.rows_read, d.rows_loaded, d.rows_rejected,
       (SELECT count(*) FROM machine m WHERE m.load_id = d.load_id) AS machines,
       (SELECT count(*) FROM sku s WHERE s.load_id = d.load_id) AS skus,
       (SELECT count(*) FROM vm v WHERE v.load_id = d.load_id) AS vms,
       (SELECT count(*) FROM vm_type t WHERE t.load_id = d.load_id) AS vm_types,
       (SELECT count(DISTINCT tenant) FROM vm v WHERE v.load_id = d.load_id) AS tenants,
       (SELECT count(*) FROM cpu_reading c WHERE c.load_id = d.load_id) AS cpu_readings,
       (SELECT count(*) FROM demand_curve c WHERE c.load_id = d.load_id) AS demand_points,
       (SELECT count(*) FROM app_score a WHERE a.load_id = d.load_id) AS app_scores,
       (SELECT count(*) FROM bpp_instance b WHERE b.load_id = d.load_id) AS bpp_instances,
       d.source
FROM dataset d
ORDER BY d.name;
