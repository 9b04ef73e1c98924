-- report_capacity_answers: every stored answer of placelab capacity
-- (table capacity_answer; answer is the command's JSON report) as a planner
-- reads it: the dataset and policy, the machines of the answer beside the
-- zone's, the target (the share of VMs that may go unserved), the share the
-- answer sheds (shed_rate: rejected, or evicted and never re-placed; an
-- answer stored before shed_rate existed gives its rejection_rate), and the
-- lower bounds at the peak: no packing holds the peak's VMs on fewer
-- machines of the zone's SKUs in any numbers (lower_bound: lp_bound_machines,
-- rounded up), nor on fewer of its SKU mix (mix_lower_bound: lp_mix_machines;
-- NULL when no LP certificate was found). An answer of placelab capacity
-- --catalog gives its fleet's cost_per_hour ($ per hour: Σ nodes × price)
-- and the plan's at the peak it started from (plan_cost_per_hour); NULL for
-- a search of the zone's machines. Shares in percent (target_pct,
-- shed_pct). $1 = dataset ('' = every
-- dataset).
WITH a AS (
    SELECT id, dataset, created_at, CAST(answer AS JSON) AS j FROM capacity_answer
    WHERE $1 = '' OR dataset = $1
)
SELECT id, dataset, created_at,
       json_extract_string(j, '$.policy') AS policy,
       CAST(json_extract_string(j, '$.machines') AS BIGINT) AS machines,
       CAST(json_extract_string(j, '$.zone_machines') AS BIGINT) AS zone_machines,
       round(100 * CAST(json_extract_string(j, '$.max_rejection') AS DOUBLE), 4) AS target_pct,
       json_extract_string(j, '$.target_counts') AS target_counts,
       round(100 * coalesce(CAST(json_extract_string(j, '$.shed_rate') AS DOUBLE),
                            CAST(json_extract_string(j, '$.rejection_rate') AS DOUBLE)), 4) AS shed_pct,
       CAST(json_extract_string(j, '$.shed_vms') AS BIGINT) AS shed_vms,
       CAST(json_extract_string(j, '$.vms') AS BIGINT) AS vms,
       ceil(CAST(json_extract_string(j, '$.lp_bound_machines') AS DOUBLE))::BIGINT AS lower_bound,
       nullif(CAST(json_extract_string(j, '$.lp_mix_machines') AS BIGINT), 0) AS mix_lower_bound,
       CAST(json_extract_string(j, '$.cost_per_hour') AS DOUBLE) AS cost_per_hour,
       CAST(json_extract_string(j, '$.catalog.plan_cost_per_hour') AS DOUBLE) AS plan_cost_per_hour
FROM a
ORDER BY id;
