-- Resource Central Fig 6: VMs and core-hours by workload class (potentially
-- interactive = periodic at the diurnal scale; delay-insensitive; unknown =
-- too short a series to tell), from the workload_class table that
-- `placelab classify` fills.
CREATE OR REPLACE VIEW core_hours_by_class AS
WITH te AS (
    SELECT dataset, max(greatest(start_s, coalesce(end_s, start_s))) AS trace_end FROM vm GROUP BY dataset
)
SELECT w.dataset, w.class, count(*) AS vms,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY w.dataset), 2) AS pct_vms,
       round(sum(coalesce(t.cores, 1) * greatest(0, least(coalesce(v.end_s, te.trace_end), te.trace_end) - greatest(v.start_s, 0)) / 3600), 1) AS core_hours,
       round(100.0 * sum(coalesce(t.cores, 1) * greatest(0, least(coalesce(v.end_s, te.trace_end), te.trace_end) - greatest(v.start_s, 0)))
             / nullif(sum(sum(coalesce(t.cores, 1) * greatest(0, least(coalesce(v.end_s, te.trace_end), te.trace_end) - greatest(v.start_s, 0)))) OVER (PARTITION BY w.dataset), 0), 2) AS pct_core_hours
FROM workload_class w
JOIN vm v ON v.dataset = w.dataset AND v.vm_id = w.vm_id
JOIN te ON te.dataset = w.dataset
LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
GROUP BY w.dataset, w.class
ORDER BY w.dataset, w.class;
