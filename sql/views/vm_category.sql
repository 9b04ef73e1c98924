-- Resource Central §3.1: VM category split (e.g. Interactive, Delay-insensitive,
-- Unknown) by VMs and by core-hours. Core-hours count each VM's cores over its
-- life inside the trace window [0, trace end]; VMs still alive at the end count
-- until the end.
CREATE OR REPLACE VIEW vm_category AS
WITH te AS (
    SELECT dataset, max(greatest(start_s, coalesce(end_s, start_s))) AS trace_end FROM vm GROUP BY dataset
), v AS (
    SELECT v.dataset, coalesce(v.category, 'Unknown') AS category,
           t.cores * greatest(0, least(coalesce(v.end_s, te.trace_end), te.trace_end) - greatest(v.start_s, 0)) / 3600 AS core_hours
    FROM vm v
    JOIN te USING (dataset)
    LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
)
SELECT dataset, category, count(*) AS vms,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset), 2) AS pct_vms,
       round(sum(core_hours), 1) AS core_hours,
       round(100.0 * sum(core_hours) / nullif(sum(sum(core_hours)) OVER (PARTITION BY dataset), 0), 2) AS pct_core_hours
FROM v
GROUP BY dataset, category
ORDER BY dataset, vms DESC, category;
