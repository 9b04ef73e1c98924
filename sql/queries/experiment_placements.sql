-- experiment_placements: the placements of run $1 (a replay inside a grid
-- point, in a scratch zone) with the VM's type, priority and life, and the
-- point's identity ($2 experiment, $3 point, $4 params JSON, $5 seed, $6
-- version), kept in a temporary table for export to Parquet beside the
-- shard's figures. A VM of a rejected request of several VMs also carries
-- its gang_vm row (gang_request_id, gang_position, gang_role and
-- gang_machine_id, the machine a rolled-back VM held); NULL for every other
-- VM. gang_vm has one row per (run, VM), as placement has, so the rows stay
-- one per placement.
CREATE OR REPLACE TEMP TABLE experiment_placements AS
SELECT CAST($2 AS VARCHAR) AS experiment, CAST($3 AS INTEGER) AS point, CAST($4 AS VARCHAR) AS params,
       CAST($5 AS UBIGINT) AS seed, CAST($6 AS VARCHAR) AS version,
       p.vm_id, v.vm_type, v.priority, v.start_s, v.end_s,
       p.t_s, p.machine_id, m.sku, p.outcome, p.reason, p.evicted_s, p.latency_us,
       g.request_id AS gang_request_id, g.position AS gang_position, g.role AS gang_role,
       g.machine_id AS gang_machine_id
FROM placement p
JOIN run r ON r.run_id = p.run_id
JOIN vm v ON v.load_id = r.load_id AND v.vm_id = p.vm_id
LEFT JOIN machine m ON m.load_id = r.load_id AND m.machine_id = p.machine_id
LEFT JOIN gang_vm g ON g.run_id = p.run_id AND g.vm_id = p.vm_id
WHERE p.run_id = $1
ORDER BY p.t_s, p.vm_id;
