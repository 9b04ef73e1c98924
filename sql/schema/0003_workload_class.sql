-- 0003: per-VM workload class from the periodicity of its CPU utilization
-- (Resource Central §3.6), computed in Go (FFT) and stored for the views to
-- join. Rows of a dataset are replaced whenever it is classified again.
CREATE TABLE workload_class (
    dataset      VARCHAR NOT NULL,
    vm_id        BIGINT NOT NULL,
    days         DOUBLE NOT NULL CHECK (days >= 0),   -- length of the series used
    periodic     BOOLEAN NOT NULL,
    period_hours DOUBLE CHECK (period_hours > 0),      -- dominant period, when periodic
    strength     DOUBLE CHECK (strength >= 0),         -- share of the spectrum's power at that period
    class        VARCHAR NOT NULL CHECK (class IN ('interactive', 'delay-insensitive', 'unknown'))
);
