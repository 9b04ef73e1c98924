-- 0009: availability (issue 27) — what a replay with failures, healing,
-- fault and update domains and planned maintenance stores beside its
-- placements, so that `placelab check` can verify it in SQL with no engine.
--
-- outage: one row per machine per outage of a run. kind 'reboot' (host
-- reboot: the machine's VMs stay and are down for the outage), 'hard'
-- (hardware failure: the machine's VMs must be healed elsewhere; it returns
-- empty), 'maintenance' (a planned host OS update of one update domain:
-- VMs stay, down for the reboot). The machine takes no placement in
-- [t_s, t_s + duration_s). rack names the failed rack of a rack (fault
-- domain) failure, NULL for a single machine's outage. source is 'model'
-- (drawn from --failures), 'file' (a failure file) or 'maintenance'.
CREATE TABLE outage (
    run_id     BIGINT NOT NULL,
    machine_id INTEGER NOT NULL,
    t_s        DOUBLE NOT NULL,
    duration_s DOUBLE NOT NULL CHECK (duration_s > 0),
    kind       VARCHAR NOT NULL CHECK (kind IN ('reboot', 'hard', 'maintenance')),
    rack       VARCHAR,
    source     VARCHAR NOT NULL CHECK (source IN ('model', 'file', 'maintenance'))
);

-- vm_move: a VM leaving its machine before its end for a reason other than
-- eviction — a hard failure of that machine at t_s — and where it went. seq
-- numbers a VM's moves (1, 2, …); the VM stays on its placement's machine
-- (placement) until its first move's t_s, then on each move's machine_id
-- from the move's placed_s (the heal's commit: t_s for one agent, later for
-- agents deciding concurrently) until the next move's t_s; a NULL
-- machine_id is a healing failure: the VM is down from t_s until its end.
-- reason: 'heal'.
CREATE TABLE vm_move (
    run_id       BIGINT NOT NULL,
    vm_id        BIGINT NOT NULL,
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    t_s          DOUBLE NOT NULL,
    from_machine INTEGER NOT NULL,
    machine_id   INTEGER,
    placed_s     DOUBLE CHECK ((machine_id IS NULL) = (placed_s IS NULL)),
    reason       VARCHAR NOT NULL CHECK (reason IN ('heal')),
    PRIMARY KEY (run_id, vm_id, seq)
);

-- placement_domain: the fault and update domain of each VM of a run with
-- availability sets on (--fault-domains F, --update-domains U): VM i of a
-- tenant's set has fault domain i mod F and update domain i mod U. NULL
-- when that kind of domain is off.
CREATE TABLE placement_domain (
    run_id        BIGINT NOT NULL,
    vm_id         BIGINT NOT NULL,
    fault_domain  SMALLINT CHECK (fault_domain >= 0),
    update_domain SMALLINT CHECK (update_domain >= 0),
    PRIMARY KEY (run_id, vm_id)
);
