-- Packing density over time per run beside its configuration-LP bound (the
-- densest any allocator could pack the same VMs), one row per snapshot
-- bounded by placelab lpbound.
CREATE OR REPLACE VIEW lpbound_density AS
SELECT b.run_id, r.dataset, r.policy, b.t_s / 3600 AS hour,
       round(100 * (b.value - g.value), 3) AS online_density_pct,
       round(100 * b.value, 3) AS bound_density_pct
FROM run_metric b
JOIN run_metric g ON g.run_id = b.run_id AND g.t_s = b.t_s AND g.metric = 'lp_density_gap'
JOIN run r ON r.run_id = b.run_id
WHERE b.metric = 'lp_bound_density'
ORDER BY b.run_id, b.t_s;
