package violation

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// rampPool is one tenant curve: disk 12·δ up to 60 at δ = 5, 20 steps, one
// CPU of max size, sampled every minute.
func rampPool() []Curve {
	c := diskCurve("ramp", "r", ramp(20, 0, 60, 5))
	c.Max = Vec{CPU: 1, Disk: 60}
	return []Curve{c}
}

// TestSimulateByHand: 12 one-minute steps, a disk limit of 100, density
// for two tenants of the ramp curve. Placed together at step 0 their disk
// sums to 24·δ: 96 at step 4, 120 ≥ 100 at step 5, a violation.
func TestSimulateByHand(t *testing.T) {
	pool := rampPool()
	repo := mustRepo(t, pool)
	cases := []struct {
		name  string
		nodes int
		want  SeedResult
	}{
		// One node of 1 CPU at density 2: nowhere to fail over to. The
		// smaller tenant (tie: lower ID, 0) is dropped at step 5; tenant 2
		// arrives at step 6 and grows 12·δ beside tenant 1's 60: 108 at
		// step 10, when tenant 2 (48) is dropped; tenant 3 arrives at the
		// last step, 11.
		{"no room: failed-over tenants are dropped", 1, SeedResult{Violations: 2, ByResource: [3]int{0, 0, 2}, Failovers: 2, Dropped: 2, Placed: 4}},
		// Two nodes of 1 CPU at density 1: WorstFit puts both tenants on
		// node 0 (their initial estimate is 0, so the nodes tie); at step 5
		// tenant 0 moves to node 1 and both stay at 60.
		{"failover to the other node", 2, SeedResult{Violations: 1, ByResource: [3]int{0, 0, 1}, Failovers: 1, Placed: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := SimConfig{
				Nodes: tc.nodes, Capacity: Vec{1, 1, 100}, Threshold: Vec{1, 1, 1},
				Density: 2 / float64(tc.nodes), Hours: 12.0 / 60, Seeds: 1, InitialQuantile: 0.5,
			}
			res, err := Simulate(context.Background(), repo, pool, cfg, []Policy{NewWorstFit(WMax)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Policies[0].PerSeed[0]
			got.Seed, got.Seconds, got.MeanTenants = 0, 0, 0
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func smallSim(t *testing.T) (*Repository, []Curve, SimConfig) {
	repo := mustRepo(t, Synthetic(31, 800))
	pool := Synthetic(32, 800)
	cfg := DefaultSimConfig()
	cfg.Nodes, cfg.Hours, cfg.Seeds = 8, 36, 2
	return repo, pool, cfg
}

// recorder logs the arrivals (Age 0) a policy is asked to place, one map
// of ID to class per repetition.
type recorder struct {
	Policy
	arrivals []map[int64]string
}

func (r *recorder) Place(c *Cluster, req Request) (int, bool) {
	if req.Tenant.Age == 0 {
		if req.Tenant.ID == 0 {
			r.arrivals = append(r.arrivals, map[int64]string{})
		}
		r.arrivals[len(r.arrivals)-1][req.Tenant.ID] = req.Tenant.Class
	}
	return r.Policy.Place(c, req)
}

// TestSimulateDeterministic: the same configuration gives the same
// results, every policy sees the same tenant sequence, and progress ends
// at its total.
func TestSimulateDeterministic(t *testing.T) {
	repo, pool, cfg := smallSim(t)
	mk := func() []Policy {
		ps, err := NewPolicies([]string{NamePrVWorstFit, NameWorstFitMax, NameBestFit}, repo, PolicyParams{MC: MCConfig{Reps: 30}})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			ps[i] = &recorder{Policy: p}
		}
		return ps
	}
	var last, total int64
	p1 := mk()
	a, err := Simulate(context.Background(), repo, pool, cfg, p1, func(done, tot int64) {
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != total || total != int64(a.Steps*cfg.Seeds*3) {
		t.Errorf("progress ended at %d of %d, want %d", last, total, a.Steps*cfg.Seeds*3)
	}
	b, err := Simulate(context.Background(), repo, pool, cfg, mk(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range a.Policies {
		for s := range a.Policies[k].PerSeed {
			x, y := a.Policies[k].PerSeed[s], b.Policies[k].PerSeed[s]
			x.Seconds, y.Seconds = 0, 0
			if x != y {
				t.Errorf("%s seed %d: %+v then %+v", a.Policies[k].Policy, s, x, y)
			}
		}
	}
	if a.Policies[1].Violations == 0 && a.Policies[2].Violations == 0 {
		t.Error("no baseline saw a violation: the run is not oversubscribed enough to test anything")
	}
	seqs := p1[0].(*recorder).arrivals
	for _, p := range p1[1:] {
		for s, arr := range p.(*recorder).arrivals {
			for id, class := range arr {
				if c, ok := seqs[s][id]; ok && c != class {
					t.Fatalf("seed %d: %s got tenant %d of class %s, %s got %s", s, p.Name(), id, class, p1[0].Name(), c)
				}
			}
		}
	}
	if len(seqs) != cfg.Seeds || len(seqs[0]) < cfg.Nodes*10 {
		t.Errorf("%d repetitions, %d arrivals: too few to compare sequences", len(seqs), len(seqs[0]))
	}
}

func TestSimulateErrors(t *testing.T) {
	repo, pool, cfg := smallSim(t)
	pols := []Policy{NewWorstFit(WMax)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, repo, pool, cfg, pols, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
	other := Synthetic(1, 3)
	for i := range other {
		other[i].Step = time.Minute
	}
	cases := []struct {
		name   string
		mutate func(*SimConfig)
		pool   []Curve
		pols   []Policy
		want   error
	}{
		{"no nodes", func(c *SimConfig) { c.Nodes = 0 }, pool, pols, ErrConfig},
		{"threshold above 1", func(c *SimConfig) { c.Threshold[Disk] = 1.5 }, pool, pols, ErrConfig},
		{"NaN density", func(c *SimConfig) { c.Density = math.NaN() }, pool, pols, ErrConfig},
		// 1e300 hours once overflowed the step count and ran one step.
		{"hours beyond MaxHours", func(c *SimConfig) { c.Hours = 1e300 }, pool, pols, ErrConfig},
		{"NaN hours", func(c *SimConfig) { c.Hours = math.NaN() }, pool, pols, ErrConfig},
		{"empty pool", func(*SimConfig) {}, nil, pols, ErrEmpty},
		{"pool at another step", func(*SimConfig) {}, other, pols, ErrStep},
		{"same policy twice", func(*SimConfig) {}, pool, []Policy{NewWorstFit(WMax), NewWorstFit(WMax)}, ErrPolicy},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			tc.mutate(&c)
			if _, err := Simulate(context.Background(), repo, tc.pool, c, tc.pols, nil); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestRatios(t *testing.T) {
	mk := func(v ...float64) *SimResult {
		r := &SimResult{}
		for i, n := range []string{NamePrVWorstFit, NameWorstFit, NameMinStdDev} {
			r.Policies = append(r.Policies, PolicyResult{Policy: n, Violations: v[i]})
		}
		return r
	}
	rs := []*SimResult{mk(10, 30, 20), mk(0, 0, 0), mk(0, 5, 5), mk(4, 8, 12)}
	if got := rs[0].BestBaseline(); got != NameMinStdDev {
		t.Errorf("best baseline %q", got)
	}
	// Ratios 2, 1 (tie at 0), undefined, 2: mean 5/3 over 3 experiments.
	if m, n := AverageRatio(rs, BestBaseline, NamePrVWorstFit); n != 3 || math.Abs(m-5.0/3) > 1e-12 {
		t.Errorf("AverageRatio = %v over %d", m, n)
	}
}
