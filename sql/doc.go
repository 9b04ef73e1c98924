// Package store owns placelab's embedded DuckDB database: it opens the file,
// applies the numbered migrations in schema/ inside one transaction each,
// installs the views in views/, serves the named queries in queries/, and
// runs ingests as single transactions through DuckDB's Appender.
//
// The package is named store so that it does not shadow database/sql; its
// folder is sql/ because the .sql files are what it is about.
package store
