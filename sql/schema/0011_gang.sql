-- 0011: rejected requests of several VMs (gang allocation, Protean §4
-- Algorithm 1: all of a request's VMs or none). One row per VM of such a
-- request, in the order the allocator tried them: the VMs placed and then
-- rolled back (with the machine each held), the one that found no machine
-- (its rule is placement.reason, its short dimension in its explain row),
-- and those never tried. `placelab explain` tells a VM's request from it.
CREATE TABLE gang_vm (
    run_id     BIGINT NOT NULL,
    request_id BIGINT NOT NULL,
    vm_id      BIGINT NOT NULL,
    position   INTEGER NOT NULL CHECK (position >= 0),  -- 0: tried first
    role       VARCHAR NOT NULL CHECK (role IN ('rolled_back', 'failed', 'not_tried')),
    machine_id INTEGER,  -- rolled_back: the machine it held until the rollback
    PRIMARY KEY (run_id, vm_id)
);
