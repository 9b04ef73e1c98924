-- fleet_plans: every stored fleet plan (placelab plan --catalog; engine
-- offline, policy fleet-plan), one row per plan run, from its run_metric
-- rows and its params: dataset is the source dataset the plan was made
-- for (its params' source_dataset; report --dataset D lists D's plans),
-- plan_dataset the dataset the plan is stored as; catalog the catalog
-- file's name, price_column, reserved (none, eks, gke) and types_filter
-- as asked; cost_per_hour the plan, lb_cost_per_hour the bound no fleet
-- goes below, gap_pct 100 × (cost − lb) / lb, nodes the plan's nodes;
-- beside them, on the same pods, the Karpenter-style fleet, the best
-- single type's (NULL where no one type holds every pod) and the current
-- fleet's (NULL for a trace's peak), all in $ per hour.
CREATE OR REPLACE VIEW fleet_plans AS
WITH m AS (
    SELECT run_id,
           max(value) FILTER (WHERE metric = 'plan_cost_per_hour') AS cost_per_hour,
           max(value) FILTER (WHERE metric = 'plan_lb_cost_per_hour') AS lb_cost_per_hour,
           max(value) FILTER (WHERE metric = 'plan_gap_pct') AS gap_pct,
           max(value) FILTER (WHERE metric = 'plan_nodes') AS nodes,
           max(value) FILTER (WHERE metric = 'plan_karpenter_cost_per_hour') AS karpenter_cost_per_hour,
           max(value) FILTER (WHERE metric = 'plan_best_single_cost_per_hour') AS best_single_cost_per_hour,
           max(value) FILTER (WHERE metric = 'plan_current_cost_per_hour') AS current_cost_per_hour
    FROM run_metric
    WHERE metric LIKE 'plan\_%' ESCAPE '\'
    GROUP BY run_id
)
SELECT r.run_id,
       coalesce(json_extract_string(r.params, '$.source_dataset'), r.dataset) AS dataset,
       r.dataset AS plan_dataset,
       regexp_extract(json_extract_string(r.params, '$.catalog'), '[^/]*$') AS catalog,
       json_extract_string(r.params, '$.price_column') AS price_column,
       json_extract_string(r.params, '$.reserved') AS reserved,
       nullif(json_extract_string(r.params, '$.types_filter'), '') AS types_filter,
       round(m.cost_per_hour, 4) AS cost_per_hour,
       round(m.lb_cost_per_hour, 4) AS lb_cost_per_hour,
       round(m.gap_pct, 2) AS gap_pct,
       m.nodes::BIGINT AS nodes,
       round(m.karpenter_cost_per_hour, 4) AS karpenter_cost_per_hour,
       round(nullif(m.best_single_cost_per_hour, 0), 4) AS best_single_cost_per_hour,
       round(m.current_cost_per_hour, 4) AS current_cost_per_hour
FROM run r JOIN m USING (run_id)
WHERE r.engine = 'offline' AND r.policy = 'fleet-plan'
ORDER BY r.run_id;
