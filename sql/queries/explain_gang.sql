-- explain_gang: the rejected request of several VMs that VM $2 of run $1
-- belonged to (table gang_vm), one row per VM in the order the allocator
-- tried them, with the failing VM's stored machine-level rejections (its
-- short dimension) and the VM's and held machine's names. No rows when the
-- VM's request was not such a request.
SELECT g.request_id, g.vm_id, g.position, g.role, g.machine_id, p.reason, m.rejected, v.name, mach.name
FROM gang_vm g
JOIN gang_vm me ON me.run_id = g.run_id AND me.request_id = g.request_id AND me.vm_id = $2
JOIN placement p ON p.run_id = g.run_id AND p.vm_id = g.vm_id
JOIN run r ON r.run_id = g.run_id
LEFT JOIN vm v ON v.load_id = r.load_id AND v.vm_id = g.vm_id
LEFT JOIN machine mach ON mach.load_id = r.load_id AND mach.machine_id = g.machine_id
LEFT JOIN explain m ON m.run_id = g.run_id AND m.vm_id = g.vm_id AND m.level = 'machine' AND g.role = 'failed'
WHERE g.run_id = $1
ORDER BY g.position;
