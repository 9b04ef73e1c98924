package fleet_test

// Tests of package fleet written apart from it: the exact optimum of small
// instances (bruteforce_test.go), the volume LP on gonum's simplex, a
// Karpenter-style heuristic of our own, and edge cases. Nothing here calls
// the package's internals; expectations are computed from the Problem.

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"placelab/internal/shareddata"
	"placelab/optimizer/fleet"
)

// ---------------------------------------------------------------- helpers

// quick are the options for the small and medium instances.
func quick() fleet.Options {
	o := fleet.DefaultOptions()
	o.TimeLimit = 5 * time.Second
	o.IntegerTimeLimit = 2 * time.Second
	return o
}

// wantUnplaceable are the names of the groups with pods that fit no
// allowed type, computed from the Problem.
func wantUnplaceable(p *fleet.Problem) []string {
	var out []string
	for g, gr := range p.Groups {
		if gr.Count > 0 && !placeable(p, g) {
			out = append(out, gr.Name)
		}
	}
	slices.Sort(out)
	return out
}

func gotUnplaceable(r *fleet.Result) []string {
	var out []string
	for _, u := range r.Unplaceable {
		out = append(out, u.Name)
	}
	slices.Sort(out)
	return out
}

// placedPods is the number of pods of placeable groups.
func placedPods(p *fleet.Problem) int {
	n := 0
	for g, gr := range p.Groups {
		if placeable(p, g) {
			n += gr.Count
		}
	}
	return n
}

// nodeCost sums the prices of f's nodes.
func nodeCost(p *fleet.Problem, f *fleet.Fleet) float64 {
	c := 0.0
	for _, n := range f.Nodes {
		c += p.Types[n.Type].Price
	}
	return c
}

// typeCounts is {type name: nodes} of a list of type indices.
func typeCounts(p *fleet.Problem, types []int) map[string]int {
	out := map[string]int{}
	for _, k := range types {
		out[p.Types[k].Name]++
	}
	return out
}

func fleetTypes(f *fleet.Fleet) []int {
	var out []int
	for _, n := range f.Nodes {
		out = append(out, n.Type)
	}
	return out
}

// checkResult asserts what every Result owes whatever the instance: the
// unplaceable groups, the plan and baselines valid fleets at their stated
// cost, the plan no worse than either baseline, BestSingle of one type, and
// the bound no higher than the plan.
func checkResult(t *testing.T, name string, p *fleet.Problem, r *fleet.Result) {
	t.Helper()
	if got, want := gotUnplaceable(r), wantUnplaceable(p); !slices.Equal(got, want) {
		t.Errorf("%s: unplaceable %v, want %v", name, got, want)
	}
	for _, u := range r.Unplaceable {
		if u.Reason == "" {
			t.Errorf("%s: unplaceable %s without a reason", name, u.Name)
		}
		if i := slices.IndexFunc(p.Groups, func(g fleet.Group) bool { return g.Name == u.Name }); i < 0 || u.Count != p.Groups[i].Count {
			t.Errorf("%s: unplaceable %q count %d: no such group or another count", name, u.Name, u.Count)
		}
	}
	if want := placedPods(p); r.Placed != want {
		t.Errorf("%s: placed %d, want %d", name, r.Placed, want)
	}
	if err := fleet.Check(p, &r.Plan); err != nil {
		t.Errorf("%s: plan (%s) fails Check: %v", name, r.Source, err)
	}
	if c := nodeCost(p, &r.Plan); math.Abs(c-r.Plan.Cost) > 1e-6*max(1, c) {
		t.Errorf("%s: plan cost %g, its nodes cost %g", name, r.Plan.Cost, c)
	}
	if r.LowerBound > r.Plan.Cost+1e-6*max(1, r.Plan.Cost) {
		t.Errorf("%s: lower bound %.9g above the plan's cost %.9g", name, r.LowerBound, r.Plan.Cost)
	}
	if math.IsNaN(r.LowerBound) || r.LowerBound < 0 {
		t.Errorf("%s: lower bound %g", name, r.LowerBound)
	}
	for _, b := range []struct {
		name string
		f    *fleet.Fleet
	}{{"karpenter", &r.Karpenter}, {"best-single", &r.BestSingle}} {
		if len(b.f.Nodes) == 0 {
			continue
		}
		if err := fleet.Check(p, b.f); err != nil {
			t.Errorf("%s: %s baseline fails Check: %v", name, b.name, err)
		}
		if r.Plan.Cost > b.f.Cost+1e-9 {
			t.Errorf("%s: plan %.9g costs more than the %s baseline %.9g", name, r.Plan.Cost, b.name, b.f.Cost)
		}
	}
	if len(r.BestSingle.Nodes) > 0 {
		for _, n := range r.BestSingle.Nodes {
			if n.Type != r.BestSingle.Nodes[0].Type {
				t.Errorf("%s: best-single fleet of types %v", name, typeCounts(p, fleetTypes(&r.BestSingle)))
				break
			}
		}
		if got := p.Types[r.BestSingle.Nodes[0].Type].Name; got != r.BestSingleType {
			t.Errorf("%s: best-single nodes of %s, BestSingleType %q", name, got, r.BestSingleType)
		}
	}
}

// ------------------------------------------------------------ brute force

