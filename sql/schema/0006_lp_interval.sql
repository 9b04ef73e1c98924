-- 0006: placelab lpbound stores an interval per snapshot — lp_lb_* (the
-- configuration LP: no packing does better) and lp_ub_* (a feasible packing
-- found offline) — instead of a single bound. The single-bound figures of
-- older versions are deleted: lp_bound_cores, lp_bound_machines,
-- lp_bound_density, lp_density_gap, and the lp_online_machines written
-- beside them (a snapshot without lp_lb_machines). The runs they bounded
-- become unbounded again (placelab lpbound --unbounded bounds them anew).
-- Experiment figures (runs of engine 'experiment', e.g.
-- lp_bound_density_pct) are results under their own names and stay.
DELETE FROM run_metric
WHERE metric IN ('lp_bound_cores', 'lp_bound_machines', 'lp_bound_density', 'lp_density_gap');
DELETE FROM run_metric
WHERE metric = 'lp_online_machines'
  AND NOT EXISTS (SELECT 1 FROM run_metric n
                  WHERE n.run_id = run_metric.run_id AND n.t_s = run_metric.t_s AND n.metric = 'lp_lb_machines');
