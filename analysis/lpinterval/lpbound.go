package lpinterval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// Snapshot is the interval in which the best packing of the VMs a run held
// at one moment lies, set beside what the run's policy did with them.
//
// Both bounds come from the configuration LP over the zone's machines (per
// SKU capacities and VM demands, the zone's machine count per SKU; fault
// domains, isolation and the other soft rules relaxed), solved twice: once
// counting machines, once with every machine costing its cores.
//   - LB: ⌈LP⌉ (a Farley/Lagrangian bound, valid however column generation
//     ended): no packing of these VMs uses fewer machines (cores).
//   - UB: the machines (cores) of a packing that exists — the integer master
//     over the generated patterns, repaired greedily, and never worse than
//     the run's own packing at that moment (0 in the rare case that no
//     packing was found in time and the run's own exceeds a machine).
//
// Density is Protean §6.3's packing density, allocated cores / cores of the
// non-empty machines; LBDensity ≤ the best achievable ≤ UBDensity.
type Snapshot struct {
	T              float64 `json:"t_s"`
	VMs            int     `json:"vms"`
	AllocatedCores float64 `json:"allocated_cores"`
	OnlineMachines int     `json:"online_machines"`
	OnlineCores    float64 `json:"online_cores"` // cores of the run's non-empty machines
	OnlineDensity  float64 `json:"online_density"`
	LBMachines     float64 `json:"lb_machines"`
	UBMachines     float64 `json:"ub_machines"`
	LBCores        float64 `json:"lb_cores"`
	UBCores        float64 `json:"ub_cores"`
	// LBDensity = AllocatedCores / UBCores: a packing this dense exists.
	LBDensity float64 `json:"lb_density"`
	// UBDensity = AllocatedCores / LBCores: no packing is denser.
	UBDensity float64 `json:"ub_density"`
	// EmptiableMachines = OnlineMachines − UBMachines: machines the online
	// allocator could have emptied (a packing of the same VMs on that many
	// fewer machines exists).
	EmptiableMachines float64 `json:"emptiable_machines"`
	// IntervalGapPct = 100 (UB − LB) / LB on machines: how far the interval
	// is from proving the optimum.
	IntervalGapPct float64 `json:"interval_gap_pct"`
	LPMachines     float64 `json:"lp_machines"` // value of the last master LP, machines
	LPCores        float64 `json:"lp_cores"`
	// Converged: both LPs were solved to optimality (column generation
	// converged, or the rounded bound was proven); otherwise the LB is a
	// valid but possibly weaker bound.
	Converged bool `json:"converged"`
	// Stop says how each solve ended: "machines: converged, cores: proven".
	Stop string `json:"stop"`
	// OnlineOverCapacity: the run's packing at T exceeds some machine's
	// capacity (placelab check --run lists where), so it could not seed UB.
	OnlineOverCapacity bool    `json:"online_over_capacity,omitempty"`
	Iterations         int     `json:"iterations"`
	Columns            int     `json:"columns"`
	Seconds            float64 `json:"seconds"`
	// PackingRun is the offline run that stores the UB packing on
	// machines, when one was stored (LPBoundOptions.Packings).
	PackingRun int64 `json:"packing_run,omitempty"`
}

// Result is the interval over a run's snapshots.
type Result struct {
	Run       int64      `json:"run_id"`
	Dataset   string     `json:"dataset"`
	Policy    string     `json:"policy"`
	Engine    string     `json:"engine"` // the run's: a replay's engine, or observed (the source's own placement)
	Every     float64    `json:"every_s"`
	From      float64    `json:"from_s"` // the run's first placement: the first snapshot
	Snapshots []Snapshot `json:"snapshots"`
	// Over the snapshots with VMs, densities weighted by allocated cores
	// (Σ allocated cores / Σ the cores that hold them: online, UB's, LB's),
	// so a snapshot of one VM weighs what its VM weighs; MeanEmptiable is
	// the plain mean of the machines the online allocator could have
	// emptied.
	MeanOnlineDensity float64 `json:"mean_online_density"`
	MeanLBDensity     float64 `json:"mean_lb_density"`
	MeanUBDensity     float64 `json:"mean_ub_density"`
	MeanEmptiable     float64 `json:"mean_emptiable_machines"`
	MaxIntervalGapPct float64 `json:"max_interval_gap_pct"`
	Bounded           int     `json:"bounded"`   // snapshots with VMs
	Converged         int     `json:"converged"` // of those, both LPs optimal
	Seconds           float64 `json:"seconds"`
}

