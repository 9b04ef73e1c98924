// Package bench holds the programs placelab's benchmarks run beside its
// own engines: pandas_views.py computes the characterization views the way
// the Azure public dataset notebooks do, for `placelab bench views` to time
// and check against its SQL (Debian's python3-pandas; outside make test's
// timings, though the test suite checks the numbers agree).
package bench

import _ "embed"

// PandasViews is pandas_views.py.
//
//go:embed pandas_views.py
var PandasViews []byte
