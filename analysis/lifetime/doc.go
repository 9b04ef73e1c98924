// Package lifetime replays a dataset under the lifetime-aware placement
// arms (Run: off, model, oracle, NILAS, LAVA and their oracles) and compares
// them over seeds out of sample (Compare).
package lifetime
