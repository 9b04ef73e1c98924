-- check_availability: an independent check of a stored run's availability
-- rows (issue 27) against its placements, with no help from the engine:
--   placed_during_outage     a VM placed (or healed) onto a machine during
--                            one of that machine's outages [t_s, t_s + duration_s)
--                            and staying there (a stay of no length — placed
--                            and moved at the failure's instant — never ran);
--   stayed_through_failure   a VM still on a machine when that machine failed
--                            hard (its VMs must be healed elsewhere or lost);
--   move_without_failure     a heal move whose source machine had no hard
--                            outage at the move, or did not hold the VM then;
--   healed_before_failure    a healed VM placed on its new machine before the
--                            failure that moved it;
--   fault_domain_shared_rack two VMs of one tenant in different fault
--                            domains on one rack at the same time;
--   update_domain_shared     two VMs of one tenant in different update domains
--                            on machines of one machine update domain at once.
-- A VM's stays are its placement and then its moves (vm_move), each ending
-- at the next move, its end or its eviction, as in check_capacity.
-- $1 = run_id. Columns: problem, vm_id, machine_id, at_s, other_vm, detail
-- (for the spread problems: the tenant, both domains and the rack or the
-- machine update domain).
WITH r AS (
    SELECT run_id, load_id FROM run WHERE run_id = $1
),
chain AS (
    SELECT * FROM vm_stay WHERE run_id = $1
),
stay AS (
    SELECT c.vm_id, c.seq, c.machine_id, c.t0,
           least(coalesce(v.end_s, 'infinity'::DOUBLE), coalesce(c.evicted_s, 'infinity'::DOUBLE),
                 coalesce(c.moved_s, 'infinity'::DOUBLE)) AS t1,
           v.tenant, m.cluster, m.rack, m.update_domain AS machine_ud
    FROM chain c
    JOIN r ON true
    LEFT JOIN vm v ON v.load_id = r.load_id AND v.vm_id = c.vm_id
    LEFT JOIN machine m ON m.load_id = r.load_id AND m.machine_id = c.machine_id
    WHERE c.machine_id IS NOT NULL
),
o AS (
    SELECT machine_id, t_s, t_s + duration_s AS t_end, kind FROM outage WHERE run_id = $1
),
dom AS (
    SELECT s.*, d.fault_domain, d.update_domain
    FROM stay s JOIN placement_domain d ON d.run_id = $1 AND d.vm_id = s.vm_id
    WHERE s.t1 > s.t0
)
SELECT 'placed_during_outage' AS problem, s.vm_id, s.machine_id, s.t0 AS at_s, NULL::BIGINT AS other_vm, NULL::VARCHAR AS detail
FROM stay s JOIN o ON o.machine_id = s.machine_id AND o.t_s <= s.t0 AND s.t0 < o.t_end AND s.t1 > s.t0
UNION ALL
SELECT 'stayed_through_failure', s.vm_id, s.machine_id, o.t_s, NULL, NULL
FROM stay s JOIN o ON o.machine_id = s.machine_id AND o.kind = 'hard' AND s.t0 < o.t_s AND o.t_s < s.t1
UNION ALL
SELECT 'move_without_failure', c.vm_id, c.prev_machine, c.left_s, NULL, NULL
FROM chain c
JOIN vm_move mv ON mv.run_id = $1 AND mv.vm_id = c.vm_id AND mv.seq = c.seq
WHERE c.seq > 0 AND (c.prev_machine IS DISTINCT FROM mv.from_machine OR NOT EXISTS (
    SELECT 1 FROM o WHERE o.machine_id = mv.from_machine AND o.kind = 'hard' AND o.t_s <= mv.t_s AND mv.t_s < o.t_end))
UNION ALL
SELECT 'healed_before_failure', vm_id, machine_id, placed_s, NULL, NULL
FROM vm_move WHERE run_id = $1 AND placed_s < t_s
UNION ALL
SELECT 'fault_domain_shared_rack', a.vm_id, a.machine_id, greatest(a.t0, b.t0), b.vm_id,
       'tenant ' || a.tenant || ': fault domains ' || a.fault_domain || ' and ' || b.fault_domain || ' on rack ' || a.rack || ' of ' || a.cluster
FROM dom a JOIN dom b ON a.tenant = b.tenant AND a.cluster = b.cluster AND a.rack = b.rack
     AND a.vm_id < b.vm_id AND a.fault_domain <> b.fault_domain AND a.t0 < b.t1 AND b.t0 < a.t1
UNION ALL
SELECT 'update_domain_shared', a.vm_id, a.machine_id, greatest(a.t0, b.t0), b.vm_id,
       'tenant ' || a.tenant || ': update domains ' || a.update_domain || ' and ' || b.update_domain || ' on machine update domain ' || a.machine_ud
FROM dom a JOIN dom b ON a.tenant = b.tenant AND a.machine_ud = b.machine_ud
     AND a.vm_id < b.vm_id AND a.update_domain <> b.update_domain AND a.t0 < b.t1 AND b.t0 < a.t1
ORDER BY problem, at_s, vm_id;
