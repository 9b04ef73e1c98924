package optimizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMoveEntry: moving an entry within a sorted rack to a new key gives
// the rack a full re-sort gives, for every position and for new keys
// below, among and above the others (ties on the key broken by machine),
// across rack sizes the gallop's steps cover.
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
	moves := 0
	for n := 1; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			rack := make([]entry, n)
			for i := range rack {
				rack[i] = entry{k: key{int32(rng.IntN(3)), int32(rng.IntN(8))}, m: int32(i)}
			}
			slices.SortFunc(rack, cmpEntry)
			i := rng.IntN(n)
			x := entry{k: key{int32(rng.IntN(4)) - 1, int32(rng.IntN(10)) - 1}, m: rack[i].m}
			want := slices.Clone(rack)
			want[i] = x
			slices.SortFunc(want, cmpEntry)
			if want[i] != x {
				moves++
			}
			got := slices.Clone(rack)
			moveEntry(got, i, x)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d: moving %v at %d to %v:\n got %v\nwant %v", n, rack[i], i, x, got, want)
			}
		}
	}
	if moves < 500 {
		t.Fatalf("only %d of 1400 moves changed the entry's position: the test does not exercise the shifts", moves)
	}
}
