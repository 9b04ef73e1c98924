package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// LPSnapshot sets the configuration-LP bound over the VMs a run held at one
// moment beside what the run's policy achieved with them.
//
// The bound on cores solves the LP with each machine costing its cores, so
// BoundCores is a lower bound on the cores of the machines any allocator
// needs to hold these VMs (per-SKU capacities, per-SKU VM demand and the
// zone's machine counts respected; fault domains, isolation and the other
// soft rules relaxed), and BoundDensity = AllocatedCores / BoundCores is an
// upper bound on the packing density (Protean §6.3) any allocator could
// reach. BoundMachines bounds the number of machines the same way.
type LPSnapshot struct {
	T              float64 `json:"t_s"`
	VMs            int     `json:"vms"`
	AllocatedCores float64 `json:"allocated_cores"`
	OnlineMachines int     `json:"online_machines"`
	OnlineCores    float64 `json:"online_cores"` // cores of the non-empty machines
	OnlineDensity  float64 `json:"online_density"`
	BoundMachines  float64 `json:"bound_machines"`
	BoundCores     float64 `json:"bound_cores"`
	BoundDensity   float64 `json:"bound_density"`
	// Gap is BoundDensity − OnlineDensity: how much denser the VMs could
	// at most have been packed.
	Gap float64 `json:"density_gap"`
	// MachineGap is OnlineMachines − BoundMachines.
	MachineGap float64 `json:"machine_gap"`
	LPCores    float64 `json:"lp_cores"`
	LPMachines float64 `json:"lp_machines"`
	Iterations int     `json:"iterations"`
	Columns    int     `json:"columns"`
	Converged  bool    `json:"converged"`
	Seconds    float64 `json:"seconds"`
}

// LPBoundReport is the bound over a run's snapshots.
type LPBoundReport struct {
	Run            int64        `json:"run_id"`
	Dataset        string       `json:"dataset"`
	Policy         string       `json:"policy"`
	Every          float64      `json:"every_s"`
	Snapshots      []LPSnapshot `json:"snapshots"`
	MeanGap        float64      `json:"mean_density_gap"`
	MaxGap         float64      `json:"max_density_gap"`
	MeanMachineGap float64      `json:"mean_machine_gap"`
	Seconds        float64      `json:"seconds"`
}

// ErrNoRun is returned for a run id that is not stored.
var ErrNoRun = errors.New("analysis: no such run")

