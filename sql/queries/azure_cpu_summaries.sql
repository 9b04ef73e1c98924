-- azure_cpu_summaries: fill each VM's whole-life CPU summaries from its
-- readings, as the Azure V1 vmtable defines them: cpu_avg = mean of the
-- 5-minute averages, cpu_max = max of the 5-minute maxima, cpu_p95max = 95th
-- percentile of the 5-minute maxima. $1 = dataset, $2 = load_id.
UPDATE vm
SET cpu_avg = s.cpu_avg, cpu_max = s.cpu_max, cpu_p95max = s.cpu_p95max
FROM (
    SELECT vm_id,
           avg(cpu_avg) AS cpu_avg,
           max(cpu_max) AS cpu_max,
           quantile_cont(cpu_max, 0.95) AS cpu_p95max
    FROM cpu_reading
    WHERE dataset = $1 AND load_id = $2
    GROUP BY vm_id
) s
WHERE vm.dataset = $1 AND vm.load_id = $2 AND vm.vm_id = s.vm_id;
