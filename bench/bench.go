// Package bench holds placelab's benchmark harnesses, every one in this
// room: the allocator's cache on and off (allocator.go, `placelab bench
// allocator`, with the production-size point), availability, cluster
// bounds and drains, the LP bound, predictions, the characterization views
// and `bench all` (benchall.go). It drives the run pipeline of package
// analysis and the engines; analysis never imports it.
//
// It also holds the programs the benchmarks run beside placelab's own
// engines: pandas_views.py computes the characterization views the way
// the Azure public dataset notebooks do, for `placelab bench views` to time
// and check against its SQL (Debian's python3-pandas; outside make test's
// timings, though the test suite checks the numbers agree).
package bench

import _ "embed"

// PandasViews is pandas_views.py.
//
//go:embed pandas_views.py
var PandasViews []byte
