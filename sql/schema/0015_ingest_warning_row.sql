-- 0015: where an ingest warning points and how many it stands for (issue 52
-- item 7). row: the file row it names (the first, when it counts several) —
-- a CSV file's line, the header line 1; a Parquet file's data row from 1;
-- NULL when it names none. count: how many rows or objects it stands for (a
-- warning repeated over many rows is one row with their count, the first in
-- object and row and a few more named in message); NULL when not counted.
ALTER TABLE ingest_warning ADD COLUMN "row" BIGINT;
ALTER TABLE ingest_warning ADD COLUMN count BIGINT;