// TestBruteForce compares Solve with the exact optimum of 2,000 small
// random instances: the bound must not exceed it, the plan not beat it (a
// plan cheaper than the optimum is a fleet Check should have refused), nor
// the baselines; when the limits allow no fleet, Solve must fail. How often
// the plan is the optimum is logged, apart for prices in whole cents and
// arbitrary prices.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(20240611, 7))
	const n = 2000
	type tally struct{ n, exact, lbTight int }
	var byPrice [2]tally // [0] cents, [1] arbitrary
	infeasible := 0
	var worst float64
	worstSeed := -1
	for it := range n {
		p := smallInstance(rng)
		name := fmt.Sprintf("instance %d", it)
		opt, counts, ok := exactOptimum(p)
		r, err := fleet.Solve(context.Background(), p, quick())
		if !ok {
			// The limits cannot hold the pods: no plan may be returned.
			infeasible++
			if err == nil {
				t.Errorf("%s: no fleet exists (limits), yet Solve returned a plan of %.4f: %s", name, r.Plan.Cost, dump(p))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Solve: %v (optimum %.4f %v): %s", name, err, opt, counts, dump(p))
			continue
		}
		checkResult(t, name, p, r)
		checkKarpenter(t, name, p, r)
		if v := volumeLP(t, p); r.LowerBound < v-1e-6*max(1, v) {
			t.Errorf("%s: lower bound %.9g below the volume LP %.9g: %s", name, r.LowerBound, v, dump(p))
		}
		if r.LowerBound > opt+1e-6 {
			t.Errorf("%s: lower bound %.9g > optimum %.9g (%v): %s", name, r.LowerBound, opt, counts, dump(p))
		}
		if r.Plan.Cost < opt-1e-6 {
			t.Errorf("%s: plan %.9g cheaper than the optimum %.9g: %s", name, r.Plan.Cost, opt, dump(p))
		}
		for _, b := range []*fleet.Fleet{&r.Karpenter, &r.BestSingle} {
			if len(b.Nodes) > 0 && b.Cost < opt-1e-6 {
				t.Errorf("%s: a baseline %.9g cheaper than the optimum %.9g: %s", name, b.Cost, opt, dump(p))
			}
		}
		kind := 0
		for _, ty := range p.Types {
			if v := ty.Price * 100; math.Abs(v-math.Round(v)) > 1e-9 {
				kind = 1
			}
		}
		tl := &byPrice[kind]
		tl.n++
		if math.Abs(r.Plan.Cost-opt) <= 1e-6 {
			tl.exact++
		} else if g := (r.Plan.Cost - opt) / opt; g > worst {
			worst, worstSeed = g, it
		}
		if math.Abs(r.LowerBound-opt) <= 1e-6 {
			tl.lbTight++
		}
	}
	for kind, tl := range byPrice {
		t.Logf("prices %s: plan = optimum in %d/%d, lower bound = optimum in %d/%d",
			[]string{"in cents", "arbitrary"}[kind], tl.exact, tl.n, tl.lbTight, tl.n)
	}
	t.Logf("%d instances, %d with no fleet (limits); worst plan excess %.2f%% (instance %d)", n, infeasible, 100*worst, worstSeed)
}

// dump prints an instance for a failure report.
func dump(p *fleet.Problem) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// ------------------------------------------------------ Karpenter baseline

// karpenter is the Karpenter-style heuristic as specified: pods by CPU then
// memory descending (ties by group order); each joins the first open claim
// on which some remaining type, allowed for the pod, still holds the
// claim's pods plus this one (within the anti-affinity bounds), the
// claim's types shrinking to those; else it opens a claim with every type
// allowed for it that holds it alone; each claim launches its cheapest
// remaining type. It returns the type of each node.
func karpenter(p *fleet.Problem) []int {
	caps := antiCaps(p)
	var gs []int
	for g := range p.Groups {
		if placeable(p, g) {
			gs = append(gs, g)
		}
	}
	slices.SortStableFunc(gs, func(a, b int) int {
		da, db := p.Groups[a].Demand, p.Groups[b].Demand
		if da[0] != db[0] {
			if da[0] > db[0] {
				return -1
			}
			return 1
		}
		if da[1] > db[1] {
			return -1
		}
		if da[1] < db[1] {
			return 1
		}
		return 0
	})
	type claimT struct {
		types []int
		used  []float64
		anti  map[int]int
	}
	holds := func(c *claimT, g, k int) bool {
		if !allowedOn(p, g, k) {
			return false
		}
		r, _ := room(p, k)
		for j, x := range p.Groups[g].Demand {
			if c.used[j]+x > r[j]+eps {
				return false
			}
		}
		return true
	}
	add := func(c *claimT, g int) {
		for j, x := range p.Groups[g].Demand {
			c.used[j] += x
		}
		if key := p.Groups[g].AntiKey; key >= 0 {
			c.anti[key]++
		}
	}
	var claims []*claimT
	for _, g := range gs {
		gr := &p.Groups[g]
		for range gr.Count {
			joined := false
			for _, c := range claims {
				if gr.AntiKey >= 0 && c.anti[gr.AntiKey] >= caps[gr.AntiKey] {
					continue
				}
				var keep []int
				for _, k := range c.types {
					if holds(c, g, k) {
						keep = append(keep, k)
					}
				}
				if len(keep) == 0 {
					continue
				}
				c.types = keep
				add(c, g)
				joined = true
				break
			}
			if joined {
				continue
			}
			c := &claimT{used: make([]float64, len(p.Dims)), anti: map[int]int{}}
			for k := range p.Types {
				if allowedOn(p, g, k) {
					c.types = append(c.types, k)
				}
			}
			add(c, g)
			claims = append(claims, c)
		}
	}
	var out []int
	for _, c := range claims {
		best := c.types[0]
		for _, k := range c.types {
			if p.Types[k].Price < p.Types[best].Price {
				best = k
			}
		}
		out = append(out, best)
	}
	return out
}

