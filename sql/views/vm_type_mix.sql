-- VM type mix per dataset: share of VM requests per type (the shape of Protean Table 2,
-- without its "< 2% excluded" cut, which the report applies).
CREATE OR REPLACE VIEW vm_type_mix AS
SELECT v.dataset, v.vm_type, any_value(t.family) AS family,
       any_value(t.cores) AS cores, any_value(t.memory_gb) AS memory_gb,
       count(*) AS vms,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY v.dataset), 2) AS pct
FROM vm v
LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
GROUP BY v.dataset, v.vm_type
ORDER BY v.dataset, vms DESC, v.vm_type;
