-- Healable single failures over time, per replay run (issue 27; the
-- allocator slides: "limits should be expressed as #empty nodes, not
-- utilization"): at each interval sample, the percent of healthy machines
-- whose VMs could all be healed in their cluster under the healing buffer
-- if that machine failed then, and the same for racks, beside the empty
-- healthy machines and utilization of the same sample.
CREATE OR REPLACE VIEW run_healable AS
SELECT r.run_id, r.dataset, r.policy, m.t_s / 3600.0 AS hour,
       max(m.value) FILTER (WHERE m.metric = 'healable_machine_failures_pct') AS healable_machine_failures_pct,
       max(m.value) FILTER (WHERE m.metric = 'healable_rack_failures_pct') AS healable_rack_failures_pct,
       max(m.value) FILTER (WHERE m.metric = 'empty_healthy_machines') AS empty_healthy_machines,
       max(m.value) FILTER (WHERE m.metric = 'utilization') AS utilization
FROM run r JOIN run_metric m USING (run_id)
WHERE r.engine = 'replay'
  AND m.metric IN ('healable_machine_failures_pct', 'healable_rack_failures_pct', 'empty_healthy_machines', 'utilization')
GROUP BY ALL
HAVING max(m.value) FILTER (WHERE m.metric = 'healable_rack_failures_pct') IS NOT NULL
ORDER BY r.run_id, hour;
