-- cluster_run: whether a run's load is a cluster whose VMs carry placement
-- constraints (vm_constraint) or whose SKUs count pod slots: > 0 if so.
-- No row when the run does not exist. $1 = run_id.
SELECT (SELECT count(*) FROM vm_constraint c WHERE c.load_id = r.load_id)
     + (SELECT count(*) FROM sku s WHERE s.load_id = r.load_id AND coalesce(s.pods, 0) > 0)
FROM run r WHERE r.run_id = $1;