// checkKarpenter compares Result.Karpenter with our heuristic: the same
// cost and the same nodes per type (prices are distinct, so there are no
// ties in the choice of type). A fleet over a type's limit is no fleet: the
// package then reports an empty baseline.
func checkKarpenter(t *testing.T, name string, p *fleet.Problem, r *fleet.Result) {
	t.Helper()
	mine := karpenter(p)
	over := false
	per := typeCounts(p, mine)
	for _, ty := range p.Types {
		if ty.Limit > 0 && per[ty.Name] > ty.Limit {
			over = true
		}
	}
	if over {
		if len(r.Karpenter.Nodes) != 0 {
			t.Errorf("%s: our Karpenter fleet %v exceeds a limit, the package's is %v", name, per, typeCounts(p, fleetTypes(&r.Karpenter)))
		}
		return
	}
	cost := 0.0
	for _, k := range mine {
		cost += p.Types[k].Price
	}
	if math.Abs(cost-r.Karpenter.Cost) > 1e-9 {
		t.Errorf("%s: Karpenter cost %.9g, ours %.9g (%d vs %d nodes)", name, r.Karpenter.Cost, cost, len(r.Karpenter.Nodes), len(mine))
	}
	if got := typeCounts(p, fleetTypes(&r.Karpenter)); !mapsEqual(got, per) {
		t.Errorf("%s: Karpenter nodes %v, ours %v", name, got, per)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// ffd is first-fit decreasing (the Karpenter pod order) of every placeable
// pod on nodes of type k alone; ok false when some group is not allowed on
// k or the limit is exceeded. It is only logged beside BestSingle.
func ffd(p *fleet.Problem, k int) (nodes int, ok bool) {
	caps := antiCaps(p)
	r, _ := room(p, k)
	var gs []int
	for g := range p.Groups {
		if placeable(p, g) {
			if !allowedOn(p, g, k) {
				return 0, false
			}
			gs = append(gs, g)
		}
	}
	slices.SortStableFunc(gs, func(a, b int) int {
		da, db := p.Groups[a].Demand, p.Groups[b].Demand
		if da[0] != db[0] {
			return cmpDesc(da[0], db[0])
		}
		return cmpDesc(da[1], db[1])
	})
	type bin struct {
		used []float64
		anti map[int]int
	}
	var bins []*bin
	for _, g := range gs {
		gr := &p.Groups[g]
	pods:
		for range gr.Count {
			for _, b := range bins {
				if gr.AntiKey >= 0 && b.anti[gr.AntiKey] >= caps[gr.AntiKey] {
					continue
				}
				fit := true
				for j, x := range gr.Demand {
					if b.used[j]+x > r[j]+eps {
						fit = false
					}
				}
				if fit {
					for j, x := range gr.Demand {
						b.used[j] += x
					}
					if gr.AntiKey >= 0 {
						b.anti[gr.AntiKey]++
					}
					continue pods
				}
			}
			b := &bin{used: slices.Clone(gr.Demand), anti: map[int]int{}}
			if gr.AntiKey >= 0 {
				b.anti[gr.AntiKey] = 1
			}
			bins = append(bins, b)
		}
	}
	if l := p.Types[k].Limit; l > 0 && len(bins) > l {
		return len(bins), false
	}
	return len(bins), true
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// bestFFD is the cheapest single-type first-fit-decreasing fleet of ours.
func bestFFD(p *fleet.Problem) (float64, string) {
	best, name := math.Inf(1), ""
	for k := range p.Types {
		if n, ok := ffd(p, k); ok && float64(n)*p.Types[k].Price < best {
			best, name = float64(n)*p.Types[k].Price, p.Types[k].Name
		}
	}
	return best, name
}

// -------------------------------------------------------------- volume LP

// volumeLP is min Σ c_k x_k s.t. Σ_k free_kd x_k ≥ D_d, x ≥ 0, over the
// types whose overhead fits (free = allocatable − overhead), D the demand
// of the placeable groups; solved by gonum's simplex in standard form
// (a surplus per row: A x − s = D).
func volumeLP(t *testing.T, p *fleet.Problem) float64 {
	t.Helper()
	d := len(p.Dims)
	demand := make([]float64, d)
	for g, gr := range p.Groups {
		if placeable(p, g) {
			for j, x := range gr.Demand {
				demand[j] += float64(gr.Count) * x
			}
		}
	}
	var cols [][]float64
	var cost []float64
	for k := range p.Types {
		r, ok := room(p, k)
		if !ok {
			continue
		}
		nz := false
		for j := range r {
			r[j] = max(0, r[j])
			nz = nz || r[j] > 0
		}
		if !nz {
			continue // gonum refuses an all-zero column
		}
		cols = append(cols, r)
		cost = append(cost, p.Types[k].Price)
	}
	n := len(cols)
	a := mat.NewDense(d, n+d, nil)
	c := make([]float64, n+d)
	copy(c, cost)
	for k, col := range cols {
		for j, x := range col {
			a.Set(j, k, x)
		}
	}
	for j := range d {
		a.Set(j, n+j, -1)
	}
	v, _, err := lp.Simplex(c, a, demand, 0, nil)
	if err != nil {
		t.Fatalf("gonum volume LP: %v", err)
	}
	return v
}

// checkVolume asserts LowerBound ≥ the volume LP (and logs the parts).
func checkVolume(t *testing.T, name string, p *fleet.Problem, r *fleet.Result) {
	t.Helper()
	v := volumeLP(t, p)
	if r.LowerBound < v-1e-6*max(1, v) {
		t.Errorf("%s: lower bound %.9g below the volume LP %.9g (LP bound %.9g, volume bound %.9g)", name, r.LowerBound, v, r.LPBound, r.VolumeBound)
	}
	noLimits := !slices.ContainsFunc(p.Types, func(ty fleet.Type) bool { return ty.Limit > 0 })
	if noLimits && r.VolumeBound < v-1e-6*max(1, v) {
		t.Errorf("%s: VolumeBound %.9g below the volume LP %.9g", name, r.VolumeBound, v)
	}
	ffdCost, ffdType := bestFFD(p)
	t.Logf("%s: %d types, %d groups, %d pods: volume LP %.4f, LB %.4f (LP %.4f, volume %.4f, converged %v, %s), plan %.4f (%s, gap %.2f%%), Karpenter %.4f, best single %.4f (%s; ours %.4f %s), %.1fs",
		name, len(p.Types), len(p.Groups), r.Placed, v, r.LowerBound, r.LPBound, r.VolumeBound, r.Converged, r.Stop,
		r.Plan.Cost, r.Source, r.GapPct, r.Karpenter.Cost, r.BestSingle.Cost, r.BestSingleType, ffdCost, ffdType, r.Seconds)
}

// mediumInstance is a random catalog of 20–60 types (general, compute,
// memory families, a few GPU types) on cpu, memory (GiB), gpu and pods,
// distinct prices, and 20–100 groups with hundreds to thousands of pods: a
// few GPU groups allowed only on GPU types, some groups allowed on a random
// family only, some with anti-affinity. With overhead, every type runs a
// DaemonSet share.
func mediumInstance(rng *rand.Rand, overhead bool) *fleet.Problem {
	p := &fleet.Problem{Dims: []string{"cpu", "memory", "gpu", "pods"}}
	nt := 20 + rng.IntN(41)
	sizes := []float64{1, 2, 4, 8, 16, 32, 48, 64, 96}
	fams := []struct {
		name  string
		ratio float64
		price float64
	}{{"c", 2, 0.042}, {"m", 4, 0.048}, {"r", 8, 0.063}}
	var famOf []int
	seen := map[float64]bool{}
	for k := range nt {
		var ty fleet.Type
		fam := rng.IntN(3)
		if k < 3+rng.IntN(3) { // GPU types first: 3–5 of them
			g := []float64{1, 2, 4, 8}[rng.IntN(4)]
			cpu := 4 * g * float64(1+rng.IntN(3))
			ty = fleet.Type{Name: fmt.Sprintf("gpu%d.%g", k, g), Cap: []float64{cpu, 8 * cpu, g, 110},
				Price: cpu*0.05 + g*0.9}
			fam = -1
		} else {
			cpu := sizes[rng.IntN(len(sizes))]
			f := fams[fam]
			ty = fleet.Type{Name: fmt.Sprintf("%s%d.%g", f.name, k, cpu), Cap: []float64{cpu, f.ratio * cpu, 0, 110},
				Price: cpu * f.price}
		}
		for {
			pr := math.Round(ty.Price*(0.9+0.2*rng.Float64())*1e4) / 1e4
			if pr > 0 && !seen[pr] {
				seen[pr], ty.Price = true, pr
				break
			}
		}
		p.Types = append(p.Types, ty)
		famOf = append(famOf, fam)
	}
	if overhead {
		p.Overhead = make([][]float64, nt)
		for k, ty := range p.Types {
			p.Overhead[k] = []float64{0.1 + 0.02*ty.Cap[0], 0.25 + 0.02*ty.Cap[1], 0, 3}
		}
	}
	ng := 20 + rng.IntN(81)
	nGPU := 2 + rng.IntN(3)
	for i := range ng {
		cpu := []float64{0.1, 0.25, 0.5, 1, 2, 4, 8}[rng.IntN(7)]
		mem := math.Round(cpu*[]float64{1, 2, 4, 8}[rng.IntN(4)]*(0.5+rng.Float64())*100) / 100
		g := fleet.Group{Name: fmt.Sprintf("g%d", i), Demand: []float64{cpu, mem, 0, 1}, Count: 1 + rng.IntN(40), AntiKey: -1}
		switch {
		case i < nGPU:
			g.Demand[2] = float64(1 + rng.IntN(2))
			g.Count = 1 + rng.IntN(6)
			g.Allowed = make([]bool, nt)
			for k := range p.Types {
				g.Allowed[k] = famOf[k] < 0
			}
			g.Why = "nvidia.com/gpu"
		case rng.IntN(5) == 0:
			fam := rng.IntN(3)
			g.Allowed = make([]bool, nt)
			for k := range p.Types {
				g.Allowed[k] = famOf[k] == fam
			}
			g.Why = "family=" + fams[fam].name
		}
		if rng.IntN(8) == 0 {
			g.AntiKey, g.MaxPerNode = i, 1+rng.IntN(3)
		}
		p.Groups = append(p.Groups, g)
	}
	return p
}

// TestMediumRandom solves six random medium instances (half of them with
// overhead, one with limits) and checks the bound against the volume LP,
// the plan, and both baselines (Karpenter against ours).
func TestMediumRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 4242))
	for it := range 6 {
		p := mediumInstance(rng, it%2 == 1)
		name := fmt.Sprintf("medium %d (overhead %v)", it, it%2 == 1)
		if it == 4 { // limits on 8 types (the volume LP without them is weaker, still a bound)
			for _, k := range rng.Perm(len(p.Types))[:8] {
				p.Types[k].Limit = 1 + rng.IntN(4)
			}
			name += " with limits"
		}
		r, err := fleet.Solve(context.Background(), p, quick())
		if err != nil {
			t.Errorf("%s: Solve: %v", name, err)
			continue
		}
		checkResult(t, name, p, r)
		checkKarpenter(t, name, p, r)
		checkVolume(t, name, p, r)
	}
}