// Packings says which UB packings LPBoundRun stores as offline runs.
const (
	PackingsPeak = "peak" // the snapshot with the most allocated cores
	PackingsAll  = "all"
	PackingsNone = "none"
)

// Options tune LPBoundRun; start from DefaultOptions.
type Options struct {
	// Run is the stored run whose snapshots are bounded (For sets it).
	Run int64
	// Every is the time between snapshots, in seconds (> 0); the first is
	// at the run's first placement.
	Every float64
	// Solve applies to every LP (its Objective, Initial and Incumbent are
	// set per snapshot); a solve that stops on its TimeLimit still gives
	// a valid, weaker LB.
	Solve lpbound.Options
	// Packings: PackingsPeak, PackingsAll or PackingsNone.
	Packings string
	// Progress, if set, is called with snapshots done and the total.
	Progress func(done, total int64)
}

// DefaultTimeLimit bounds each LP solve by default.
const DefaultTimeLimit = 30 * time.Second

// DefaultOptions: hourly snapshots, DefaultTimeLimit per solve,
// the peak snapshot's packing stored.
func DefaultOptions() Options {
	return Options{Every: 3600, Solve: lpbound.Options{TimeLimit: DefaultTimeLimit}, Packings: PackingsPeak}
}

// Validate refuses values out of range.
func (o Options) Validate() error {
	if !(o.Every > 0) || math.IsInf(o.Every, 0) {
		return fmt.Errorf("analysis: lpbound: every = %v s, want a finite time > 0", o.Every)
	}
	if o.Solve.TimeLimit < 0 {
		return fmt.Errorf("analysis: lpbound: time limit %v < 0", o.Solve.TimeLimit)
	}
	switch o.Packings {
	case PackingsPeak, PackingsAll, PackingsNone:
	default:
		return fmt.Errorf("analysis: lpbound: packings %q, want %s, %s or %s", o.Packings, PackingsPeak, PackingsAll, PackingsNone)
	}
	return nil
}

// lpMetrics are the run_metric names LPBoundRun writes per snapshot.
var lpMetrics = []string{"lp_vms", "lp_allocated_cores", "lp_online_machines", "lp_online_cores", "lp_online_density",
	"lp_lb_machines", "lp_ub_machines", "lp_lb_cores", "lp_ub_cores", "lp_lb_density", "lp_ub_density",
	"lp_emptiable_machines", "lp_converged"}

func (s *Snapshot) metrics() []float64 {
	return []float64{float64(s.VMs), s.AllocatedCores, float64(s.OnlineMachines), s.OnlineCores, s.OnlineDensity,
		s.LBMachines, s.UBMachines, s.LBCores, s.UBCores, s.LBDensity, s.UBDensity,
		s.EmptiableMachines, analysis.BoolNum(s.Converged)}
}

// SnapshotTimes are the snapshot times of a run whose first placement is
// at from and last sample at last: from, from + every, … ≤ last.
func SnapshotTimes(from, last, every float64) []float64 {
	var times []float64
	for i := 0; ; i++ {
		t := from + float64(i)*every
		if t > last+1e-9 {
			break
		}
		times = append(times, t)
	}
	return times
}

// lpZone is the LP form of a trace's inventory.
type lpZone struct {
	inv  *optimizer.Inventory
	Bins []lpbound.BinType
	SKUs []int // SKU of each bin
	Dims []optimizer.Dim
}

func NewZone(inv *optimizer.Inventory) *lpZone {
	bins, skus, dims := lpBins(inv)
	dims = bindingDims(inv, skus, dims)
	for i, k := range skus {
		c := make([]float64, len(dims))
		for j, d := range dims {
			c[j] = inv.SKUs[k].Capacity[d]
		}
		bins[i].Capacity = c
	}
	return &lpZone{inv: inv, Bins: bins, SKUs: skus, Dims: dims}
}

// lpAlive is the VMs a run held at one moment.
type lpAlive struct {
	snap   Snapshot
	counts []int     // per VM type
	vms    [][]int64 // per VM type: the VMs, by id
	online []lpbound.Pattern
}

