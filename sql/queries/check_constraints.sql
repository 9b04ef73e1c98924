-- check_constraints: an independent check of a stored run against the
-- placement constraints of its load (vm_constraint, node_set_member; a
-- Kubernetes ingest), with no help from the engine:
--   affinity       a VM on a machine outside its affinity set (node
--                  selector, required node affinity, DaemonSet/static pin,
--                  a persistent volume's zone), named with its description;
--   taint          a VM on a machine outside its tolerated set;
--   anti_affinity  more VMs of a tenant on one machine at once than a VM's
--                  max_per_machine (checked at each stay's start, where the
--                  count can grow);
--   topology_spread a VM with max_skew whose cluster, once every VM placed
--                  at that instant is counted, holds more than max_skew VMs
--                  of its tenant beyond the fewest of any cluster holding a
--                  machine of its affinity set (Kubernetes' DoNotSchedule
--                  rule at the pod's placement; departures at the same
--                  instant come first, as in a replay).
-- A VM's stays are those of view vm_stay, each ending at the next move, its
-- end or its eviction, as in check_capacity. $1 = run_id. Columns: problem,
-- vm_id, machine_id, at_s, detail.
WITH r AS (
    SELECT run_id, load_id FROM run WHERE run_id = $1
),
st AS (
    SELECT s.vm_id, s.machine_id, s.t0,
           least(coalesce(v.end_s, 'infinity'::DOUBLE), coalesce(s.evicted_s, 'infinity'::DOUBLE),
                 coalesce(s.moved_s, 'infinity'::DOUBLE)) AS t1,
           v.tenant, c.affinity_set, c.tolerated_set, c.max_per_machine, c.max_skew, m.cluster
    FROM vm_stay s
    JOIN r ON true
    JOIN vm v ON v.load_id = r.load_id AND v.vm_id = s.vm_id
    JOIN machine m ON m.load_id = r.load_id AND m.machine_id = s.machine_id
    LEFT JOIN vm_constraint c ON c.load_id = r.load_id AND c.vm_id = s.vm_id
    WHERE s.run_id = $1 AND s.machine_id IS NOT NULL
),
live AS (
    SELECT * FROM st WHERE t1 > t0
),
member AS (
    SELECT nm.set_id, nm.machine_id FROM node_set_member nm JOIN r ON nm.load_id = r.load_id
),
affinity AS (
    SELECT 'affinity' AS problem, l.vm_id, l.machine_id, l.t0 AS at_s,
           'outside node set ' || l.affinity_set || ' (' || coalesce((SELECT ns.description FROM node_set ns JOIN r ON ns.load_id = r.load_id
                                                            WHERE ns.set_id = l.affinity_set), '?') || ')' AS detail
    FROM live l
    WHERE l.affinity_set IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM member x WHERE x.set_id = l.affinity_set AND x.machine_id = l.machine_id)
),
taint AS (
    SELECT 'taint', l.vm_id, l.machine_id, l.t0,
           'outside node set ' || l.tolerated_set || ' (' || coalesce((SELECT ns.description FROM node_set ns JOIN r ON ns.load_id = r.load_id
                                                             WHERE ns.set_id = l.tolerated_set), '?') || ')' 
    FROM live l
    WHERE l.tolerated_set IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM member x WHERE x.set_id = l.tolerated_set AND x.machine_id = l.machine_id)
),
anti_aff AS (
    SELECT 'anti_affinity', a.vm_id, a.machine_id, a.t0,
           count(*) || ' VMs of ' || a.tenant || ' on the machine, at most ' || a.max_per_machine
    FROM live a
    JOIN live b ON b.machine_id = a.machine_id AND b.tenant = a.tenant AND b.t0 <= a.t0 AND b.t1 > a.t0
    WHERE a.max_per_machine IS NOT NULL
    GROUP BY a.vm_id, a.machine_id, a.t0, a.tenant, a.max_per_machine
    HAVING count(*) > a.max_per_machine
),
skewed AS (
    SELECT * FROM live WHERE max_skew IS NOT NULL
),
eligible AS (
    -- the clusters each skewed VM's affinity allows (every cluster of the
    -- load when it has no affinity set)
    SELECT s.vm_id, s.t0, m.cluster
    FROM skewed s JOIN r ON true
    JOIN machine m ON m.load_id = r.load_id
    WHERE s.affinity_set IS NULL
       OR EXISTS (SELECT 1 FROM member x WHERE x.set_id = s.affinity_set AND x.machine_id = m.machine_id)
    GROUP BY s.vm_id, s.t0, m.cluster
),
counts AS (
    SELECT e.vm_id, e.t0, e.cluster, count(b.vm_id) AS n
    FROM eligible e
    JOIN skewed s ON s.vm_id = e.vm_id AND s.t0 = e.t0
    LEFT JOIN live b ON b.tenant = s.tenant AND b.cluster = e.cluster AND b.t0 <= s.t0 AND b.t1 > s.t0
    GROUP BY e.vm_id, e.t0, e.cluster
),
mins AS (
    SELECT vm_id, t0, min(n) AS lo FROM counts GROUP BY vm_id, t0
),
own AS (
    SELECT s.vm_id, s.machine_id, s.t0, s.tenant, s.cluster, s.max_skew, count(b.vm_id) AS n
    FROM skewed s
    JOIN live b ON b.tenant = s.tenant AND b.cluster = s.cluster AND b.t0 <= s.t0 AND b.t1 > s.t0
    GROUP BY ALL
),
spread AS (
    SELECT 'topology_spread', o.vm_id, o.machine_id, o.t0,
           o.n || ' VMs of ' || o.tenant || ' in ' || o.cluster || ', fewest ' || m.lo || ', max skew ' || o.max_skew
    FROM own o JOIN mins m ON m.vm_id = o.vm_id AND m.t0 = o.t0
    WHERE o.n - m.lo > o.max_skew
)
SELECT * FROM affinity
UNION ALL SELECT * FROM taint
UNION ALL SELECT * FROM anti_aff
UNION ALL SELECT * FROM spread
ORDER BY 1, 2, 4;
