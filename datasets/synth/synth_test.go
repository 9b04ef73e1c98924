package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"testing"
)

// hasher feeds Go values into a SHA-256 in a fixed binary layout.
type hasher struct{ h hash.Hash }

func (h hasher) f(xs ...float64) {
	for _, x := range xs {
		binary.Write(h.h, binary.LittleEndian, math.Float64bits(x))
	}
}
func (h hasher) i(xs ...int64) {
	for _, x := range xs {
		binary.Write(h.h, binary.LittleEndian, x)
	}
}
func (h hasher) s(xs ...string) {
	for _, x := range xs {
		h.i(int64(len(x)))
		h.h.Write([]byte(x))
	}
}
func (h hasher) b(x bool) {
	if x {
		h.i(1)
	} else {
		h.i(0)
	}
}

func hashZone(h hasher, z Zone) {
	for _, s := range z.SKUs {
		h.s(s.Name, s.GPUModel)
		h.i(int64(s.Generation))
		h.f(s.Cores, s.MemoryGB, s.SSDGB, s.HDDGB, s.NICGbps, s.GPUs)
	}
	for _, m := range z.Machines {
		h.i(int64(m.ID), int64(m.UpdateDomain))
		h.s(m.Name, m.Zone, m.Datacenter, m.Cluster, m.Rack, m.SKU, m.Health)
	}
}

func hashVMs(h hasher, vms []VM) {
	for _, v := range vms {
		h.i(v.ID, int64(v.Request), int64(v.Subscription), int64(v.Type), int64(v.Priority))
		h.f(v.Start, v.End, v.CPUAvg, v.CPUP95Max, v.CPUMax)
		h.b(v.Censored)
		h.b(v.Periodic)
		h.s(v.Category)
	}
}

func hashSeries(h hasher, ss []Series) {
	for _, s := range ss {
		h.i(s.VMID, int64(len(s.Readings)))
		for _, r := range s.Readings {
			h.f(r.TS, r.Min, r.Max, r.Avg)
		}
	}
}

// digests hashes a trace's zone, VMs and series separately.
func digests(tr *Trace) (zone, vms, series string) {
	sum := func(fn func(hasher)) string {
		h := hasher{sha256.New()}
		fn(h)
		return fmt.Sprintf("%x", h.h.Sum(nil))[:16]
	}
	return sum(func(h hasher) { hashZone(h, tr.Zone) }),
		sum(func(h hasher) { hashVMs(h, tr.VMs) }),
		sum(func(h hasher) { hashSeries(h, tr.Series) })
}

func smallConfig(seed uint64) Config {
	c := DefaultConfig()
	c.Machines, c.VMs, c.Days, c.SeriesVMs, c.Seed = 1000, 20000, 7, 40, seed
	return c
}

