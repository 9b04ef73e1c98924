// Package analysis is the run pipeline: a run is a Spec (DefaultSpec, then
// what the caller means to change), validated once against the settings
// table (Settings), run by Run or RunTrace — load and pin the dataset's
// load (LoadTrace), derive the engine configuration from the trace without
// touching the spec, replay through analysis/replay, and store run,
// placement, explain and run_metric rows through one writer (WriteRun,
// WriteFigures) — and checked afterwards by CheckRun, SQL over the stored
// rows that shares no code with the engines.
//
// The studies built on it live in packages of their own, one each, below
// the harnesses and above this one (TestLayers holds the order):
// analysis/snapshot (a run's state at an instant), analysis/lpinterval,
// analysis/capacity, analysis/lifetime, analysis/oversub,
// analysis/characterize, analysis/cluster, analysis/whatif and
// analysis/timing; the report's pages are analysis/report and
// analysis/overview, and analysis/experiments runs the seeded grids.
package analysis
