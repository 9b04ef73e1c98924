// Package catalog reads a priced machine-type catalog: a CSV or Parquet file
// with one row per machine type (a cloud instance type or a user's own
// hardware), its capacity (vCPUs, memory, GPUs, architecture) and its price
// per hour. The real example is ../shared/data/catalogs/aws-ec2-us-east-1.csv.
//
// Read takes every column as text through an in-memory DuckDB (read_csv or
// read_parquet, the queries in queries/*.sql) and parses the values itself,
// so that a bad value is refused with a *RowError naming the file, the data
// row, the line and the field, rather than coerced. A file is read whole or
// refused whole: no partial catalogs.
//
// Filter narrows a catalog by --types clauses (ParseFilter), and
// Reserved.Allocatable turns a type's capacity into what a Kubernetes node of
// that type offers pods under EKS's or GKE's published reservations.
// Help documents the format as `placelab ingest help-format catalog` prints it.
package catalog
