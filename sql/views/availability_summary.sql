-- One row per replay run that modelled availability (issue 27): failures
-- drawn from a failure model or read from a failure file, maintenance, or
-- fault/update domains — beside it the same figures of every other replay
-- of the same dataset (failures none), so a denser run is read against what
-- it gave up. The figures are the run's, under their summary names:
-- failure rates by VMs per buffer (new deployment, scale-out, heal), heal
-- requests, the capacity fulfillment rate (VMs placed / VMs requested,
-- every kind), VM downtime, outages by kind, and the means of the interval
-- samples of healable single-machine and single-rack failures and
-- utilization. The allocator slides' buffers and §6.3's CFR.
CREATE OR REPLACE VIEW availability_summary AS
WITH f AS (
    SELECT run_id,
           max(value) FILTER (WHERE metric = 'new_deployment_failure_rate') AS new_deployment_failure_rate,
           max(value) FILTER (WHERE metric = 'scaleout_failure_rate') AS scaleout_failure_rate,
           max(value) FILTER (WHERE metric = 'heal_requests') AS heal_requests,
           max(value) FILTER (WHERE metric = 'heal_vms') AS heal_vms,
           max(value) FILTER (WHERE metric = 'heal_failure_rate') AS heal_failure_rate,
           max(value) FILTER (WHERE metric = 'cfr') AS cfr,
           max(value) FILTER (WHERE metric = 'vm_downtime_hours') AS vm_downtime_hours,
           max(value) FILTER (WHERE metric = 'machine_failures') AS machine_failures,
           max(value) FILTER (WHERE metric = 'rack_failures') AS rack_failures,
           max(value) FILTER (WHERE metric = 'reboots') AS reboots,
           max(value) FILTER (WHERE metric = 'maintenance_max_down_share') AS maintenance_max_down_share,
           avg(value) FILTER (WHERE metric = 'healable_machine_failures_pct') AS healable_machine_failures_pct,
           avg(value) FILTER (WHERE metric = 'healable_rack_failures_pct') AS healable_rack_failures_pct,
           avg(value) FILTER (WHERE metric = 'utilization') AS utilization,
           avg(value) FILTER (WHERE metric = 'packing_density' AND value > 0) AS packing_density
    FROM run_metric GROUP BY run_id
)
SELECT r.run_id, r.dataset, r.policy, r.engine,
       CASE WHEN json_extract(r.params, '$.failures') IS NULL THEN 'none' ELSE 'model' END AS failures,
       json_extract_string(r.params, '$.failure_file') AS failure_file,
       json_extract(r.params, '$.maintenance') IS NOT NULL AS maintenance,
       coalesce(TRY_CAST(json_extract_string(r.params, '$.fault_domains') AS INTEGER), 0) AS fault_domains,
       coalesce(TRY_CAST(json_extract_string(r.params, '$.update_domains') AS INTEGER), 0) AS update_domains,
       json_extract_string(r.params, '$.buffers') AS buffers,
       round(100 * f.packing_density, 2) AS packing_density_pct,
       round(100 * f.utilization, 2) AS utilization_pct,
       f.new_deployment_failure_rate, f.scaleout_failure_rate,
       CAST(f.heal_requests AS BIGINT) AS heal_requests, CAST(f.heal_vms AS BIGINT) AS heal_vms,
       f.heal_failure_rate, f.cfr, round(f.vm_downtime_hours, 2) AS vm_downtime_hours,
       CAST(f.machine_failures AS BIGINT) AS machine_failures, CAST(f.rack_failures AS BIGINT) AS rack_failures,
       CAST(f.reboots AS BIGINT) AS reboots, f.maintenance_max_down_share,
       round(f.healable_machine_failures_pct, 2) AS healable_machine_failures_pct,
       round(f.healable_rack_failures_pct, 2) AS healable_rack_failures_pct
FROM run r JOIN f USING (run_id)
WHERE r.engine = 'replay' AND f.cfr IS NOT NULL
ORDER BY r.dataset, r.run_id;
