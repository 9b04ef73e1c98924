package paragon

import "testing"

type resident struct{ t, c []float64 }

// hand builds a cluster of 4-core servers (configurations given) holding
// the given residents, one core each.
func hand(configs []int, residents [][]resident) *Cluster {
	specs := make([]ServerSpec, len(configs))
	for i, cfg := range configs {
		specs[i] = ServerSpec{Config: cfg, Cores: 4}
	}
	sois := 2
	c := NewCluster(specs, sois)
	id := 1000
	for s, rs := range residents {
		for _, r := range rs {
			c.Add(s, Resident{ID: id, Cores: 1, Tolerated: r.t, Caused: r.c})
			id++
		}
	}
	return c
}

// TestSelectGreedy is a hand-built D1/D2 case (two SoIs). The new
// application causes [0.5, 0.2] and tolerates [0.6, 0.9]; configuration 0
// suits it better than 1. Levels: D1 at SoI 0 then 1 (decreasing caused),
// D2 at SoI 0 then 1 (increasing tolerated).
//
//	server  config  residents (t; c)        D1           D2           verdict
//	S0      0       [0.4 0.9]; [0.1 0.1]    [-0.1 ·]                  out at D1 SoI 0
//	S1      0       [0.8 0.3]; [0.2 0.1]    [0.3 0.1]    [0.4 0.8]    in, ‖D1+D2‖₁ = 1.6
//	S2      1       [0.55 0.3]; [0.3 0.5]   [0.05 0.1]   [0.3 0.4]    in, ‖D1+D2‖₁ = 0.85
//	S3      0       [0.9 0.9]; [0.7 0.1]    [0.4 0.7]    [-0.1 ·]     out at D2 SoI 0
//	S4      0       empty                   [0.5 0.8]    [0.6 0.9]    in, ‖D1+D2‖₁ = 2.8
//
// Paragon takes the best configuration first (S1, S4), then the least
// ‖D1 + D2‖₁: S1. The heterogeneity-oblivious NH takes the least overall:
// S2.
func TestSelectGreedy(t *testing.T) {
	cluster := func() *Cluster {
		return hand([]int{0, 0, 1, 0, 0}, [][]resident{
			{{[]float64{0.4, 0.9}, []float64{0.1, 0.1}}},
			{{[]float64{0.8, 0.3}, []float64{0.2, 0.1}}},
			{{[]float64{0.55, 0.3}, []float64{0.3, 0.5}}},
			{{[]float64{0.9, 0.9}, []float64{0.7, 0.1}}},
			nil,
		})
	}
	req := &Request{ID: 1, Cores: 1, Class: Class{Perf: []float64{1, 0.8}, Tolerated: []float64{0.6, 0.9}, Caused: []float64{0.5, 0.2}}}
	cases := []struct {
		name       string
		opts       GreedyOptions
		want       int
		rejectedD1 []int
		rejectedD2 []int
	}{
		{"paragon prefers the best configuration", GreedyOptions{}, 1, []int{1, 0}, []int{1, 0}},
		{"nh takes the tightest fit", GreedyOptions{IgnoreConfig: true}, 2, []int{1, 0}, []int{1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := SelectGreedy(cluster(), req, tc.opts)
			if d.Server != tc.want || d.Survivors != 3 || d.Candidates != 5 || d.Backtracks != 0 || d.NegativeSoIs != 0 || d.TimedOut {
				t.Errorf("decision %+v, want server %d of 3 survivors, no backtracking", d, tc.want)
			}
			if !equalInts(d.RejectedD1, tc.rejectedD1) || !equalInts(d.RejectedD2, tc.rejectedD2) {
				t.Errorf("rejected D1 %v D2 %v, want %v %v", d.RejectedD1, d.RejectedD2, tc.rejectedD1, tc.rejectedD2)
			}
		})
	}
}

