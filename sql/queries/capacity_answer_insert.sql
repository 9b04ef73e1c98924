-- One capacity answer (analysis.StoreCapacity); returns its id.
INSERT INTO capacity_answer (dataset, load_id, created_at, policy, machines, max_rejection, target_counts,
                             shed_rate, lp_bound_machines, monotone, answer)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING id;