// ------------------------------------------------------------ AWS catalog

// awsCatalog reads the shared EC2 catalog with encoding/csv (name, family,
// vcpus, memory_mib, gpus, arch, on_demand_usd_per_hour) into types on
// cpu, memory (GiB), gpu and pods (110 each), and their architectures.
func awsCatalog(t testing.TB) ([]fleet.Type, []string) {
	t.Helper()
	path := shareddata.Path(t, "catalogs/aws-ec2-us-east-1.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"name", "vcpus", "memory_mib", "gpus", "arch", "on_demand_usd_per_hour"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s: no column %s in %v", path, h, rows[0])
		}
	}
	num := func(r []string, h string) float64 {
		v, err := strconv.ParseFloat(r[col[h]], 64)
		if err != nil {
			t.Fatalf("%s: %s %q: %v", path, h, r[col[h]], err)
		}
		return v
	}
	var types []fleet.Type
	var arch []string
	for _, r := range rows[1:] {
		types = append(types, fleet.Type{Name: r[col["name"]],
			Cap:   []float64{num(r, "vcpus"), num(r, "memory_mib") / 1024, num(r, "gpus"), 110},
			Price: num(r, "on_demand_usd_per_hour")})
		arch = append(arch, r[col["arch"]])
	}
	if len(types) < 1000 {
		t.Fatalf("%s: %d types", path, len(types))
	}
	return types, arch
}