// alive collects the stays that cover t.
func (z *lpZone) alive(stays []analysis.Stay, t float64) *lpAlive {
	inv := z.inv
	a := &lpAlive{snap: Snapshot{T: t}, counts: make([]int, len(inv.Types)), vms: make([][]int64, len(inv.Types))}
	perMachine := map[int32][]int{} // machine → VM type counts
	for _, s := range stays {
		if !(s.From <= t && t < s.To) {
			continue
		}
		a.counts[s.Type]++
		a.vms[s.Type] = append(a.vms[s.Type], s.VM)
		a.snap.VMs++
		d, _ := inv.Demand(s.Type, s.Machine)
		a.snap.AllocatedCores += d[optimizer.Cores]
		c := perMachine[s.Machine]
		if c == nil {
			c = make([]int, len(inv.Types))
			perMachine[s.Machine] = c
		}
		c[s.Type]++
	}
	for _, v := range a.vms {
		slices.Sort(v)
	}
	// The run's own packing, as whole machines per pattern.
	byKey := map[string]int{}
	machines := make([]int32, 0, len(perMachine))
	for m := range perMachine {
		machines = append(machines, m)
	}
	slices.Sort(machines)
	for _, m := range machines {
		a.snap.OnlineMachines++
		a.snap.OnlineCores += inv.Capacity(m)[optimizer.Cores]
		p := lpbound.Pattern{Bin: inv.SKUs[inv.Machines[m].SKU].Name, X: 1}
		var key strings.Builder
		key.WriteString(p.Bin)
		for t, n := range perMachine[m] {
			if n > 0 {
				p.Items = append(p.Items, inv.Types[t].Name)
				p.Counts = append(p.Counts, n)
				fmt.Fprintf(&key, " %d:%d", t, n)
			}
		}
		if j, ok := byKey[key.String()]; ok {
			a.online[j].X++
			continue
		}
		byKey[key.String()] = len(a.online)
		a.online = append(a.online, p)
	}
	if a.snap.OnlineCores > 0 {
		a.snap.OnlineDensity = a.snap.AllocatedCores / a.snap.OnlineCores
	}
	return a
}

// lpSolved is one snapshot's two solves.
type lpSolved struct {
	machines, cores *lpbound.Result
}

// solve bounds one snapshot (counting machines, then cores), each solve
// seeded with the previous snapshot's patterns and the run's own packing.
func (z *lpZone) solve(ctx context.Context, a *lpAlive, opts lpbound.Options, prev *lpSolved) (*lpSolved, error) {
	p := &lpbound.Problem{Bins: z.Bins, Items: Items(z.inv, a.counts, z.SKUs, z.Dims)}
	out := &lpSolved{}
	for _, obj := range []lpbound.Objective{lpbound.MinCount, lpbound.MinCost} {
		o := opts
		o.Objective, o.Incumbent = obj, a.online
		if prev != nil {
			// The previous snapshot's LP support: carrying every
			// column (each snapshot adds the run's own machines)
			// grew the master to thousands of columns.
			from := prev.machines.Patterns
			if obj == lpbound.MinCost {
				from = prev.cores.Patterns
			}
			o.Initial = support(from)
		}
		r, err := lpbound.Solve(ctx, p, o)
		if errors.Is(err, lpbound.ErrInvalid) && o.Incumbent != nil {
			// The run's packing does not fit the machines (an
			// over-committed run): bound without it.
			a.snap.OnlineOverCapacity = true
			o.Incumbent = nil
			r, err = lpbound.Solve(ctx, p, o)
		}
		if err != nil && !errors.Is(err, lpbound.ErrTimeLimit) {
			return nil, fmt.Errorf("analysis: lpbound at t=%.0fs: %w", a.snap.T, err)
		}
		if obj == lpbound.MinCount {
			out.machines = r
		} else {
			out.cores = r
		}
	}
	s := &a.snap
	rm, rc := out.machines, out.cores
	// The machines in use hold at least the allocated cores: the volume
	// bound, valid whatever the LP reached.
	s.LBCores = math.Max(rc.Bound, math.Ceil(s.AllocatedCores-1e-9))
	s.LBMachines = math.Max(rm.Bound, 1)
	s.UBMachines, s.UBCores = rm.Upper, rc.Upper
	// No packing found in time: the run's own, if it fits the machines;
	// otherwise UB stays 0, unknown.
	if rm.Packing == nil && !s.OnlineOverCapacity {
		s.UBMachines = float64(s.OnlineMachines)
	}
	if rc.Packing == nil && !s.OnlineOverCapacity {
		s.UBCores = s.OnlineCores
	}
	s.LPMachines, s.LPCores = rm.LP, rc.LP
	s.Iterations, s.Columns = rm.Iterations+rc.Iterations, rm.Columns+rc.Columns
	s.Converged = Optimal(rm) && Optimal(rc)
	s.Stop = fmt.Sprintf("machines: %s, cores: %s", rm.Stop, rc.Stop)
	s.Seconds = rm.Seconds + rc.Seconds
	if s.UBCores > 0 {
		s.LBDensity = s.AllocatedCores / s.UBCores
	}
	if s.LBCores > 0 {
		s.UBDensity = s.AllocatedCores / s.LBCores
	}
	if s.UBMachines > 0 {
		s.EmptiableMachines = float64(s.OnlineMachines) - s.UBMachines
		s.IntervalGapPct = 100 * (s.UBMachines - s.LBMachines) / s.LBMachines
	}
	return out, nil
}

