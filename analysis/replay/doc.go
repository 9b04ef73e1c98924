// Package replay is placelab's simulation layer: a trace as the engines see
// it (Trace), the event-driven single-agent replay (Replay), the multi-agent
// replay on stale views with a commit store in simulated or real time
// (ReplayAgents), and the one sampler of interval metrics both use. It
// imports only the engines (placelab/optimizer): no DuckDB, no report, so a
// benchmark or a notebook can replay without the rest of placelab. Loading
// a trace from DuckDB, run specs and storing runs live in package analysis.
package replay