func mustGenerate(t testing.TB, cfg Config) *Trace {
	t.Helper()
	tr, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestDeterminism(t *testing.T) {
	a := mustGenerate(t, smallConfig(7))
	b := mustGenerate(t, smallConfig(7))
	za, va, sa := digests(a)
	zb, vb, sb := digests(b)
	if za != zb || va != vb || sa != sb {
		t.Fatalf("same config, different output: zone %s/%s vms %s/%s series %s/%s", za, zb, va, vb, sa, sb)
	}
	if a.Stats() != b.Stats() {
		t.Fatalf("same config, different stats: %+v vs %+v", a.Stats(), b.Stats())
	}

	c := mustGenerate(t, smallConfig(8))
	zc, vc, sc := digests(c)
	if zc == za || vc == va || sc == sa {
		t.Fatalf("different seeds, same output: zone %s/%s vms %s/%s series %s/%s", za, zc, va, vc, sa, sc)
	}
}

// Each part draws from its own stream: changing what only one part uses
// leaves the others byte-identical.
func TestStreamsAreIndependent(t *testing.T) {
	base := smallConfig(3)
	ref := mustGenerate(t, base)
	zr, vr, sr := digests(ref)
	cases := []struct {
		name                    string
		edit                    func(*Config)
		sameZone, sameVMs, same bool // same: series identical
	}{
		{"more series", func(c *Config) { c.SeriesVMs = 80 }, true, true, false},
		{"no series", func(c *Config) { c.SeriesVMs = 0 }, true, true, false},
		{"longer series", func(c *Config) { c.SeriesDays = 5 }, true, true, false},
		{"more VMs", func(c *Config) { c.VMs = 30000 }, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.edit(&cfg)
			got := mustGenerate(t, cfg)
			z, v, s := digests(got)
			if (z == zr) != tc.sameZone || (v == vr) != tc.sameVMs || (s == sr) != tc.same {
				t.Fatalf("zone same=%v (want %v), vms same=%v (want %v), series same=%v (want %v)",
					z == zr, tc.sameZone, v == vr, tc.sameVMs, s == sr, tc.same)
			}
		})
	}
	// A series VM kept in both gets the same readings.
	more := smallConfig(3)
	more.SeriesVMs = 80
	m := mustGenerate(t, more)
	byID := map[int64]Series{}
	for _, s := range m.Series {
		byID[s.VMID] = s
	}
	shared := 0
	for _, s := range ref.Series {
		o, ok := byID[s.VMID]
		if !ok {
			continue
		}
		shared++
		if len(o.Readings) != len(s.Readings) || (len(s.Readings) > 0 && o.Readings[len(o.Readings)-1] != s.Readings[len(s.Readings)-1]) {
			t.Fatalf("vm %d: series differs when other VMs are picked", s.VMID)
		}
	}
	if shared == 0 {
		t.Fatal("no series VM shared between 40 and 80 picks")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
	}{
		{"no machines", func(c *Config) { c.Machines = 0 }},
		{"too many machines", func(c *Config) { c.Machines = MaxMachines + 1 }},
		{"no VMs", func(c *Config) { c.VMs = 0 }},
		{"zero days", func(c *Config) { c.Days = 0 }},
		{"NaN days", func(c *Config) { c.Days = math.NaN() }},
		{"negative series", func(c *Config) { c.SeriesVMs = -1 }},
		{"series without days", func(c *Config) { c.SeriesDays = 0 }},
		{"load 1", func(c *Config) { c.Load = 1 }},
		{"negative load", func(c *Config) { c.Load = -0.1 }},
		{"low priority > 1", func(c *Config) { c.LowPriority = 1.5 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			if err := c.Validate(); !errors.Is(err, ErrBadConfig) {
				t.Fatalf("Validate = %v, want ErrBadConfig", err)
			}
			if _, err := Generate(c); !errors.Is(err, ErrBadConfig) {
				t.Fatalf("Generate = %v, want ErrBadConfig", err)
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

// The rows must satisfy the schema's constraints, and the trace its own
// invariants: a request's VMs share type, start and subscription; ids are
// dense and in start order; censored VMs end after the horizon.
func TestTraceInvariants(t *testing.T) {
	cfgs := map[string]Config{"small": smallConfig(11), "no load": func() Config {
		c := smallConfig(11)
		c.Load = 0
		return c
	}(), "tiny": func() Config {
		c := smallConfig(11)
		c.Machines, c.VMs, c.Days = 3, 50, 0.5
		return c
	}()}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			tr := mustGenerate(t, cfg)
			horizon := cfg.Days * day
			if len(tr.VMs) != cfg.VMs {
				t.Fatalf("%d VMs, want %d", len(tr.VMs), cfg.VMs)
			}
			first := map[int32]VM{}
			prevReq := int32(-1)
			for i, v := range tr.VMs {
				if v.ID != int64(i) {
					t.Fatalf("vm %d has id %d", i, v.ID)
				}
				if i > 0 && v.Start < tr.VMs[i-1].Start {
					t.Fatalf("vm %d starts before vm %d", i, i-1)
				}
				if v.End < v.Start || v.Start >= horizon || (v.Start < 0) != (i < tr.InitialVMs) {
					t.Fatalf("vm %d: start %g end %g (initial %d)", i, v.Start, v.End, tr.InitialVMs)
				}
				if v.Start < 0 && v.End <= 0 {
					t.Fatalf("initial vm %d not alive at 0: end %g", i, v.End)
				}
				if v.Censored != (v.End > horizon) {
					t.Fatalf("vm %d: censored %v with end %g", i, v.Censored, v.End)
				}
				if v.CPUAvg < 0 || v.CPUP95Max < v.CPUAvg || v.CPUMax < v.CPUP95Max || v.CPUMax > 100 {
					t.Fatalf("vm %d: cpu avg %g p95 %g max %g", i, v.CPUAvg, v.CPUP95Max, v.CPUMax)
				}
				if v.Priority != 0 && v.Priority != 1 {
					t.Fatalf("vm %d: priority %d", i, v.Priority)
				}
				if (v.PeriodHours() > 0) != (v.Category == CategoryInteractive) {
					t.Fatalf("vm %d: period %g category %s", i, v.PeriodHours(), v.Category)
				}
				if f, ok := first[v.Request]; ok {
					if f.Type != v.Type || f.Start != v.Start || f.Subscription != v.Subscription {
						t.Fatalf("request %d mixes VMs: %+v vs %+v", v.Request, f, v)
					}
					if v.Request != prevReq {
						t.Fatalf("request %d is not contiguous", v.Request)
					}
				} else {
					if v.Request != prevReq+1 {
						t.Fatalf("request ids not dense: %d after %d", v.Request, prevReq)
					}
					first[v.Request] = v
				}
				prevReq = v.Request
			}
			if len(first) != tr.Requests {
				t.Fatalf("%d requests, Trace says %d", len(first), tr.Requests)
			}
			for _, s := range tr.Series {
				v := tr.VMs[s.VMID]
				if v.Category == CategoryUnknown {
					t.Fatalf("series for unclassified vm %d", v.ID)
				}
				for j, r := range s.Readings {
					if r.TS < math.Max(v.Start, 0) || r.TS >= math.Min(v.End, horizon) || math.Mod(r.TS, readingInterval) != 0 {
						t.Fatalf("vm %d reading %d at %g outside [%g, %g)", v.ID, j, r.TS, v.Start, v.End)
					}
					if r.Min < 0 || r.Min > r.Avg || r.Avg > r.Max || r.Max > 100 {
						t.Fatalf("vm %d reading %d: %+v", v.ID, j, r)
					}
				}
			}
		})
	}
}

// Periodic series repeat daily; the others do not (the ground truth that
// vm.period_hours labels).
func TestSeriesPeriodicity(t *testing.T) {
	tr := generateDefault(t)
	const lag = int(day / readingInterval)
	var per, non []float64
	for _, s := range tr.Series {
		if len(s.Readings) < 2*lag {
			continue
		}
		xs := make([]float64, len(s.Readings))
		for i, r := range s.Readings {
			xs[i] = r.Avg
		}
		ac := autocorr(xs, lag)
		if tr.VMs[s.VMID].Periodic {
			per = append(per, ac)
		} else {
			non = append(non, ac)
		}
	}
	mp, mn := mean(per), mean(non)
	t.Logf("series: %d periodic (mean 24 h autocorrelation %.2f), %d not (%.2f)", len(per), mp, len(non), mn)
	if len(per) == 0 || len(non) == 0 || len(per) > len(non) {
		t.Fatalf("want some periodic series, fewer than non-periodic: %d vs %d", len(per), len(non))
	}
	// Tolerances: a periodic VM's diurnal amplitude is ≥ 0.5 under AR(1)
	// noise of sd 0.2; non-periodic noise decorrelates within hours.
	const minPeriodic, maxOther = 0.6, 0.2
	if mp < minPeriodic || mn > maxOther {
		t.Fatalf("24 h autocorrelation: periodic %.2f (want ≥ %g), others %.2f (want ≤ %g)", mp, minPeriodic, mn, maxOther)
	}
}

// autocorr is the lag-k autocorrelation, each sum averaged over its own
// number of terms.
func autocorr(xs []float64, lag int) float64 {
	m := mean(xs)
	var num, den float64
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i+lag < len(xs) {
			num += (x - m) * (xs[i+lag] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return (num / float64(len(xs)-lag)) / (den / float64(len(xs)))
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestTable3Shares(t *testing.T) {
	got := make([]float64, len(CoreBuckets))
	var total float64
	for _, vt := range VMTypes() {
		got[CoreBucket(vt.Cores)] += 100 * vt.Share
		total += vt.Share
	}
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("type shares sum to %g", total)
	}
	for i := range got {
		if math.Abs(got[i]-Table3Zone1[i]) > 1e-9 {
			t.Fatalf("bucket %s: type shares give %.2f%%, Table 3 %.1f%%", CoreBuckets[i], got[i], Table3Zone1[i])
		}
	}
}

func TestApportion(t *testing.T) {
	w := []float64{0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.03, 0.02}
	target := []float64{0.5, 0.3, 0.2}
	got := make([]float64, len(target))
	for i, k := range apportion(w, target, stream(1, "t")) {
		got[k] += w[i]
	}
	for k := range target {
		if math.Abs(got[k]-target[k]) > 0.1 {
			t.Fatalf("category %d: weighted share %.2f, target %.2f", k, got[k], target[k])
		}
	}
}
