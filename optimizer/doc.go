// Package optimizer holds placelab's allocation engines, in pure Go and
// free of DuckDB: resource vectors and inventories, the Protean rule-based
// allocator (validator and preference rules at two levels, strict rule
// priority with quantized scores, seeded tie-breaks, gang allocation of
// service requests, the cache hierarchy of rule objects and RuleEvaluation
// objects kept fresh from a revision journal, and an explanation for every
// decision), and the baselines it is judged against (first fit, best fit,
// worst fit, random).
//
// Engines take plain Go values (an Inventory, Requests) and return plain Go
// values (Decisions with Explanations); the analysis package replays traces
// through them and writes the results to DuckDB.
package optimizer
