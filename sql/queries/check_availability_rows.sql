-- check_availability_rows: how many outage, vm_move and placement_domain
-- rows run $1 stored (what check_availability has to check).
SELECT (SELECT count(*) FROM outage WHERE run_id = $1),
       (SELECT count(*) FROM vm_move WHERE run_id = $1),
       (SELECT count(*) FROM placement_domain WHERE run_id = $1);