// TestSelectGreedyBacktracking: the application causes [0.5, 0.4] and
// tolerates everything. S0 passes D1 at SoI 0 (0.9 − 0.5) but fails SoI 1
// by 0.3; S1 fails SoI 0 by 0.04 and passes SoI 1. At SoI 1 the set
// {S0} empties: backtracking relaxes SoI 0 by one step (0.05), admits S1,
// and S1 passes SoI 1. With a budget of one check the timeout strikes when
// the set empties and takes the best of {S0}. A lone server failing the
// first SoI relaxes that SoI itself.
func TestSelectGreedyBacktracking(t *testing.T) {
	two := func() *Cluster {
		return hand([]int{0, 0}, [][]resident{
			{{[]float64{0.9, 0.1}, []float64{0, 0}}},
			{{[]float64{0.46, 0.9}, []float64{0, 0}}},
		})
	}
	one := func() *Cluster {
		return hand([]int{0}, [][]resident{{{[]float64{0.2, 0.9}, []float64{0, 0}}}})
	}
	req := &Request{ID: 7, Cores: 1, Class: Class{Perf: []float64{1}, Tolerated: []float64{1, 1}, Caused: []float64{0.5, 0.4}}}
	cases := []struct {
		name                                   string
		cluster                                *Cluster
		opts                                   GreedyOptions
		server, backtracks, relaxed, self, neg int
		timedOut                               bool
	}{
		{"relax the previous SoI", two(), GreedyOptions{}, 1, 1, 1, 0, 1, false},
		{"timeout takes the set at hand", two(), GreedyOptions{Timeout: 1}, 0, 0, 0, 0, 1, true},
		{"relax the failing SoI itself", one(), GreedyOptions{}, 0, 0, 1, 1, 1, false},
		{"too far to backtrack", two(), GreedyOptions{MaxRelax: 0.01}, 0, 0, 1, 1, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := SelectGreedy(tc.cluster, req, tc.opts)
			if d.Server != tc.server || d.Backtracks != tc.backtracks || d.RelaxedLevels != tc.relaxed ||
				d.SelfRelaxed != tc.self || d.NegativeSoIs != tc.neg || d.TimedOut != tc.timedOut {
				t.Errorf("decision %+v\nwant server %d, backtracks %d, relaxed %d, self-relaxed %d, negative SoIs %d, timed out %v",
					d, tc.server, tc.backtracks, tc.relaxed, tc.self, tc.neg, tc.timedOut)
			}
		})
	}
}

// TestSelectGreedyTolerance: residents tolerating [0.5] and [0.9] and
// causing [0.3] and [0.1]. §3.2's server tolerance is min t = 0.5, so a
// newcomer causing 0.45 fits (D1 = 0.05); but the first resident already
// suffers 0.1 from the second, so its headroom is 0.4 and Headroom says no.
func TestSelectGreedyTolerance(t *testing.T) {
	build := func() *Cluster {
		c := NewCluster([]ServerSpec{{0, 8}, {0, 8}}, 1)
		c.Add(0, Resident{ID: 1, Cores: 1, Tolerated: []float64{0.5}, Caused: []float64{0.3}})
		c.Add(0, Resident{ID: 2, Cores: 1, Tolerated: []float64{0.9}, Caused: []float64{0.1}})
		c.Add(1, Resident{ID: 3, Cores: 1, Tolerated: []float64{0.47}, Caused: []float64{0.0}})
		return c
	}
	req := &Request{ID: 4, Cores: 1, Class: Class{Perf: []float64{1}, Tolerated: []float64{1}, Caused: []float64{0.45}}}
	if d := SelectGreedy(build(), req, GreedyOptions{}); d.Server != 0 {
		t.Errorf("paper tolerance (the default): server %d, want 0 (both pass; ‖D1+D2‖₁ 0.65 against 1.02)", d.Server)
	}
	if d := SelectGreedy(build(), req, GreedyOptions{Headroom: true}); d.Server != 1 || d.RejectedD1[0] != 1 {
		t.Errorf("headroom: %+v, want server 1 with server 0 rejected", d)
	}
}

func TestSelectGreedyCoresAndTies(t *testing.T) {
	c := NewCluster([]ServerSpec{{0, 2}, {0, 4}, {0, 4}}, 1)
	big := &Request{ID: 1, Cores: 8, Class: Class{Perf: []float64{1}, Tolerated: []float64{1}, Caused: []float64{0}}}
	if d := SelectGreedy(c, big, GreedyOptions{}); !d.Overcommitted || d.Candidates != 3 {
		t.Errorf("no room anywhere: %+v, want all 3 servers, overcommitted", d)
	}
	// Servers 1 and 2 are identical: the seeded tie-break picks either,
	// the same one for the same (seed, request), both over many requests.
	seen := map[int]bool{}
	for id := 0; id < 40; id++ {
		req := &Request{ID: id, Cores: 3, Class: Class{Perf: []float64{1}, Tolerated: []float64{1}, Caused: []float64{0}}}
		a := SelectGreedy(c, req, GreedyOptions{Seed: 5})
		b := SelectGreedy(c, req, GreedyOptions{Seed: 5})
		if a.Server != b.Server || a.Server == 0 {
			t.Fatalf("request %d: servers %d and %d", id, a.Server, b.Server)
		}
		seen[a.Server] = true
	}
	if len(seen) != 2 {
		t.Errorf("tie-break chose %v over 40 requests", seen)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
