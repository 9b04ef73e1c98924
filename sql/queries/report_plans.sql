-- report_plans: every stored plan, for the report's planner section — the
-- placement after placelab whatif migrate (policy migrate-plan) or
-- placelab whatif drain (drain-plan), stored as an offline run whose params
-- name the run it was planned on (source_run) and the instant (t_s) — with
-- the source run's policy, the move budget (migrate's budget, drain's
-- max_moves; 0: none) and the figures the command printed (moves, and the
-- machines it said it frees). $1 = dataset ('' = every dataset).
SELECT r.run_id AS plan_run, r.policy AS plan, r.dataset, r.load_id,
       CAST(json_extract_string(r.params, '$.source_run') AS BIGINT) AS source_run,
       s.policy AS source_policy, s.engine AS source_engine,
       CAST(json_extract_string(r.params, '$.t_s') AS DOUBLE) AS t_s,
       coalesce(CAST(json_extract_string(r.params, '$.budget') AS BIGINT),
                CAST(json_extract_string(r.params, '$.max_moves') AS BIGINT)) AS budget,
       CAST(json_extract_string(r.params, '$.moves') AS BIGINT) AS stated_moves,
       coalesce(CAST(json_extract_string(r.params, '$.nodes_removed') AS BIGINT),
                CAST(json_extract_string(r.params, '$.machines_freed') AS BIGINT)) AS stated_removed
FROM run r
LEFT JOIN run s ON s.run_id = CAST(json_extract_string(r.params, '$.source_run') AS BIGINT)
WHERE r.engine = 'offline' AND r.policy IN ('migrate-plan', 'drain-plan')
  AND json_extract_string(r.params, '$.source_run') IS NOT NULL
  AND ($1 = '' OR r.dataset = $1)
ORDER BY r.run_id;
