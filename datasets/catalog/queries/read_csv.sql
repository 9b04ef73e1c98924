-- A catalog CSV, every column as text and in file order, so that Read parses
-- and refuses the values itself. The dialect is pinned (comma, double quotes
-- escaped by doubling, no comment lines or skipped rows) so DuckDB's sniffer
-- does not guess it from the data; Read's own pass over the file (for the
-- line of each row) parses the same dialect. $1: the file's path; $2: its
-- compression, 'gzip' or 'none' (Read decides by the extension, whatever its
-- case; DuckDB's own guess knows only a lower-case .gz).
SELECT *
FROM read_csv(?, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', skip = 0, comment = '',
    compression = ?)
