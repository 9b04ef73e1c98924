// Package whatif plans from a run's state: migrations that free machines
// under a move budget (Migrate) and the drain of a cluster's nodes (Drain),
// each stored as an offline run that placelab check verifies, and why a node
// stays (ExplainMachine).
package whatif