// awsInstance is about pods pods in about pods/33 groups against the
// catalog: half the groups amd64 only, a few GPU groups on amd64 GPU types
// only, a few with anti-affinity; overhead adds a DaemonSet to every type.
func awsInstance(rng *rand.Rand, types []fleet.Type, arch []string, pods int, overhead bool) *fleet.Problem {
	p := &fleet.Problem{Dims: []string{"cpu", "memory", "gpu", "pods"}, Types: types}
	amd := make([]bool, len(types))
	gpu := make([]bool, len(types))
	for k, ty := range types {
		amd[k] = arch[k] == "amd64"
		gpu[k] = amd[k] && ty.Cap[2] >= 1
	}
	n := 0
	for i := 0; n < pods; i++ {
		cpu := []float64{0.1, 0.25, 0.5, 1, 2, 4}[rng.IntN(6)]
		mem := math.Round(cpu*[]float64{1, 2, 4, 8}[rng.IntN(4)]*(0.5+rng.Float64())*100) / 100
		g := fleet.Group{Name: fmt.Sprintf("g%d", i), Demand: []float64{cpu, mem, 0, 1}, Count: 1 + rng.IntN(66), AntiKey: -1}
		switch {
		case i%20 == 3:
			g.Demand[2], g.Count, g.Allowed, g.Why = 1, 1+rng.IntN(8), gpu, "nvidia.com/gpu"
		case rng.IntN(2) == 0:
			g.Allowed, g.Why = amd, "kubernetes.io/arch=amd64"
		}
		if rng.IntN(10) == 0 {
			g.AntiKey, g.MaxPerNode = i, 1+rng.IntN(4)
		}
		p.Groups = append(p.Groups, g)
		n += g.Count
	}
	if overhead {
		p.Overhead = make([][]float64, len(types))
		for k := range types {
			p.Overhead[k] = []float64{0.1, 0.3, 0, 4}
		}
	}
	return p
}

// TestAWSCatalog: ~2,000 pods in ~60 groups against the real catalog, with
// and without DaemonSet overhead; the bound against the volume LP.
func TestAWSCatalog(t *testing.T) {
	types, arch := awsCatalog(t)
	for _, overhead := range []bool{false, true} {
		t.Run(fmt.Sprintf("overhead=%v", overhead), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2026, 1))
			p := awsInstance(rng, types, arch, 2000, overhead)
			r, err := fleet.Solve(context.Background(), p, quick())
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			name := fmt.Sprintf("aws %d groups", len(p.Groups))
			checkResult(t, name, p, r)
			checkKarpenter(t, name, p, r)
			checkVolume(t, name, p, r)
			t.Logf("types usable %d, dominated %d, iterations %d, columns %d, Karpenter %.3fs", r.TypesUsable, r.TypesDominated, r.Iterations, r.Columns, r.KarpenterSeconds)
		})
	}
}

// BenchmarkSolveAWS times Solve (default options) on 2,000 pods (or
// PLACELAB_FLEET_PODS) against the AWS catalog, beside its Karpenter
// baseline.
func BenchmarkSolveAWS(b *testing.B) {
	types, arch := awsCatalog(b)
	pods := 2000
	if s := os.Getenv("PLACELAB_FLEET_PODS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		pods = n
	}
	p := awsInstance(rand.New(rand.NewPCG(2026, 1)), types, arch, pods, false)
	var r *fleet.Result
	karp := 0.0
	b.ResetTimer()
	for b.Loop() {
		var err error
		r, err = fleet.Solve(context.Background(), p, fleet.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		karp += r.KarpenterSeconds
	}
	b.ReportMetric(karp/float64(b.N), "karpenter-s/op")
	b.ReportMetric(r.Plan.Cost, "plan-$/h")
	b.ReportMetric(r.LowerBound, "lb-$/h")
	b.ReportMetric(r.Karpenter.Cost, "karpenter-$/h")
	b.ReportMetric(r.GapPct, "gap-%")
	b.Logf("%d pods, %d groups: lb %.2f (lp %.2f vol %.2f) plan %.2f (%s, %d nodes) gap %.2f%% karpenter %.2f best single %.2f (%s) usable %d dominated %d converged %v stop %s iterations %d columns %d %.1fs karpenter %.3fs",
		r.Placed, len(p.Groups), r.LowerBound, r.LPBound, r.VolumeBound, r.Plan.Cost, r.Source, len(r.Plan.Nodes), r.GapPct,
		r.Karpenter.Cost, r.BestSingle.Cost, r.BestSingleType, r.TypesUsable, r.TypesDominated, r.Converged, r.Stop,
		r.Iterations, r.Columns, r.Seconds, r.KarpenterSeconds)
}

// -------------------------------------------------------------- edge cases

func twoTypes() []fleet.Type {
	return []fleet.Type{
		{Name: "small", Cap: []float64{2, 8}, Price: 1},
		{Name: "large", Cap: []float64{8, 32}, Price: 3.5},
	}
}

// TestNoPods: groups without pods (and none at all) give an empty fleet
// of cost 0.
func TestNoPods(t *testing.T) {
	for _, groups := range [][]fleet.Group{
		nil,
		{{Name: "a", Demand: []float64{1, 1}, AntiKey: -1}, {Name: "b", Demand: []float64{100, 1}, AntiKey: -1}},
	} {
		p := &fleet.Problem{Dims: []string{"cpu", "memory"}, Types: twoTypes(), Groups: groups}
		r, err := fleet.Solve(context.Background(), p, quick())
		if err != nil {
			t.Fatalf("%d groups: %v", len(groups), err)
		}
		if len(r.Plan.Nodes) != 0 || r.Plan.Cost != 0 || r.LowerBound != 0 || r.Placed != 0 || len(r.Unplaceable) != 0 {
			t.Errorf("%d groups: plan %d nodes cost %g, bound %g, placed %d, unplaceable %v", len(groups),
				len(r.Plan.Nodes), r.Plan.Cost, r.LowerBound, r.Placed, r.Unplaceable)
		}
		if err := fleet.Check(p, &r.Plan); err != nil {
			t.Errorf("%d groups: %v", len(groups), err)
		}
	}
}

// TestUnplaceableReason: a group too large for every type is reported with
// the dimension that refuses it; one allowed nowhere with its constraint;
// the rest is planned.
func TestUnplaceableReason(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"}, Types: twoTypes(), Groups: []fleet.Group{
		{Name: "ok", Demand: []float64{1, 2}, Count: 2, AntiKey: -1},
		{Name: "bigmem", Demand: []float64{1, 64}, Count: 2, AntiKey: -1},
		{Name: "bigcpu", Demand: []float64{16, 1}, Count: 1, AntiKey: -1},
		{Name: "nowhere", Demand: []float64{1, 1}, Count: 1, AntiKey: -1, Allowed: []bool{false, false}, Why: "zone=moon"},
		// Fits large alone, but only small is allowed.
		{Name: "smallonly", Demand: []float64{4, 1}, Count: 1, AntiKey: -1, Allowed: []bool{true, false}},
	}}
	r, err := fleet.Solve(context.Background(), p, quick())
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, "unplaceable", p, r)
	want := map[string]string{"bigmem": "memory", "bigcpu": "cpu", "nowhere": "zone=moon", "smallonly": "cpu"}
	for _, u := range r.Unplaceable {
		if w, ok := want[u.Name]; !ok || !strings.Contains(u.Reason, w) {
			t.Errorf("unplaceable %s: reason %q, want it to name %q", u.Name, u.Reason, w)
		}
		if u.Name == "bigmem" && strings.Contains(u.Reason, "cpu") {
			t.Errorf("bigmem: reason %q names cpu, which fits", u.Reason)
		}
	}
	if len(r.Unplaceable) != len(want) {
		t.Errorf("unplaceable %v", r.Unplaceable)
	}
	if r.Placed != 2 || r.Plan.Cost != 1 { // two 1-cpu pods on one small node
		t.Errorf("placed %d, plan cost %g, want 2 and 1", r.Placed, r.Plan.Cost)
	}
}

