-- gwa_summaries: fill each VM's whole-life CPU summaries (percent) from its
-- cpu_reading rows: mean, maximum and the 95th percentile (linear
-- interpolation) of the per-reading utilization. $1 = dataset, $2 = load_id.
UPDATE vm
SET cpu_avg = s.cpu_avg, cpu_max = s.cpu_max, cpu_p95max = s.cpu_p95
FROM (
    SELECT vm_id,
           avg(cpu_avg) AS cpu_avg,
           max(cpu_avg) AS cpu_max,
           quantile_cont(cpu_avg, 0.95) AS cpu_p95
    FROM cpu_reading
    WHERE dataset = $1 AND load_id = $2
    GROUP BY vm_id
) s
WHERE vm.dataset = $1 AND vm.load_id = $2 AND vm.vm_id = s.vm_id;
