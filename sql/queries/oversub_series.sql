-- oversub_series: every CPU reading of a dataset, VM by VM in time order —
-- the 5-minute maximum utilization (%), the average where it is missing.
-- $1 = dataset.
SELECT vm_id, coalesce(cpu_max, cpu_avg)
FROM cpu_reading
WHERE dataset = $1
ORDER BY vm_id, ts_s;