// TestUnplaceableOverhead: a group that fits the allocatable but not what
// the overhead leaves is unplaceable, and so is everything on a type whose
// overhead alone exceeds it.
func TestUnplaceableOverhead(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"}, Types: twoTypes(),
		Overhead: [][]float64{{3, 0}, {0.5, 1}}, // small: overhead does not fit
		Groups: []fleet.Group{
			{Name: "fits", Demand: []float64{7.5, 2}, Count: 1, AntiKey: -1},
			{Name: "tight", Demand: []float64{7.6, 2}, Count: 1, AntiKey: -1},
			{Name: "smallonly", Demand: []float64{1, 1}, Count: 1, AntiKey: -1, Allowed: []bool{true, false}},
		}}
	r, err := fleet.Solve(context.Background(), p, quick())
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, "overhead", p, r)
	if got := gotUnplaceable(r); !slices.Equal(got, []string{"smallonly", "tight"}) {
		t.Errorf("unplaceable %v, want [smallonly tight]", got)
	}
	if r.Plan.Cost != 3.5 {
		t.Errorf("plan cost %g, want 3.5", r.Plan.Cost)
	}
}

// TestInvalid: bad prices and capacities are refused by Validate and Solve.
func TestInvalid(t *testing.T) {
	base := func() *fleet.Problem {
		return &fleet.Problem{Dims: []string{"cpu", "memory"}, Types: twoTypes(),
			Groups: []fleet.Group{{Name: "a", Demand: []float64{1, 1}, Count: 2, AntiKey: -1}}}
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("base: %v", err)
	}
	cases := map[string]func(p *fleet.Problem){
		"price 0":           func(p *fleet.Problem) { p.Types[0].Price = 0 },
		"price < 0":         func(p *fleet.Problem) { p.Types[1].Price = -1 },
		"price NaN":         func(p *fleet.Problem) { p.Types[1].Price = math.NaN() },
		"price +Inf":        func(p *fleet.Problem) { p.Types[1].Price = math.Inf(1) },
		"cap NaN":           func(p *fleet.Problem) { p.Types[0].Cap[1] = math.NaN() },
		"cap +Inf":          func(p *fleet.Problem) { p.Types[0].Cap[0] = math.Inf(1) },
		"cap < 0":           func(p *fleet.Problem) { p.Types[0].Cap[0] = -1 },
		"cap short":         func(p *fleet.Problem) { p.Types[0].Cap = []float64{1} },
		"limit < 0":         func(p *fleet.Problem) { p.Types[0].Limit = -1 },
		"duplicate type":    func(p *fleet.Problem) { p.Types[1].Name = "small" },
		"demand NaN":        func(p *fleet.Problem) { p.Groups[0].Demand[0] = math.NaN() },
		"demand < 0":        func(p *fleet.Problem) { p.Groups[0].Demand[1] = -0.5 },
		"count < 0":         func(p *fleet.Problem) { p.Groups[0].Count = -1 },
		"allowed short":     func(p *fleet.Problem) { p.Groups[0].Allowed = []bool{true} },
		"anti without max":  func(p *fleet.Problem) { p.Groups[0].AntiKey = 0 },
		"overhead NaN":      func(p *fleet.Problem) { p.Overhead = [][]float64{{math.NaN(), 0}, nil} },
		"overhead < 0":      func(p *fleet.Problem) { p.Overhead = [][]float64{nil, {0, -1}} },
		"overheads short":   func(p *fleet.Problem) { p.Overhead = [][]float64{{0, 0}} },
		"no types":          func(p *fleet.Problem) { p.Types = nil; p.Groups[0].Allowed = nil },
		"no dimensions":     func(p *fleet.Problem) { p.Dims = nil },
		"empty group name":  func(p *fleet.Problem) { p.Groups[0].Name = "" },
		"duplicate group":   func(p *fleet.Problem) { p.Groups = append(p.Groups, p.Groups[0]) },
		"empty type name":   func(p *fleet.Problem) { p.Types[0].Name = "" },
		"demand dimensions": func(p *fleet.Problem) { p.Groups[0].Demand = []float64{1, 1, 1} },
	}
	for name, mod := range cases {
		p := base()
		mod(p)
		if err := p.Validate(); !errors.Is(err, fleet.ErrInvalid) {
			t.Errorf("%s: Validate %v, want ErrInvalid", name, err)
		}
		if _, err := fleet.Solve(context.Background(), p, quick()); err == nil {
			t.Errorf("%s: Solve accepted it", name)
		}
	}
	bad := quick()
	bad.TimeLimit = 0
	if _, err := fleet.Solve(context.Background(), base(), bad); err == nil {
		t.Errorf("time limit 0 accepted")
	}
}

