-- 0007: Resource Central's predictions (issue 15).
--
-- vm_censor: a right-censored VM (end_s NULL) that was seen alive until
-- observed_s, so its lifetime is known to exceed observed_s - start_s
-- ("longer than its observed age", never "finished"). Loaders whose source
-- says when each running VM was last seen (the Azure V1 flavor trace's `C`
-- durations) write it; a censored VM without a row was seen alive until the
-- dataset's last event.
CREATE TABLE vm_censor (
    dataset    VARCHAR NOT NULL,
    load_id    BIGINT NOT NULL,
    vm_id      BIGINT NOT NULL,
    observed_s DOUBLE NOT NULL,
    PRIMARY KEY (load_id, vm_id)
);

-- model: a trained bucket classifier (RC Table 1), stored so that a notebook
-- or a later run loads it by name. booster is XGBoost's serialized model
-- (UBJSON); features is the JSON feature spec (names, in column order, and
-- the entity that stands in for the subscription); params the training
-- parameters, seed included. The model learned from rows of dataset's load
-- load_id created in [train_from_s, train_to_s), with labels as known at
-- train_to_s. A name is unique among the rows (placelab replaces a model
-- of the same name in one transaction).
CREATE SEQUENCE model_seq START 1;
CREATE TABLE model (
    model_id     BIGINT PRIMARY KEY,
    name         VARCHAR NOT NULL,
    metric       VARCHAR NOT NULL,
    approach     VARCHAR NOT NULL CHECK (approach IN ('xgboost', 'random-forest')),
    dataset      VARCHAR NOT NULL,
    load_id      BIGINT NOT NULL,
    features     VARCHAR NOT NULL,
    params       VARCHAR NOT NULL,
    classes      INTEGER NOT NULL CHECK (classes >= 2),
    train_from_s DOUBLE NOT NULL,
    train_to_s   DOUBLE NOT NULL CHECK (train_to_s > train_from_s),
    train_rows   BIGINT NOT NULL CHECK (train_rows > 0),
    booster      BLOB NOT NULL,
    importance   VARCHAR,
    trained_at   TIMESTAMP NOT NULL,
    seconds      DOUBLE CHECK (seconds >= 0)
);

-- prediction_eval: Table 4 for one evaluation run (engine 'predict'): per
-- metric and predictor (a stored model's approach, 'majority' — the most
-- common training bucket — or 'history' — the bucket most of the
-- subscription's earlier VMs fell in), one row per bucket (share of test VMs
-- truly in it, precision, recall) and one row with bucket 0 holding
-- accuracy, P^theta and R^theta (theta = 0.6: P^theta is the share of
-- confident predictions that are correct, R^theta the share of all test VMs
-- given a correct confident prediction) and coverage (the share given a
-- confident prediction). Fractions in [0, 1]; NULL where undefined (no
-- prediction named the bucket).
CREATE TABLE prediction_eval (
    run_id    BIGINT NOT NULL,
    metric    VARCHAR NOT NULL,
    predictor VARCHAR NOT NULL,
    model     VARCHAR,
    bucket    INTEGER NOT NULL CHECK (bucket >= 0),
    vms       BIGINT NOT NULL CHECK (vms >= 0),
    share     DOUBLE,
    precision DOUBLE,
    recall    DOUBLE,
    accuracy  DOUBLE,
    p_theta   DOUBLE,
    r_theta   DOUBLE,
    coverage  DOUBLE,
    PRIMARY KEY (run_id, metric, predictor, bucket)
);

-- Resource Central Table 3's buckets, one definition for every view and
-- query: CPU utilization in percent (1: ≤ 25, 2: ≤ 50, 3: ≤ 75, 4: above),
-- deployment size in VMs or cores (1: ≤ 1, 2: ≤ 10, 3: ≤ 100, 4: above),
-- lifetime in seconds (1: ≤ 15 min, 2: ≤ 60 min, 3: ≤ 24 h, 4: above).
-- NULL in, NULL out.
CREATE MACRO rc_util_bucket(p) AS
    CASE WHEN p IS NULL THEN NULL WHEN p <= 25 THEN 1 WHEN p <= 50 THEN 2 WHEN p <= 75 THEN 3 ELSE 4 END;
CREATE MACRO rc_size_bucket(n) AS
    CASE WHEN n IS NULL OR n <= 0 THEN NULL WHEN n <= 1 THEN 1 WHEN n <= 10 THEN 2 WHEN n <= 100 THEN 3 ELSE 4 END;
CREATE MACRO rc_lifetime_bucket(s) AS
    CASE WHEN s IS NULL THEN NULL WHEN s <= 900 THEN 1 WHEN s <= 3600 THEN 2 WHEN s <= 86400 THEN 3 ELSE 4 END;
-- Workload class (Table 3): 1 delay-insensitive, 2 interactive, from the
-- trace's category when it names one, else placelab classify's class.
CREATE MACRO rc_class_bucket(category, class) AS
    CASE WHEN category = 'Delay-insensitive' THEN 1 WHEN category = 'Interactive' THEN 2
         WHEN class = 'delay-insensitive' THEN 1 WHEN class = 'interactive' THEN 2 END;
