-- 0008: what Paragon's evaluation needs beyond one score per cell (issue 19).
--
-- app_score.application: the application a row's app belongs to, when one
-- application is measured at several inputs (Lumos: workload_id
-- spark_als_huge belongs to application spark_als, with its other data
-- sizes). Cross-validation holds out a whole application at a time, so that
-- no app is classified by a model that saw the same program on another
-- input. NULL: the app is its own application.
ALTER TABLE app_score ADD COLUMN application VARCHAR;

-- app_run: every repeated measurement behind an app_score cell, so that the
-- agreement between repeats of the same cells (the ceiling any classifier
-- can reach against a noisy truth) can be computed. campaign groups the
-- runs measured together (Lumos: the sar_interval setting; '' when the
-- source has none); repeat is the source's repeat number within it.
CREATE TABLE app_run (
    dataset  VARCHAR NOT NULL,
    load_id  BIGINT NOT NULL,
    matrix   VARCHAR NOT NULL CHECK (matrix IN ('platform', 'tolerated', 'caused')),
    app      VARCHAR NOT NULL,
    col      VARCHAR NOT NULL,
    campaign VARCHAR NOT NULL,
    repeat   VARCHAR NOT NULL,
    value    DOUBLE NOT NULL CHECK (value > 0),
    PRIMARY KEY (load_id, matrix, app, col, campaign, repeat)
);
