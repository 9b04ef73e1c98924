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
