-- 0004: every significant period of a VM's utilization series, strongest
-- first (the FFT finds periodicity at several time scales, Resource Central
-- §3.6); workload_class.period_hours stays the dominant one.
ALTER TABLE workload_class ADD COLUMN periods DOUBLE[];
