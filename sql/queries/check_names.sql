-- check_names: the user's names of the VMs and machines that placelab check
-- reports by id (availability, health and constraint violations), from the
-- load the run pinned. Columns: kind ('vm' or 'machine'), id, name.
-- $1 = load_id, $2 = vm_ids, $3 = machine_ids.
SELECT 'vm' AS kind, v.vm_id AS id, v.name
FROM vm v JOIN (SELECT DISTINCT unnest($2::BIGINT[]) AS id) q ON q.id = v.vm_id
WHERE v.load_id = $1
UNION ALL
SELECT 'machine', m.machine_id, m.name
FROM machine m JOIN (SELECT DISTINCT unnest($3::BIGINT[]) AS id) q ON q.id = m.machine_id
WHERE m.load_id = $1;
