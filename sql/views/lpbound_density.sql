-- How far from optimal packing, per run and snapshot (placelab lpbound): the
-- machines and packing density (allocated cores / cores of the machines
-- used, Protean §6.3) of the run's policy beside the proven interval for
-- the same VMs on the zone's machines.
--
--   lb_machines     ⌈LP⌉ of the configuration LP: no packing uses fewer machines
--   ub_machines     machines of a feasible packing found offline
--   emptiable_machines  online − ub: machines the policy could have emptied
--   lb_density_pct  allocated / UB on cores: a packing this dense exists
--   ub_density_pct  allocated / LB on cores: no packing is denser
--   interval_gap_pct  100 (ub − lb) / lb on machines: how tight the interval is
--   converged       both LPs solved to optimality (else the bounds are still
--                   valid, only weaker)
--
-- One row per snapshot stored under the lp_* names of placelab lpbound;
-- rows of older placelab versions (lp_bound_*, lp_density_gap) are not read.
CREATE OR REPLACE VIEW lpbound_density AS
WITH s AS (
    SELECT run_id, t_s,
           max(value) FILTER (WHERE metric = 'lp_vms') AS vms,
           max(value) FILTER (WHERE metric = 'lp_online_machines') AS online_machines,
           max(value) FILTER (WHERE metric = 'lp_lb_machines') AS lb_machines,
           max(value) FILTER (WHERE metric = 'lp_ub_machines') AS ub_machines,
           max(value) FILTER (WHERE metric = 'lp_emptiable_machines') AS emptiable_machines,
           max(value) FILTER (WHERE metric = 'lp_online_density') AS online_density,
           max(value) FILTER (WHERE metric = 'lp_lb_density') AS lb_density,
           max(value) FILTER (WHERE metric = 'lp_ub_density') AS ub_density,
           max(value) FILTER (WHERE metric = 'lp_converged') AS converged
    FROM run_metric
    WHERE metric IN ('lp_vms', 'lp_online_machines', 'lp_lb_machines', 'lp_ub_machines', 'lp_emptiable_machines',
                     'lp_online_density', 'lp_lb_density', 'lp_ub_density', 'lp_converged')
    GROUP BY run_id, t_s
)
SELECT s.run_id, r.dataset, r.policy, s.t_s / 3600 AS hour,
       CAST(s.vms AS BIGINT) AS vms,
       CAST(s.online_machines AS BIGINT) AS online_machines,
       CAST(s.lb_machines AS BIGINT) AS lb_machines,
       CAST(s.ub_machines AS BIGINT) AS ub_machines,
       CAST(s.emptiable_machines AS BIGINT) AS emptiable_machines,
       round(100 * s.online_density, 3) AS online_density_pct,
       round(100 * s.lb_density, 3) AS lb_density_pct,
       round(100 * s.ub_density, 3) AS ub_density_pct,
       round(100 * (s.ub_machines - s.lb_machines) / nullif(s.lb_machines, 0), 3) AS interval_gap_pct,
       s.converged = 1 AS converged
FROM s JOIN run r USING (run_id)
WHERE s.lb_machines IS NOT NULL
ORDER BY s.run_id, s.t_s;
