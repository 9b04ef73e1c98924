package optimizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMoveEntry: moving an entry within a sorted rack to a new key gives
// the rack a full re-sort gives, for every position and for new keys
// below, among and above the others (ties on the key broken by machine),
// across rack sizes the gallop's steps cover and entry strides of one to
// maxPrefs scores (the flattened rack of every width an engine uses).
func TestMoveEntry(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	cmpEntry := func(a, b entry) int {
		switch {
		case entryLess(&a, &b):
			return -1
		case entryLess(&b, &a):
			return 1
		}
		return 0
	}
	flatten := func(r []entry, s int) []int32 {
		f := make([]int32, len(r)*s)
		for i := range r {
			setEnt(f, s, i, &r[i].k, r[i].m)
		}
		return f
	}
	moves := 0
	for n := 1; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			np := 1 + rep%maxPrefs // scores per entry
			s := np + 1
			randKey := func(lo int32) (k key) {
				for j := range np {
					k[j] = int32(rng.IntN(3+j)) + lo
				}
				return k
			}
			rack := make([]entry, n)
			for i := range rack {
				rack[i] = entry{k: randKey(0), m: int32(i)}
			}
			slices.SortFunc(rack, cmpEntry)
			i := rng.IntN(n)
			x := entry{k: randKey(-1), m: rack[i].m}
			want := slices.Clone(rack)
			want[i] = x
			slices.SortFunc(want, cmpEntry)
			if want[i] != x {
				moves++
			}
			got := flatten(rack, s)
			if j := findEntry(got, s, x.m); j != i {
				t.Fatalf("n %d stride %d: machine %d found at %d, is at %d", n, s, x.m, j, i)
			}
			moveEntry(got, s, i, &x.k, x.m)
			if w := flatten(want, s); !slices.Equal(got, w) {
				t.Fatalf("n %d stride %d: moving %v at %d to %v:\n got %v\nwant %v", n, s, rack[i], i, x, got, w)
			}
			for j := range want {
				if entKey(got, s, j) != want[j].k || entM(got, s, j) != want[j].m {
					t.Fatalf("n %d stride %d: entry %d reads (%v, %d), want %v", n, s, j, entKey(got, s, j), entM(got, s, j), want[j])
				}
			}
		}
	}
	if moves < 500 {
		t.Fatalf("only %d of 1400 moves changed the entry's position: the test does not exercise the shifts", moves)
	}
}