// support is the patterns with x > 0 in the last master solution.
func support(ps []lpbound.Pattern) []lpbound.Pattern {
	var out []lpbound.Pattern
	for _, p := range ps {
		if p.X > 1e-9 {
			out = append(out, p)
		}
	}
	return out
}

func Optimal(r *lpbound.Result) bool {
	return r.Stop == lpbound.StopConverged || r.Stop == lpbound.StopProven
}

// For is o bounding stored run id.
func (o Options) For(run int64) Options {
	o.Run = run
	return o
}

// Run bounds a stored run at snapshots from its first placement,
// every opts.Every seconds up to its last sample or placement: over the VMs the run held
// then, the LB and UB on machines and on cores beside the run's
// own figures (Snapshot). It stores them in run_metric (lpMetrics), replacing those a
// previous call stored, and stores the UB packings opts.Packings asks for
// as offline runs (engine "offline"; earlier offline runs of this run are
// replaced). Consecutive snapshots share most VM types, so each solve
// starts from the previous one's patterns.
func Run(ctx context.Context, db *store.DB, opts Options) (*Result, error) {
	run := opts.Run
	start := time.Now()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	rep := &Result{Run: run, Every: opts.Every, Snapshots: []Snapshot{}}
	lr, err := analysis.LoadRunStays(ctx, db, run)
	if err != nil {
		return nil, err
	}
	rep.Dataset, rep.Policy, rep.Engine = lr.Dataset, lr.Policy, lr.Engine
	rep.From = lr.From
	times := SnapshotTimes(lr.From, lr.Last, opts.Every)
	z := NewZone(lr.Trace.Inv)
	var prev *lpSolved
	type packed struct {
		snap int
		a    *lpAlive
		pk   []lpbound.Pattern
	}
	var packings []packed
	for i, t := range times {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(int64(i), int64(len(times)))
		}
		a := z.alive(lr.Stays, t)
		if a.snap.VMs > 0 {
			res, err := z.solve(ctx, a, opts.Solve, prev)
			if err != nil {
				return nil, err
			}
			prev = res
			if pk := res.machines.Packing; pk != nil {
				p := packed{len(rep.Snapshots), a, pk}
				switch {
				case opts.Packings == PackingsAll:
					packings = append(packings, p)
				case opts.Packings == PackingsPeak && (len(packings) == 0 || a.snap.AllocatedCores > packings[0].a.snap.AllocatedCores):
					packings = []packed{p}
				}
			}
		}
		rep.Snapshots = append(rep.Snapshots, a.snap)
	}
	if opts.Progress != nil {
		opts.Progress(int64(len(times)), int64(len(times)))
	}
	var alloc, online, ubCores, lbCores float64
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		rep.Bounded++
		if s.Converged {
			rep.Converged++
		}
		alloc += s.AllocatedCores
		online += s.OnlineCores
		ubCores += s.UBCores
		lbCores += s.LBCores
		rep.MeanEmptiable += s.EmptiableMachines
		rep.MaxIntervalGapPct = math.Max(rep.MaxIntervalGapPct, s.IntervalGapPct)
	}
	ratio := func(a, b float64) float64 {
		if b <= 0 {
			return 0
		}
		return a / b
	}
	rep.MeanOnlineDensity, rep.MeanLBDensity, rep.MeanUBDensity = ratio(alloc, online), ratio(alloc, ubCores), ratio(alloc, lbCores)
	if n := float64(rep.Bounded); n > 0 {
		rep.MeanEmptiable /= n
	}
	// Draw the offline runs' ids before the transaction.
	ids := make([]int64, len(packings))
	for i := range packings {
		if ids[i], err = db.NextRunID(ctx); err != nil {
			return nil, err
		}
		rep.Snapshots[packings[i].snap].PackingRun = ids[i]
		packings[i].a.snap.PackingRun = ids[i]
	}
	// Replace the run's lp_* rows: drop those at times this call has no
	// bound for, upsert the rest (DuckDB 1.1 cannot delete and re-insert a
	// key in one transaction), and replace its offline packings.
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		var keep []string
		for _, s := range rep.Snapshots {
			if s.VMs > 0 {
				keep = append(keep, strconv.FormatFloat(s.T, 'g', -1, 64))
			}
		}
		if err := w.Exec(store.MustQuery("lpbound_clear"), run, "["+strings.Join(keep, ",")+"]"); err != nil {
			return err
		}
		for _, q := range []string{"lpbound_drop_packing_placements", "lpbound_drop_packing_metrics", "lpbound_drop_packing_runs"} {
			if err := w.Exec(store.MustQuery(q), run); err != nil {
				return err
			}
		}
		var ts, names, vals []string
		for _, s := range rep.Snapshots {
			if s.VMs == 0 {
				continue
			}
			for i, v := range s.metrics() {
				ts = append(ts, strconv.FormatFloat(s.T, 'g', -1, 64))
				names = append(names, strconv.Quote(lpMetrics[i]))
				vals = append(vals, strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		if len(ts) > 0 {
			list := func(xs []string) string { return "[" + strings.Join(xs, ",") + "]" }
			if err := w.Exec(store.MustQuery("lpbound_upsert"), run, list(ts), list(names), list(vals)); err != nil {
				return err
			}
		}
		for i, p := range packings {
			if err := z.writePacking(w, ids[i], run, lr.Trace, p.a, p.pk, p.a.snap); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// writePacking stores a UB packing on machines as an offline run: every VM
// alive at the snapshot placed at its time on a machine of the pattern's
// SKU (machines of a SKU and VMs of a type taken in id order), so every
// view, placelab check and explain read it like a replay. It is pinned to
// the source run's load.
func (z *lpZone) writePacking(w *store.Writer, id, source int64, tr *replay.Trace, a *lpAlive, pk []lpbound.Pattern, s Snapshot) error {
	inv := z.inv
	skuOf := map[string]int{}
	for k, sku := range inv.SKUs {
		skuOf[sku.Name] = k
	}
	typeOf := map[string]int{}
	for t, vt := range inv.Types {
		typeOf[vt.Name] = t
	}
	free := make([][]int32, len(inv.SKUs)) // machines per SKU, by index
	for m := range inv.Machines {
		free[inv.Machines[m].SKU] = append(free[inv.Machines[m].SKU], int32(m))
	}
	next := make([]int, len(inv.Types))
	type row struct {
		vm      int64
		machine int32
	}
	var rows []row
	for _, p := range pk {
		k := skuOf[p.Bin]
		for range int(p.X) {
			if len(free[k]) == 0 {
				return fmt.Errorf("analysis: lpbound: packing at t=%.0fs uses more %s machines than the zone has", s.T, p.Bin)
			}
			m := free[k][0]
			free[k] = free[k][1:]
			for j, name := range p.Items {
				t := typeOf[name]
				for range p.Counts[j] {
					if next[t] >= len(a.vms[t]) {
						return fmt.Errorf("analysis: lpbound: packing at t=%.0fs places more %s VMs than are alive", s.T, name)
					}
					rows = append(rows, row{a.vms[t][next[t]], tr.MachineIDs[m]})
					next[t]++
				}
			}
		}
	}
	for t := range next {
		if next[t] != len(a.vms[t]) {
			return fmt.Errorf("analysis: lpbound: packing at t=%.0fs places %d of %d %s VMs", s.T, next[t], len(a.vms[t]), inv.Types[t].Name)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].vm < rows[j].vm })
	params, err := json.Marshal(map[string]any{"source_run": source, "t_s": s.T, "objective": "machines",
		"lb_machines": s.LBMachines, "ub_machines": s.UBMachines})
	if err != nil {
		return err
	}
	if err := w.Append("run", id, analysis.OfflineEngine, "lp-packing", string(params), int64(0), tr.Dataset, "lpbound",
		time.Now().UTC(), s.Seconds, "done", analysis.LoadID(tr.LoadID)); err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Append("placement", id, r.vm, s.T, r.machine, int16(0), int32(0), nil, "placed", nil, nil, nil); err != nil {
			return err
		}
	}
	return w.Append("run_metric", id, s.T, "packing_density", s.AllocatedCores/z.packingCores(pk))
}

// packingCores is the cores of a packing's machines.
func (z *lpZone) packingCores(pk []lpbound.Pattern) float64 {
	c := 0.0
	for _, p := range pk {
		for _, sku := range z.inv.SKUs {
			if sku.Name == p.Bin {
				c += p.X * sku.Capacity[optimizer.Cores]
			}
		}
	}
	return c
}

// lpBins turns the inventory's SKUs that have machines into bin types over
// the resource dimensions some SKU has (the others are all zero), each
// costing its cores and limited to the zone's machines of that SKU; skus[i]
// is the SKU of bin i.
func lpBins(inv *optimizer.Inventory) (bins []lpbound.BinType, skus []int, dims []optimizer.Dim) {
	for d := optimizer.Dim(0); d < optimizer.NumDims; d++ {
		for _, s := range inv.SKUs {
			if s.Capacity[d] > 0 {
				dims = append(dims, d)
				break
			}
		}
	}
	count := make([]int, len(inv.SKUs))
	for _, m := range inv.Machines {
		count[m.SKU]++
	}
	for k, s := range inv.SKUs {
		if count[k] == 0 {
			continue
		}
		c := make([]float64, len(dims))
		for j, d := range dims {
			c[j] = s.Capacity[d]
		}
		cost := math.Ceil(s.Capacity[optimizer.Cores])
		if cost <= 0 {
			cost = 1
		}
		bins = append(bins, lpbound.BinType{Name: s.Name, Capacity: c, Cost: cost, Limit: count[k]})
		skus = append(skus, k)
	}
	return bins, skus, dims
}

// bindingDims drops the resource dimensions that cannot bind: d goes when,
// on every SKU, each VM type's demand in d is at most its cores' share of
// the machine in d — r_d = max_t d_t,d / d_t,cores ≤ capacity_d / capacity_cores
// — because then any set of VMs within the cores fits within d too
// (Σ d_t,d ≤ r_d Σ d_t,cores ≤ r_d capacity_cores ≤ capacity_d). The patterns,
// hence the LP and its bound, are the same with fewer dimensions, and the
// pricing knapsack is smaller. Cores always stay.
func bindingDims(inv *optimizer.Inventory, skus []int, dims []optimizer.Dim) []optimizer.Dim {
	var keep []optimizer.Dim
	for _, d := range dims {
		if d == optimizer.Cores {
			keep = append(keep, d)
			continue
		}
		binds := false
		for _, k := range skus {
			capC, capD := inv.SKUs[k].Capacity[optimizer.Cores], inv.SKUs[k].Capacity[d]
			for _, t := range inv.Types {
				if k >= len(t.Demand) || (k < len(t.Supported) && !t.Supported[k]) {
					continue
				}
				dc, dd := t.Demand[k][optimizer.Cores], t.Demand[k][d]
				if dd > 0 && (dc <= 0 || capC <= 0 || dd/dc > capD/capC) {
					binds = true
				}
			}
		}
		if binds {
			keep = append(keep, d)
		}
	}
	return keep
}

// Items turns VM type counts into item types with per-SKU sizes.
func Items(inv *optimizer.Inventory, counts []int, skus []int, dims []optimizer.Dim) []lpbound.ItemType {
	var items []lpbound.ItemType
	order := make([]int, 0, len(counts))
	for t, c := range counts {
		if c > 0 {
			order = append(order, t)
		}
	}
	sort.Ints(order)
	for _, t := range order {
		vt := inv.Types[t]
		sizes := make([][]float64, len(skus))
		for i, k := range skus {
			if k < len(vt.Supported) && !vt.Supported[k] {
				continue
			}
			s := make([]float64, len(dims))
			for j, d := range dims {
				s[j] = vt.Demand[k][d]
			}
			sizes[i] = s
		}
		items = append(items, lpbound.ItemType{Name: vt.Name, Count: counts[t], Sizes: sizes})
	}
	return items
}

// LargestBinCost is the cost (cores) of the largest bin type of the
// configuration LP over inv, the unit placelab bench lp reports sizes in.
func LargestBinCost(inv *optimizer.Inventory) float64 {
	largest := 0.0
	for _, b := range NewZone(inv).Bins {
		largest = max(largest, b.Cost) // a bin costs its cores
	}
	return largest
}
