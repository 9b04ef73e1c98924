-- 0005: a run pins the exact data it read, and a placement's response time
-- is kept apart from its decision latency.
--
-- run.load_id is the load of run.dataset the run read (NULL for runs written
-- before this migration and for runs that read no dataset). Re-ingesting a
-- dataset replaces its load; commands that read a run's placements against
-- the data refuse a run whose load is gone instead of re-pointing it at new
-- rows.
--
-- placement.latency_us is, on every path, the wall-clock time the engine
-- spent deciding the VM's request, per VM. placement.response_s is, for
-- multi-agent runs, the time from the request's arrival to its resolution on
-- the run's clock (simulated or wall), queueing and retries included; NULL
-- for single-agent replays, which have no queue.
ALTER TABLE run ADD COLUMN load_id BIGINT;
ALTER TABLE placement ADD COLUMN response_s DOUBLE;
