package healable_test

import (
	"testing"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

func init() { healable.TmpZone = func(tb testing.TB, n int) *optimizer.State { return benchZone(tb, n, 1) } }
