-- runs_unbounded: runs with placements but no LP-bound metrics yet (no
-- lp_lb_machines row; rows of older placelab versions do not count), the
-- offline packings placelab lpbound stores itself (engine 'offline') left
-- out.
SELECT r.run_id FROM run r
WHERE r.status = 'done'
  AND r.engine <> 'offline'
  AND EXISTS (SELECT 1 FROM placement p WHERE p.run_id = r.run_id)
  AND NOT EXISTS (SELECT 1 FROM run_metric m WHERE m.run_id = r.run_id AND m.metric = 'lp_lb_machines')
ORDER BY r.run_id;
