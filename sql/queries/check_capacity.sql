-- check_capacity: an independent check of a stored run against the data it
-- read — every machine's load in every dimension at every instant, from
-- placement + vm + vm_type_demand + machine (+ sku through the demand
-- fractions), with no help from the engine that made the placements.
--
-- A placed VM stays on its machine from its placement time t_s until the
-- earlier of its end (vm.end_s), its eviction (placement.evicted_s) and its
-- first move (vm_move: healed after a hard failure), then on each move's
-- machine until the next. Per
-- machine, arrivals (+ demand) and departures (− demand) are swept in time
-- order, departures first at equal times (a replay releases before it
-- places); the running sums are the machine's load as a fraction of its
-- capacity per dimension. Returned: every (machine, dimension) whose peak
-- exceeds 1 (cores: $2, the run's MAX_OVERSUB, 1 without oversubscription),
-- with the time of the peak, and every placement on a machine, or of a VM,
-- that the run's load lacks, or of a VM type the machine's SKU cannot host.
-- Each row names the machine and its SKU as the user does, the capacity in
-- that dimension and the load at the peak in the SKU's units (cores, GB, …:
-- peak × capacity), and the VMs on the machine then, largest in that
-- dimension first (the first 3 names and how many; for a placement the data
-- cannot account for, the VMs so placed). $1 = run_id, $2 = cores limit.
WITH r AS (
    SELECT run_id, load_id FROM run WHERE run_id = $1
),
stays AS (
    -- A VM's stays (view vm_stay): its placement, then each heal move; a
    -- stay ends at the next move (a hard failure of its machine).
    SELECT * FROM vm_stay WHERE run_id = $1
),
stay AS (
    SELECT s.machine_id, s.vm_id, s.t0,
           least(coalesce(v.end_s, 'infinity'::DOUBLE), coalesce(s.evicted_s, 'infinity'::DOUBLE),
                 coalesce(s.moved_s, 'infinity'::DOUBLE)) AS t1,
           v.vm_id IS NULL AS unknown_vm, m.machine_id IS NULL AS unknown_machine,
           coalesce(v.name, 'vm_id ' || s.vm_id) AS vm_name, m.name AS machine_name, m.sku AS machine_sku,
           d.cores IS NULL AS unsupported,
           d.cores, d.memory, d.ssd, d.hdd, d.nic, d.gpu, coalesce(d.pods, 0) AS pods
    FROM stays s
    JOIN r ON true
    LEFT JOIN vm v ON v.load_id = r.load_id AND v.vm_id = s.vm_id
    LEFT JOIN machine m ON m.load_id = r.load_id AND m.machine_id = s.machine_id
    LEFT JOIN vm_type_demand d ON d.load_id = r.load_id AND d.vm_type = v.vm_type AND d.sku = m.sku
    WHERE s.machine_id IS NOT NULL
),
ev AS (
    SELECT machine_id, t0 AS t, 1 AS k, cores, memory, ssd, hdd, nic, gpu, pods
    FROM stay WHERE t1 > t0 AND NOT unsupported
    UNION ALL
    SELECT machine_id, t1, 0, -cores, -memory, -ssd, -hdd, -nic, -gpu, -pods
    FROM stay WHERE t1 > t0 AND isfinite(t1) AND NOT unsupported
),
swept AS (
    SELECT machine_id, t,
           sum(cores) OVER w AS cores, sum(memory) OVER w AS memory, sum(ssd) OVER w AS ssd,
           sum(hdd) OVER w AS hdd, sum(nic) OVER w AS nic, sum(gpu) OVER w AS gpu,
           sum(pods) OVER w AS pods
    FROM ev
    WINDOW w AS (PARTITION BY machine_id ORDER BY t, k ROWS UNBOUNDED PRECEDING)
),
peaks AS (
    SELECT machine_id, dim, max(val) AS peak, arg_max(t, val) AS at_s
    FROM (UNPIVOT swept ON cores, memory, ssd, hdd, nic, gpu, pods INTO NAME dim VALUE val)
    GROUP BY machine_id, dim
),
over AS (
    SELECT machine_id, dim AS problem, peak, at_s
    FROM peaks
    WHERE peak > CASE WHEN dim = 'cores' THEN $2 ELSE 1 END + 1e-6
),
named AS (
    SELECT o.*, m.name AS machine, m.sku,
           CASE o.problem WHEN 'cores' THEN sk.cores WHEN 'memory' THEN sk.memory_gb WHEN 'ssd' THEN sk.ssd_gb
                          WHEN 'hdd' THEN sk.hdd_gb WHEN 'nic' THEN sk.nic_gbps WHEN 'gpu' THEN sk.gpus
                          ELSE sk.pods END AS capacity,
           (SELECT list(st.vm_name ORDER BY CASE o.problem WHEN 'cores' THEN st.cores WHEN 'memory' THEN st.memory
                                                           WHEN 'ssd' THEN st.ssd WHEN 'hdd' THEN st.hdd WHEN 'nic' THEN st.nic
                                                           WHEN 'gpu' THEN st.gpu ELSE st.pods END DESC, st.vm_id)
            FROM stay st
            WHERE st.machine_id = o.machine_id AND st.t0 <= o.at_s AND st.t1 > o.at_s AND NOT st.unsupported) AS vms
    FROM over o
    JOIN r ON true
    LEFT JOIN machine m ON m.load_id = r.load_id AND m.machine_id = o.machine_id
    LEFT JOIN sku sk ON sk.load_id = r.load_id AND sk.sku = m.sku
)
SELECT machine_id, problem, peak, at_s, machine, sku, capacity, peak * capacity AS load,
       coalesce(vms, [])[1:3] AS vms, len(coalesce(vms, [])) AS vm_count
FROM named
UNION ALL
SELECT machine_id,
       CASE WHEN unknown_vm THEN 'unknown_vm' WHEN unknown_machine THEN 'unknown_machine' ELSE 'type_unsupported' END,
       NULL, min(t0), any_value(machine_name), any_value(machine_sku), NULL, NULL,
       list(vm_name ORDER BY t0, vm_id)[1:3], count(*)
FROM stay WHERE unsupported
GROUP BY machine_id, 2
ORDER BY machine_id, problem;
