-- explain_vm: the stored record of one VM in one run, with the VM's and
-- machine's names, the run's engine and the dataset's time origin.
-- $1 = run_id, $2 = vm_id.
SELECT r.policy, r.dataset, r.params, p.t_s, p.machine_id, p.outcome, p.reason, p.latency_us,
       r.engine, v.name, mach.name, d.time_origin,
       c.candidates AS clusters, c.rejected AS cluster_rejected, c.top AS cluster_top, c.failed_rule AS cluster_failed,
       m.candidates AS machines, m.rejected AS machine_rejected, m.top AS machine_top, m.failed_rule AS machine_failed
FROM run r
JOIN placement p ON p.run_id = r.run_id AND p.vm_id = $2
LEFT JOIN explain c ON c.run_id = r.run_id AND c.vm_id = $2 AND c.level = 'cluster'
LEFT JOIN explain m ON m.run_id = r.run_id AND m.vm_id = $2 AND m.level = 'machine'
LEFT JOIN vm v ON v.load_id = r.load_id AND v.vm_id = $2
LEFT JOIN machine mach ON mach.load_id = r.load_id AND mach.machine_id = p.machine_id
LEFT JOIN dataset d ON d.name = r.dataset
WHERE r.run_id = $1;
