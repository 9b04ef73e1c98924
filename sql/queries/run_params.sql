-- run_params: a run's engine and its stored parameters (JSON). $1 = run_id.
SELECT engine, params FROM run WHERE run_id = $1;
