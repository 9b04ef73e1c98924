-- classify_series: the CPU series of a dataset, VM by VM in time order.
-- $1 = dataset.
SELECT vm_id, ts_s, cpu_avg FROM cpu_reading WHERE dataset = $1 ORDER BY vm_id, ts_s;
