-- Packing density over time per run (Protean §6.3, Fig 16's definition),
-- one point per replay sample, for charts.
CREATE OR REPLACE VIEW run_density AS
SELECT m.run_id, r.dataset, r.policy, m.t_s / 3600 AS hour, m.value AS packing_density
FROM run_metric m JOIN run r USING (run_id)
WHERE m.metric = 'packing_density'
ORDER BY m.run_id, m.t_s;