// TestLimit: the cheap type is limited to 2 nodes; the plan must use at
// most 2 of it and is then 2 small + 3 large (the optimum); Karpenter,
// which knows no limits, is no fleet.
func TestLimit(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"},
		Types: []fleet.Type{
			{Name: "cheap", Cap: []float64{4, 16}, Price: 1, Limit: 2},
			{Name: "dear", Cap: []float64{4, 16}, Price: 3},
		},
		Groups: []fleet.Group{{Name: "a", Demand: []float64{2, 4}, Count: 10, AntiKey: -1}}}
	r, err := fleet.Solve(context.Background(), p, quick())
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, "limit", p, r)
	if n := typeCounts(p, fleetTypes(&r.Plan))["cheap"]; n > 2 {
		t.Errorf("plan uses %d cheap nodes, limit 2", n)
	}
	if opt, _, _ := exactOptimum(p); math.Abs(r.Plan.Cost-opt) > 1e-9 || opt != 11 {
		t.Errorf("plan %g, optimum %g, want 11", r.Plan.Cost, opt)
	}
	if len(r.Karpenter.Nodes) != 0 {
		t.Errorf("Karpenter %v over the limit", typeCounts(p, fleetTypes(&r.Karpenter)))
	}
	if r.LowerBound > 11+1e-9 {
		t.Errorf("bound %g > 11", r.LowerBound)
	}
}

// TestLimitFinePrices: a feasible instance with a binding limit, solved
// with prices in cents and with prices finer than a millionth. The only
// fleet is one node of each type (the four pods of a fit only on lim, which
// holds one node; b does not fit beside them).
//
// FAILS (package bug, not fixed here): with the finer prices Solve returns
// "fleet: no fleet found". The Karpenter baseline exceeds lim's limit (no
// fleet), no single type holds everything, the flow rounding exceeds the
// limit, and lpbound runs its integer master only when every price is a
// whole number of millionths (lpProblem's scale), so no packing comes back.
func TestLimitFinePrices(t *testing.T) {
	for _, prices := range [][2]float64{{15.89, 5.21}, {15.8923615, 5.2184236}, {15.892361556813238, 5.21842366113461}} {
		p := &fleet.Problem{Dims: []string{"cpu", "memory"},
			Types: []fleet.Type{{Name: "big", Cap: []float64{8, 5}, Price: prices[0]}, {Name: "lim", Cap: []float64{6, 8}, Price: prices[1], Limit: 1}},
			Groups: []fleet.Group{
				{Name: "a", Demand: []float64{1, 0.5}, Count: 4, Allowed: []bool{false, true}, AntiKey: -1},
				{Name: "b", Demand: []float64{3.5, 1}, Count: 1, AntiKey: -1},
			}}
		opt, counts, ok := exactOptimum(p)
		if !ok || !slices.Equal(counts, []int{1, 1}) {
			t.Fatalf("prices %v: optimum %v %v %v, want one node of each", prices, opt, counts, ok)
		}
		r, err := fleet.Solve(context.Background(), p, quick())
		if err != nil {
			t.Errorf("prices %v: Solve: %v (the optimum, one node of each type, costs %.9g)", prices, err, opt)
			continue
		}
		checkResult(t, "fine prices", p, r)
		if math.Abs(r.Plan.Cost-opt) > 1e-9 {
			t.Errorf("prices %v: plan %.9g, optimum %.9g", prices, r.Plan.Cost, opt)
		}
	}
}

// TestInfeasibleLimit: limits that cannot hold the pods are an error, not
// a plan.
func TestInfeasibleLimit(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"},
		Types:  []fleet.Type{{Name: "only", Cap: []float64{4, 16}, Price: 1, Limit: 2}},
		Groups: []fleet.Group{{Name: "a", Demand: []float64{2, 4}, Count: 5, AntiKey: -1}}}
	r, err := fleet.Solve(context.Background(), p, quick())
	if err == nil {
		t.Errorf("5 pods of 2 cpu on 2 nodes of 4: plan %v cost %g (Check: %v)", typeCounts(p, fleetTypes(&r.Plan)), r.Plan.Cost, fleet.Check(p, &r.Plan))
	}
}

// TestAntiAffinity: one pod per node of a key shared by two groups.
func TestAntiAffinity(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"}, Types: twoTypes(),
		Groups: []fleet.Group{
			{Name: "a", Demand: []float64{0.5, 1}, Count: 3, AntiKey: 7, MaxPerNode: 1},
			{Name: "b", Demand: []float64{0.5, 1}, Count: 2, AntiKey: 7, MaxPerNode: 1},
		}}
	r, err := fleet.Solve(context.Background(), p, quick())
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, "anti", p, r)
	if len(r.Plan.Nodes) != 5 || r.Plan.Cost != 5 {
		t.Errorf("plan %v cost %g, want 5 small nodes", typeCounts(p, fleetTypes(&r.Plan)), r.Plan.Cost)
	}
	if r.LowerBound < 5-1e-6 {
		t.Logf("bound %g with 5 pods at most 1 per node (the volume bound alone says 1.25)", r.LowerBound)
	}
}

