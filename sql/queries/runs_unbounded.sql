-- runs_unbounded: replay runs with placements but no LP-bound metrics yet.
SELECT r.run_id FROM run r
WHERE r.status = 'done'
  AND EXISTS (SELECT 1 FROM placement p WHERE p.run_id = r.run_id)
  AND NOT EXISTS (SELECT 1 FROM run_metric m WHERE m.run_id = r.run_id AND m.metric = 'lp_bound_density')
ORDER BY r.run_id;
