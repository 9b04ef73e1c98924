-- A catalog Parquet file, every column cast to text (COLUMNS(*) keeps each
-- column's name, so the query is the same for every file) and in file order
-- by DuckDB's file_row_number. $1: the file's path.
SELECT COLUMNS(* EXCLUDE (file_row_number))::VARCHAR
FROM read_parquet(?, file_row_number = true)
ORDER BY file_row_number
