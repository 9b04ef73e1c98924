-- The offline yardstick for Protean's packing density (§6.3): per run, the
-- configuration-LP bound (placelab lpbound) beside the packing density the
-- policy reached at the same snapshots — mean and worst gap in density
-- points, and the machines used over the bound on machines.
CREATE OR REPLACE VIEW lpbound_gap AS
WITH s AS (
    SELECT b.run_id, b.t_s, b.value AS bound_density, g.value AS gap,
           om.value AS online_machines, bm.value AS bound_machines
    FROM run_metric b
    JOIN run_metric g ON g.run_id = b.run_id AND g.t_s = b.t_s AND g.metric = 'lp_density_gap'
    JOIN run_metric om ON om.run_id = b.run_id AND om.t_s = b.t_s AND om.metric = 'lp_online_machines'
    JOIN run_metric bm ON bm.run_id = b.run_id AND bm.t_s = b.t_s AND bm.metric = 'lp_bound_machines'
    WHERE b.metric = 'lp_bound_density'
)
SELECT s.run_id, r.dataset, r.policy, count(*) AS snapshots,
       round(100 * avg(s.bound_density - s.gap), 2) AS online_density_pct,
       round(100 * avg(s.bound_density), 2) AS bound_density_pct,
       round(100 * avg(s.gap), 2) AS mean_gap_pct,
       round(100 * max(s.gap), 2) AS worst_gap_pct,
       round(avg(s.online_machines - s.bound_machines), 1) AS mean_machines_over_bound,
       round(100 * avg((s.online_machines - s.bound_machines) / nullif(s.bound_machines, 0)), 2) AS mean_machines_over_bound_pct
FROM s JOIN run r USING (run_id)
GROUP BY s.run_id, r.dataset, r.policy
ORDER BY s.run_id;
