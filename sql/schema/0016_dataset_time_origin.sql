-- 0016: the wall-clock instant a dataset's t = 0 stands for, when its source
-- has one (issue 52 item 5): a Kubernetes cluster's earliest creation
-- timestamp, from which ingest k8s counts every pod's start, so that its
-- runs' instants print as RFC 3339 timestamps. NULL: the trace's times are
-- relative only (every other format today).
ALTER TABLE dataset ADD COLUMN time_origin TIMESTAMP;
