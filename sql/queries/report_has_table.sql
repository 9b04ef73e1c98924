-- report_has_table: whether the database has a table named $1 (the report
-- reads tables a newer schema adds only where they exist).
SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = $1;
