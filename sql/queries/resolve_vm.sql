-- resolve_vm: the VMs of a run's load named $2 (vm.name: a pod's
-- namespace/name) — or, when none is, the VM whose vm_id is $2 written in
-- decimal — with how many share the name. $1 = run_id.
WITH r AS (SELECT load_id FROM run WHERE run_id = $1),
named AS (SELECT v.vm_id FROM vm v JOIN r USING (load_id) WHERE v.name = $2),
byid AS (SELECT v.vm_id FROM vm v JOIN r USING (load_id) WHERE CAST(v.vm_id AS VARCHAR) = $2)
SELECT min(vm_id), count(*) FROM named HAVING count(*) > 0
UNION ALL
SELECT vm_id, 1 FROM byid WHERE NOT EXISTS (SELECT 1 FROM named);
