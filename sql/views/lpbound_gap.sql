-- How far from optimal packing, per run (placelab lpbound): over the run's
-- bounded snapshots that hold VMs (view lpbound_density), the policy's
-- machines and packing density beside the proven interval for the same VMs
-- — lb (no packing uses fewer machines / is denser than ub density) and ub
-- (a feasible packing found offline) — the machines the policy could have
-- emptied (online − ub), and how tight the interval is: 100 (ub − lb) / lb
-- on machines, mean and worst. The densities are weighted by allocated
-- cores (Σ allocated / Σ the cores holding them), so a snapshot of one VM
-- weighs what its VM weighs; the machine counts are plain means.
-- converged_snapshots counts the snapshots
-- whose LPs were solved to optimality; the others' bounds are valid but
-- weaker.
CREATE OR REPLACE VIEW lpbound_gap AS
SELECT run_id, dataset, policy,
       count(*) AS snapshots,
       count(*) FILTER (WHERE converged) AS converged_snapshots,
       round(100 * sum(allocated_cores) / nullif(sum(online_cores), 0), 2) AS mean_online_density_pct,
       round(100 * sum(allocated_cores) / nullif(sum(ub_cores), 0), 2) AS mean_lb_density_pct,
       round(100 * sum(allocated_cores) / nullif(sum(lb_cores), 0), 2) AS mean_ub_density_pct,
       round(avg(online_machines), 1) AS mean_online_machines,
       round(avg(lb_machines), 1) AS mean_lb_machines,
       round(avg(ub_machines), 1) AS mean_ub_machines,
       round(avg(emptiable_machines), 1) AS mean_emptiable_machines,
       round(avg(interval_gap_pct), 2) AS mean_interval_gap_pct,
       round(max(interval_gap_pct), 2) AS max_interval_gap_pct
FROM lpbound_density d
JOIN (SELECT run_id, t_s / 3600 AS hour,
             max(value) FILTER (WHERE metric = 'lp_allocated_cores') AS allocated_cores,
             max(value) FILTER (WHERE metric = 'lp_online_cores') AS online_cores,
             max(value) FILTER (WHERE metric = 'lp_lb_cores') AS lb_cores,
             max(value) FILTER (WHERE metric = 'lp_ub_cores') AS ub_cores
      FROM run_metric WHERE metric IN ('lp_allocated_cores', 'lp_online_cores', 'lp_lb_cores', 'lp_ub_cores')
      GROUP BY run_id, t_s) c USING (run_id, hour)
WHERE vms > 0
GROUP BY run_id, dataset, policy
ORDER BY run_id;
