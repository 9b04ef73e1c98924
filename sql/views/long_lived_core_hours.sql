-- Resource Central Fig 5 (and §3.6): how much of the VMs and of the core-hours
-- (inside the trace window) belongs to VMs living longer than 1, 3 and 7 days.
-- Censored VMs count with their observed lifetime so far.
CREATE OR REPLACE VIEW long_lived_core_hours AS
WITH te AS (
    SELECT dataset, max(greatest(start_s, coalesce(end_s, start_s))) AS trace_end FROM vm GROUP BY dataset
), v AS (
    SELECT v.dataset, coalesce(v.end_s, te.trace_end) - v.start_s AS life,
           t.cores * greatest(0, least(coalesce(v.end_s, te.trace_end), te.trace_end) - greatest(v.start_s, 0)) / 3600 AS core_hours
    FROM vm v JOIN te USING (dataset)
    JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
), th(label, seconds) AS (VALUES ('>1d', 86400), ('>3d', 259200), ('>7d', 604800))
SELECT v.dataset, th.label AS lifetime,
       round(100.0 * count(*) FILTER (WHERE v.life > th.seconds) / count(*), 3) AS pct_vms,
       round(100.0 * sum(v.core_hours) FILTER (WHERE v.life > th.seconds) / nullif(sum(v.core_hours), 0), 3) AS pct_core_hours
FROM v, th
GROUP BY v.dataset, th.label, th.seconds
ORDER BY v.dataset, th.seconds;
