package healable

import (
	"testing"
	"time"

	"placelab/optimizer"
)

var TmpZone func(tb testing.TB, n int) *optimizer.State

func TestTmpSplit(t *testing.T) {
	st := TmpZone(t, 2500)
	s := New(st.Inv)
	b := optimizer.Buffers{Healing: 1}
	s.Sample(st, b)
	const N = 200
	t0 := time.Now()
	for i := 0; i < N; i++ {
		s.load(st)
	}
	t1 := time.Now()
	for i := 0; i < N; i++ {
		s.Sample(st, b)
	}
	t2 := time.Now()
	placed := 0
	t.Logf("load %v sample %v vms %d placed %d", t1.Sub(t0)/N, t2.Sub(t1)/N, len(s.vms), placed)
}
