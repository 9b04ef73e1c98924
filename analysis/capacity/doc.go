// Package capacity answers the planner's question "how many machines":
// the smallest inventory, scaled by the zone's mix or per SKU, on which the
// online allocator replays a trace within a target of VMs not served (and,
// with failures, the heal targets), bracketed by the LP bound of the trace's
// peak (Run, RunTrace); answers are stored (Store) for the report.
package capacity
