-- run_head: a run's dataset, policy and engine. $1 = run_id.
SELECT dataset, coalesce(policy, ''), engine FROM run WHERE run_id = $1;
