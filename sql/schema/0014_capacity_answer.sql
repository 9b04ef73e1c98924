-- 0014: capacity's answers, kept (issue 52): each `placelab capacity`
-- search (trace mode) stores what it printed as --format json, so that the
-- report's planner section and scripts can read the answers later without
-- replaying. answer is that JSON (read it with DuckDB's JSON functions:
-- answer->>'machines', answer->>'shed_rate', …); the columns beside it are
-- the ones to filter on. load_id pins the load the search read.
CREATE SEQUENCE capacity_answer_seq START 1;
CREATE TABLE capacity_answer (
    id            BIGINT PRIMARY KEY DEFAULT nextval('capacity_answer_seq'),
    dataset       VARCHAR NOT NULL,
    load_id       BIGINT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    policy        VARCHAR NOT NULL,
    machines      INTEGER NOT NULL,
    max_rejection DOUBLE NOT NULL,
    target_counts VARCHAR NOT NULL,
    shed_rate     DOUBLE NOT NULL,
    lp_bound_machines DOUBLE NOT NULL,
    monotone      BOOLEAN NOT NULL,
    answer        JSON NOT NULL
);