// TestDeterministic: the same instance solved twice gives the same plan
// (node types in order, cost, bound, source): 30 small instances and a
// medium one whose column generation stalls (after 20 iterations, ~3 s)
// well before its time limit: a run cut by the clock may differ by how far
// it got.
func TestDeterministic(t *testing.T) {
	key := func(r *fleet.Result) string {
		b, _ := json.Marshal(struct {
			Types      []int
			Cost       float64
			LowerBound float64
			Source     string
		}{fleetTypes(&r.Plan), r.Plan.Cost, r.LowerBound, r.Source})
		return string(b)
	}
	for it := range 31 {
		var prev string
		for run := range 2 {
			var p *fleet.Problem
			if it < 30 {
				rng := rand.New(rand.NewPCG(uint64(it), 99))
				p = smallInstance(rng)
				if _, _, ok := exactOptimum(p); !ok {
					break
				}
			} else {
				p = mediumInstance(rand.New(rand.NewPCG(1, 99)), false)
			}
			o := quick()
			o.TimeLimit = 30 * time.Second // column generation stalls (in ~3 s) long before
			r, err := fleet.Solve(context.Background(), p, o)
			if err != nil {
				t.Fatalf("instance %d: %v", it, err)
			}
			if run == 1 && key(r) != prev {
				t.Errorf("instance %d: run 1 %s, run 2 %s", it, prev, key(r))
			}
			prev = key(r)
			if it == 30 && run == 0 {
				t.Logf("medium: %d types, %d groups: converged %v, stop %s, %.1fs lns %d/%d src %s cost %g", len(p.Types), len(p.Groups), r.Converged, r.Stop, r.Seconds, r.LNSImproved, r.LNSTried, r.Source, r.Plan.Cost)
			}
		}
	}
}

// TestCheckRejects: the Check every test relies on refuses broken fleets.
func TestCheckRejects(t *testing.T) {
	p := &fleet.Problem{Dims: []string{"cpu", "memory"},
		Types: []fleet.Type{
			{Name: "small", Cap: []float64{2, 8}, Price: 1, Limit: 1},
			{Name: "large", Cap: []float64{8, 32}, Price: 3.5},
		},
		Overhead: [][]float64{nil, {1, 0}},
		Groups: []fleet.Group{
			{Name: "a", Demand: []float64{1, 1}, Count: 2, AntiKey: 0, MaxPerNode: 1},
			{Name: "b", Demand: []float64{2, 2}, Count: 1, AntiKey: -1, Allowed: []bool{false, true}},
		}}
	good := fleet.Fleet{Nodes: []fleet.Node{
		{Type: 0, Groups: []int{0}, Counts: []int{1}},
		{Type: 1, Groups: []int{0, 1}, Counts: []int{1, 1}},
	}, Cost: 4.5}
	if err := fleet.Check(p, &good); err != nil {
		t.Fatalf("good fleet: %v", err)
	}
	bad := map[string]fleet.Fleet{
		"missing pod": {Nodes: []fleet.Node{{Type: 1, Groups: []int{0, 1}, Counts: []int{1, 1}}}, Cost: 3.5},
		"extra pod": {Nodes: []fleet.Node{{Type: 0, Groups: []int{0}, Counts: []int{1}},
			{Type: 1, Groups: []int{0, 1}, Counts: []int{1, 2}}}, Cost: 4.5},
		"not allowed": {Nodes: []fleet.Node{{Type: 0, Groups: []int{1}, Counts: []int{1}},
			{Type: 1, Groups: []int{0}, Counts: []int{1}}, {Type: 1, Groups: []int{0}, Counts: []int{1}}}, Cost: 8},
		"anti-affinity": {Nodes: []fleet.Node{{Type: 1, Groups: []int{0, 1}, Counts: []int{2, 1}}}, Cost: 3.5},
		"over limit": {Nodes: []fleet.Node{{Type: 0, Groups: []int{0}, Counts: []int{1}},
			{Type: 0, Groups: []int{0}, Counts: []int{1}}, {Type: 1, Groups: []int{1}, Counts: []int{1}}}, Cost: 5.5},
		"wrong cost": {Nodes: good.Nodes, Cost: 4},
	}
	// Over the overhead: 1 + 7.5 cpu of pods on a large node that has
	// 8 − 1 = 7 free once its DaemonSet runs.
	p2 := *p
	p2.Groups = slices.Clone(p.Groups)
	p2.Groups[1].Demand = []float64{6.5, 2}
	if err := fleet.Check(&p2, &fleet.Fleet{Nodes: []fleet.Node{{Type: 0, Groups: []int{0}, Counts: []int{1}},
		{Type: 1, Groups: []int{0, 1}, Counts: []int{1, 1}}}, Cost: 4.5}); err == nil {
		t.Errorf("over overhead: 7.5 cpu on a large node with 7 free accepted")
	}
	for name, f := range bad {
		if err := fleet.Check(p, &f); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestOracle checks exactOptimum (its cost order, volume cut and symmetry
// breaking) against naiveOptimum on tiny instances (at most 8 pods).
func TestOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 55))
	agree, none := 0, 0
	for it := range 300 {
		p := smallInstance(rng)
		left := 8
		for g := range p.Groups {
			p.Groups[g].Count = min(p.Groups[g].Count, left)
			left -= p.Groups[g].Count
		}
		opt, _, ok := exactOptimum(p)
		nopt, nok := naiveOptimum(p)
		if ok != nok || ok && math.Abs(opt-nopt) > 1e-9 {
			t.Errorf("tiny %d: exactOptimum %g (%v), naive %g (%v): %s", it, opt, ok, nopt, nok, dump(p))
			continue
		}
		agree++
		if !ok {
			none++
		}
	}
	t.Logf("exactOptimum = naive on %d/300 tiny instances (%d with no fleet)", agree, none)
}
