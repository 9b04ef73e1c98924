-- runs_unbounded: runs with placements but no LP-bound metrics yet (no
-- lp_lb_machines row; rows of older placelab versions do not count), the
-- offline packings placelab lpbound stores itself (engine 'offline') left
-- out, and so are runs that read a load of their dataset since replaced
-- (re-ingested: their placements no longer match the data, so they cannot
-- be bounded; placelab lpbound --run names the reason).
SELECT r.run_id FROM run r
WHERE r.status = 'done'
  AND r.engine <> 'offline'
  AND EXISTS (SELECT 1 FROM placement p WHERE p.run_id = r.run_id)
  AND NOT EXISTS (SELECT 1 FROM run_metric m WHERE m.run_id = r.run_id AND m.metric = 'lp_lb_machines')
  AND (r.load_id IS NULL OR EXISTS (SELECT 1 FROM dataset d WHERE d.name = r.dataset AND d.load_id = r.load_id))
ORDER BY r.run_id;
