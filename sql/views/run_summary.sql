-- One row per run: the policy, its dataset and the load it read, its
-- parameters, VMs placed and rejected, the mean packing density (Protean
-- §6.3: allocated cores / cores of non-empty machines) and utilization over
-- the run's interval samples — the same samples for one agent and for many —
-- and the engine's decision latency per VM. For multi-agent runs, agents and
-- the p99 response time (arrival to resolution, queueing and retries
-- included, on the run's clock) are kept apart from decision latency.
-- Availability (issue 27), from the run's figures of the same names:
-- failure rates by VMs per buffer (new deployment, scale-out, heal), heal
-- requests, the capacity fulfillment rate (VMs placed / VMs requested, every
-- kind) and VM downtime; NULL for runs written before they existed.
-- Stranded cores and memory (LAVA, MLSys 2025): the means over the run's
-- samples of the share of the zone's cores (memory) free on healthy
-- machines that no VM type fits because another dimension is exhausted
-- (analysis/replay/sample.go, stranded); NULL for runs written before.
-- A run with no interval samples (an observed run, an offline plan) takes
-- its packing density from the snapshots placelab lpbound measured on it,
-- Σ allocated cores / Σ cores of its non-empty machines over them (the same
-- quantity at lpbound's instants); packing_density_source says which:
-- 'samples', 'lpbound snapshots', or NULL when neither exists.
-- cost_per_hour: a priced run's $ per hour (replay --catalog: Σ machines ×
-- their SKU's price, run metric cost_per_hour); NULL when not priced.
CREATE OR REPLACE VIEW run_summary AS
SELECT r.run_id, r.dataset, r.load_id, r.engine, r.policy, r.seed,
       json_extract_string(r.params, '$.buckets') AS buckets,
       json_extract_string(r.params, '$.cache') AS cache,
       TRY_CAST(json_extract_string(r.params, '$.agents') AS INTEGER) AS agents,
       p.vms, p.placed, p.rejected, p.evicted,
       round(100 * coalesce(m.density, m.lp_density), 2) AS packing_density_pct,
       CASE WHEN m.density IS NOT NULL THEN 'samples'
            WHEN m.lp_density IS NOT NULL THEN 'lpbound snapshots' END AS packing_density_source,
       round(100 * m.utilization, 2) AS utilization_pct,
       round(p.latency_p50_us, 1) AS latency_p50_us,
       round(p.latency_p99_us, 1) AS latency_p99_us,
       round(p.response_p99_s, 3) AS response_p99_s,
       m.new_deployment_failure_rate, m.scaleout_failure_rate,
       CAST(m.heal_requests AS BIGINT) AS heal_requests, m.heal_failure_rate, m.cfr,
       round(m.vm_downtime_hours, 2) AS vm_downtime_hours,
       round(r.seconds, 2) AS seconds,
       round(m.stranded_cores, 2) AS stranded_cores_pct,
       round(m.stranded_memory, 2) AS stranded_memory_pct,
       m.cost_per_hour
FROM run r
LEFT JOIN (
    SELECT run_id, count(*) AS vms,
           count(*) FILTER (WHERE outcome = 'placed') AS placed,
           count(*) FILTER (WHERE outcome = 'rejected') AS rejected,
           count(*) FILTER (WHERE outcome = 'evicted') AS evicted,
           quantile_disc(latency_us, 0.5) AS latency_p50_us,
           quantile_disc(latency_us, 0.99) AS latency_p99_us,
           quantile_disc(response_s, 0.99) AS response_p99_s
    FROM placement GROUP BY run_id
) p USING (run_id)
LEFT JOIN (
    SELECT run_id,
           avg(value) FILTER (WHERE metric = 'packing_density' AND value > 0) AS density,
           sum(value) FILTER (WHERE metric = 'lp_allocated_cores')
               / nullif(sum(value) FILTER (WHERE metric = 'lp_online_cores'), 0) AS lp_density,
           avg(value) FILTER (WHERE metric = 'utilization') AS utilization,
           max(value) FILTER (WHERE metric = 'new_deployment_failure_rate') AS new_deployment_failure_rate,
           max(value) FILTER (WHERE metric = 'scaleout_failure_rate') AS scaleout_failure_rate,
           max(value) FILTER (WHERE metric = 'heal_requests') AS heal_requests,
           max(value) FILTER (WHERE metric = 'heal_failure_rate') AS heal_failure_rate,
           max(value) FILTER (WHERE metric = 'cfr') AS cfr,
           max(value) FILTER (WHERE metric = 'vm_downtime_hours') AS vm_downtime_hours,
           avg(value) FILTER (WHERE metric = 'stranded_cores_pct') AS stranded_cores,
           avg(value) FILTER (WHERE metric = 'stranded_memory_pct') AS stranded_memory,
           max(value) FILTER (WHERE metric = 'cost_per_hour') AS cost_per_hour
    FROM run_metric GROUP BY run_id
) m USING (run_id)
ORDER BY r.run_id;
