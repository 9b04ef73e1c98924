-- 0002: result tables written by replays, bounds and experiments.

CREATE SEQUENCE run_seq START 1;

-- One row per run: engine, policy, parameters (JSON), seed, input dataset.
CREATE TABLE run (
    run_id     BIGINT PRIMARY KEY,
    engine     VARCHAR NOT NULL,
    policy     VARCHAR,
    params     VARCHAR,   -- JSON
    seed       BIGINT NOT NULL,
    dataset    VARCHAR,
    version    VARCHAR NOT NULL,
    started_at TIMESTAMP NOT NULL,
    seconds    DOUBLE CHECK (seconds >= 0),
    status     VARCHAR NOT NULL DEFAULT 'done' CHECK (status IN ('running', 'done', 'failed'))
);

-- One row per VM per run: where it went (NULL machine if rejected), when,
-- by which agent, after how many retries, how long the decision took, and
-- for a rejection the rule that emptied the candidate set.
CREATE TABLE placement (
    run_id     BIGINT NOT NULL,
    vm_id      BIGINT NOT NULL,
    t_s        DOUBLE NOT NULL,
    machine_id INTEGER,
    agent      SMALLINT NOT NULL DEFAULT 0 CHECK (agent >= 0),
    retries    INTEGER NOT NULL DEFAULT 0 CHECK (retries >= 0),
    latency_us DOUBLE CHECK (latency_us >= 0),
    outcome    VARCHAR NOT NULL CHECK (outcome IN ('placed', 'rejected', 'evicted')),
    reason     VARCHAR,
    evicted_s  DOUBLE,
    PRIMARY KEY (run_id, vm_id)
);

-- Time series of named figures per run (packing density, utilization, ...).
CREATE TABLE run_metric (
    run_id BIGINT NOT NULL,
    t_s    DOUBLE NOT NULL,
    metric VARCHAR NOT NULL,
    value  DOUBLE,
    PRIMARY KEY (run_id, metric, t_s)
);

-- Per request and level: candidates evaluated, how many each rule removed
-- (JSON object rule -> count), the top-k machines with per-rule scores
-- (JSON), and for a failure the rule that emptied the set.
CREATE TABLE explain (
    run_id      BIGINT NOT NULL,
    vm_id       BIGINT NOT NULL,
    level       VARCHAR NOT NULL CHECK (level IN ('cluster', 'machine')),
    candidates  INTEGER NOT NULL CHECK (candidates >= 0),
    rejected    VARCHAR,  -- JSON
    top         VARCHAR,  -- JSON
    failed_rule VARCHAR,
    PRIMARY KEY (run_id, vm_id, level)
);