// LPBoundRun solves the configuration LP at t = 0, every, 2·every, … up to
// the run's last sample, over the VMs the run held then, and stores the
// figures in run_metric (lp_bound_cores, lp_bound_machines,
// lp_bound_density, lp_density_gap, lp_online_machines), replacing those a
// previous call stored. Consecutive snapshots share most VM types, so each
// solve starts from the previous one's patterns. opts applies to every
// solve (its Objective and Initial are set here); a solve that stops on
// opts.TimeLimit still yields a valid, weaker bound.
func LPBoundRun(ctx context.Context, db *store.DB, run int64, every float64, opts lpbound.Options, progress func(done, total int64)) (*LPBoundReport, error) {
	start := time.Now()
	if !(every > 0) {
		return nil, fmt.Errorf("analysis: lpbound: every = %v s, want > 0", every)
	}
	rep := &LPBoundReport{Run: run, Every: every, Snapshots: []LPSnapshot{}}
	var engine string
	err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_head"), run).Scan(&rep.Dataset, &rep.Policy, &engine)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d (placelab sql --view run_summary lists the runs)", ErrNoRun, run)
	}
	if err != nil {
		return nil, err
	}
	// The run's placements are read against the load it pinned; a run
	// from before runs pinned their load is read against the current one.
	if _, err := LoadRunInput(ctx, db, run); err != nil && !errors.Is(err, ErrUnpinned) {
		return nil, err
	}
	var ds string
	var last float64
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_info"), run).Scan(&ds, &last); err != nil {
		return nil, err
	}
	tr, err := LoadTrace(ctx, db, rep.Dataset, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	end := make(map[int64]float64, len(tr.VMs))
	typ := make(map[int64]int32, len(tr.VMs))
	for _, v := range tr.VMs {
		end[v.ID], typ[v.ID] = v.End, v.Type
	}
	machineOf := make(map[int32]int32, len(tr.MachineIDs))
	for i, id := range tr.MachineIDs {
		machineOf[id] = int32(i)
	}
	type stay struct {
		typ      int32
		machine  int32
		from, to float64
	}
	var stays []stay
	err = each(ctx, db.SQL(), "run_placements", []any{run}, func(r *sql.Rows) error {
		var id int64
		var mid int32
		var t float64
		var ev sql.NullFloat64
		if err := r.Scan(&id, &mid, &t, &ev); err != nil {
			return err
		}
		tp, ok := typ[id]
		m, okm := machineOf[mid]
		if !ok || !okm {
			return fmt.Errorf("analysis: run %d places VM %d on machine %d, which dataset %q lacks", run, id, mid, rep.Dataset)
		}
		to := end[id]
		if ev.Valid && ev.Float64 < to {
			to = ev.Float64
		}
		stays = append(stays, stay{tp, m, t, to})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var times []float64
	for t := 0.0; t <= last+1e-9; t += every {
		times = append(times, t)
	}
	bins, skus, dims := lpBins(tr.Inv)
	dims = bindingDims(tr.Inv, skus, dims)
	for i, k := range skus {
		c := make([]float64, len(dims))
		for j, d := range dims {
			c[j] = tr.Inv.SKUs[k].Capacity[d]
		}
		bins[i].Capacity = c
	}
	inv := tr.Inv
	var prevCores, prevMachines []lpbound.Pattern
	for i, t := range times {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(int64(i), int64(len(times)))
		}
		counts := make([]int, len(inv.Types))
		used := make([]bool, len(inv.Machines))
		snap := LPSnapshot{T: t}
		for _, s := range stays {
			if s.from <= t && t < s.to {
				counts[s.typ]++
				snap.VMs++
				used[s.machine] = true
				d, _ := inv.Demand(s.typ, s.machine)
				snap.AllocatedCores += d[optimizer.Cores]
			}
		}
		for m, u := range used {
			if u {
				snap.OnlineMachines++
				snap.OnlineCores += inv.Capacity(int32(m))[optimizer.Cores]
			}
		}
		if snap.VMs == 0 {
			rep.Snapshots = append(rep.Snapshots, snap)
			continue
		}
		snap.OnlineDensity = snap.AllocatedCores / snap.OnlineCores
		p := &lpbound.Problem{Bins: bins, Items: lpItems(inv, counts, skus, dims)}
		o := opts
		o.Objective, o.Initial = lpbound.MinCost, prevCores
		rc, err := lpbound.Solve(ctx, p, o)
		if err != nil && !errors.Is(err, lpbound.ErrTimeLimit) {
			return nil, fmt.Errorf("analysis: lpbound at t=%.0fs: %w", t, err)
		}
		o.Objective, o.Initial = lpbound.MinCount, prevMachines
		rm, err := lpbound.Solve(ctx, p, o)
		if err != nil && !errors.Is(err, lpbound.ErrTimeLimit) {
			return nil, fmt.Errorf("analysis: lpbound at t=%.0fs: %w", t, err)
		}
		prevCores, prevMachines = rc.Patterns, rm.Patterns
		// The machines in use hold at least the allocated cores: the volume
		// bound, valid whatever the LP reached (a time limit, early stop).
		snap.BoundCores = math.Max(rc.Bound, math.Ceil(snap.AllocatedCores-1e-9))
		snap.BoundMachines = math.Max(rm.Bound, 1)
		snap.LPCores, snap.LPMachines = rc.LP, rm.LP
		snap.Iterations, snap.Columns = rc.Iterations+rm.Iterations, rc.Columns+rm.Columns
		snap.Converged = rc.Converged && rm.Converged
		snap.Seconds = rc.Seconds + rm.Seconds
		if snap.BoundCores > 0 {
			snap.BoundDensity = snap.AllocatedCores / snap.BoundCores
		}
		snap.Gap = snap.BoundDensity - snap.OnlineDensity
		snap.MachineGap = float64(snap.OnlineMachines) - snap.BoundMachines
		rep.Snapshots = append(rep.Snapshots, snap)
	}
	if progress != nil {
		progress(int64(len(times)), int64(len(times)))
	}
	var n int
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		n++
		rep.MeanGap += s.Gap
		rep.MeanMachineGap += s.MachineGap
		rep.MaxGap = math.Max(rep.MaxGap, s.Gap)
	}
	if n > 0 {
		rep.MeanGap /= float64(n)
		rep.MeanMachineGap /= float64(n)
	}
	// Replace the run's lp_* rows: drop those at times this call has no
	// bound for, upsert the rest (DuckDB 1.1 cannot delete and re-insert a
	// key in one transaction).
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
		for _, s := range rep.Snapshots {
			if s.VMs == 0 {
				continue
			}
			for _, m := range []struct {
				name string
				v    float64
			}{{"lp_bound_cores", s.BoundCores}, {"lp_bound_machines", s.BoundMachines}, {"lp_bound_density", s.BoundDensity},
				{"lp_density_gap", s.Gap}, {"lp_online_machines", float64(s.OnlineMachines)}} {
				if err := w.Exec(store.MustQuery("lpbound_upsert"), run, s.T, m.name, m.v); err != nil {
					return err
				}
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

// lpItems turns VM type counts into item types with per-SKU sizes.
func lpItems(inv *optimizer.Inventory, counts []int, skus []int, dims []optimizer.Dim) []lpbound.ItemType {
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
