// Package replay is placelab's simulation layer: a trace as the engines see
// it (Trace), the event-driven single-agent replay (Replay), the multi-agent
// replay on stale views with a commit store in simulated or real time
// (ReplayAgents), the bench's timed replay of one engine (EngineReplay),
// and the one sampler of interval metrics they use. It imports only the
// engines (placelab/optimizer): no DuckDB, no report, so a benchmark or a
// notebook can replay without the rest of placelab. Loading a trace from
// DuckDB, run specs and storing runs live in package analysis.
//
// Every replay is one event loop (loop.run, loop.go). It takes, in time
// order on the run's clock, the trace's arrivals, the departures of placed
// VMs, each instant's outages (ends, then starts, then the heal requests
// of the VMs they took down: the one availability tracker, avail) and the
// interval samples; at one instant departures come first, then commits,
// outages, the sample and arrivals. It hands each event to its driver,
// which decides how a request is submitted and when its outcome takes
// effect:
//
//   - engineDriver: one engine decides each request as it arrives, and
//     heal requests at their failure's instant (Replay; EngineReplay, the
//     bench's, a number of requests at a time, without samples or
//     outages);
//   - simDriver: agents on simulated time (Protean §6.2): a request waits
//     for a free agent, which decides it on its view at a drawn cost; its
//     commit, a round trip later, and the agent coming free are events the
//     driver queues in the loop;
//   - realDriver: agents as goroutines, fed by the loop, committing to the
//     store while the loop moves the trace clock, releasing departures,
//     applying outages and sampling under one lock.
//
// The observers of a one-engine run (Observer: rows, samples, latencies,
// availability counts, the bench's tallies) are told each decision,
// departure, eviction and background refresh; the agents' outcomes are
// summarized when the run is done (summarizeAgents). A decision's latency
// less the background refresh's changes it applied is measured in one place
// (timeDecision), and an engine's refresh and statistics are reached
// through optimizer.Refresher and optimizer.StatsReporter.
package replay
