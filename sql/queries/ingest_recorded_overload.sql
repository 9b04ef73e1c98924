-- ingest_recorded_overload: the machines that the VMs a source recorded on
-- them (its observed run) fill beyond their SKU's capacity at some instant,
-- in the user's units — vm_type sizes summed against sku capacities, not
-- demand fractions, so a VM whose type the SKU cannot host counts too. A
-- recorded VM is on its machine from its placement until its end (or the
-- end of a stay, view vm_stay); per machine and dimension (cores,
-- memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus) arrivals and departures are
-- swept in time order, departures first at equal times, as in
-- check_capacity. Returned per (machine, dimension) over capacity, in
-- machine order: machine_id, name, sku, dim, capacity, peak (the largest
-- sum), at_s (the first instant of the peak) and the VMs on the machine
-- then, largest in that dimension first. Read by the workload file's
-- ingest for its machine-over-capacity warning. $1 = load_id, $2 = run_id.
WITH stay AS (
    SELECT s.machine_id, s.vm_id, s.t0,
           least(coalesce(v.end_s, 'infinity'::DOUBLE), coalesce(s.evicted_s, 'infinity'::DOUBLE),
                 coalesce(s.moved_s, 'infinity'::DOUBLE)) AS t1,
           coalesce(t.cores, 0) AS cores, coalesce(t.memory_gb, 0) AS memory_gb,
           coalesce(t.ssd_gb, 0) AS ssd_gb, coalesce(t.hdd_gb, 0) AS hdd_gb,
           coalesce(t.nic_gbps, 0) AS nic_gbps, coalesce(t.gpus, 0) AS gpus
    FROM vm_stay s
    JOIN vm v ON v.load_id = $1 AND v.vm_id = s.vm_id
    JOIN vm_type t ON t.load_id = $1 AND t.vm_type = v.vm_type
    WHERE s.run_id = $2 AND s.machine_id IS NOT NULL
),
ev AS (
    SELECT machine_id, t0 AS t, 1 AS k, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus
    FROM stay WHERE t1 > t0
    UNION ALL
    SELECT machine_id, t1, 0, -cores, -memory_gb, -ssd_gb, -hdd_gb, -nic_gbps, -gpus
    FROM stay WHERE t1 > t0 AND isfinite(t1)
),
swept AS (
    SELECT machine_id, t,
           sum(cores) OVER w AS cores, sum(memory_gb) OVER w AS memory_gb, sum(ssd_gb) OVER w AS ssd_gb,
           sum(hdd_gb) OVER w AS hdd_gb, sum(nic_gbps) OVER w AS nic_gbps, sum(gpus) OVER w AS gpus
    FROM ev
    WINDOW w AS (PARTITION BY machine_id ORDER BY t, k ROWS UNBOUNDED PRECEDING)
),
peak AS (
    SELECT machine_id, dim, val AS peak, t AS at_s
    FROM (UNPIVOT swept ON cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus INTO NAME dim VALUE val)
    QUALIFY row_number() OVER (PARTITION BY machine_id, dim ORDER BY val DESC, t) = 1
),
over AS (
    SELECT p.machine_id, m.name, m.sku, p.dim,
           CASE p.dim WHEN 'cores' THEN s.cores WHEN 'memory_gb' THEN s.memory_gb WHEN 'ssd_gb' THEN s.ssd_gb
                      WHEN 'hdd_gb' THEN s.hdd_gb WHEN 'nic_gbps' THEN s.nic_gbps ELSE s.gpus END AS capacity,
           p.peak, p.at_s
    FROM peak p
    JOIN machine m ON m.load_id = $1 AND m.machine_id = p.machine_id
    JOIN sku s ON s.load_id = $1 AND s.sku = m.sku
)
SELECT o.machine_id, o.name, o.sku, o.dim, o.capacity, o.peak, o.at_s,
       list(st.vm_id ORDER BY CASE o.dim WHEN 'cores' THEN st.cores WHEN 'memory_gb' THEN st.memory_gb
                                         WHEN 'ssd_gb' THEN st.ssd_gb WHEN 'hdd_gb' THEN st.hdd_gb
                                         WHEN 'nic_gbps' THEN st.nic_gbps ELSE st.gpus END DESC, st.vm_id) AS vms
FROM over o
JOIN stay st ON st.machine_id = o.machine_id AND st.t0 <= o.at_s AND st.t1 > o.at_s
-- a sum of decimal sizes may miss its capacity by rounding: 1e-9 of it
WHERE o.peak > o.capacity * (1 + 1e-9)
GROUP BY o.machine_id, o.name, o.sku, o.dim, o.capacity, o.peak, o.at_s
ORDER BY o.machine_id, list_position(['cores', 'memory_gb', 'ssd_gb', 'hdd_gb', 'nic_gbps', 'gpus'], o.dim);
