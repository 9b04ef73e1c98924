-- check_health: an independent check that a run put no VM on a machine its
-- load marks out of service (machine.health 'unhealthy' or 'offline': a
-- machine failed in the inventory, a cordoned or not-Ready Kubernetes node)
-- — IsMachineHealthy, and IsClusterHealthy with it. An observed run is where
-- the cluster's pods were, not a decision placelab made, and is not charged;
-- a stored plan (an offline run whose params name its source_run and t_s)
-- is charged only for the VMs it put on a machine other than the one its
-- source run had them on at that instant (a pod may stay on a cordoned
-- node). $1 = run_id. Columns: problem, vm_id, machine_id, at_s, detail.
WITH r AS (
    SELECT run_id, load_id, engine,
           TRY_CAST(json_extract_string(params, '$.source_run') AS BIGINT) AS src,
           TRY_CAST(json_extract_string(params, '$.t_s') AS DOUBLE) AS t
    FROM run WHERE run_id = $1
),
st AS (
    SELECT vm_id, machine_id, t0 FROM vm_stay WHERE run_id = $1 AND machine_id IS NOT NULL
),
src AS (
    SELECT s.vm_id, s.machine_id
    FROM vm_stay s JOIN r ON s.run_id = r.src
    WHERE s.machine_id IS NOT NULL AND s.t0 <= r.t
      AND coalesce(s.evicted_s, 'infinity'::DOUBLE) > r.t AND coalesce(s.moved_s, 'infinity'::DOUBLE) > r.t
)
SELECT 'unhealthy_machine' AS problem, st.vm_id, st.machine_id, st.t0 AS at_s,
       'machine ' || m.name || ' is ' || m.health AS detail
FROM st
JOIN r ON true
JOIN machine m ON m.load_id = r.load_id AND m.machine_id = st.machine_id
WHERE m.health <> 'healthy' AND r.engine <> 'observed'
  AND NOT EXISTS (SELECT 1 FROM src WHERE src.vm_id = st.vm_id AND src.machine_id = st.machine_id)
ORDER BY st.vm_id, st.t0;
