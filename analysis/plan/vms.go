package plan

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"placelab/datasets"
	"placelab/datasets/catalog"
	"placelab/optimizer/fleet"
	store "placelab/sql"
)

// vmSource is a trace's VMs alive at an instant: no constraints, each VM
// its type's absolute size on every catalog type.
type vmSource struct {
	dataset  string
	t        float64
	p        *fleet.Problem
	cat      []catalog.Type
	alloc    []catalog.Allocatable
	vms      []vmRow
	byGroup  [][]int // VM indices per group
	machines map[string]int
}

type vmRow struct {
	id                   int64
	name, tenant, vmType string
	prio                 int16
	start                float64
	end                  sql.NullFloat64
	cores, mem, gpus     float64
	group                int
}

// ErrNoSizes refuses a trace whose VM sizes depend on the machine (the
// Azure packing trace gives them as fractions of each SKU).
var ErrNoSizes = errors.New("plan: the trace's VM types have no absolute size (cores, memory_gb): their demand is given per SKU, so no catalog type can be sized for them")

func fromDataset(ctx context.Context, db *store.DB, dataset string, at float64, peak bool, cat *catalog.Catalog, res catalog.Reserved) (*vmSource, float64, error) {
	q := db.SQL()
	t := at
	if peak {
		var alive sql.NullFloat64
		var tt sql.NullFloat64
		err := q.QueryRowContext(ctx, store.MustQuery("plan_peak"), dataset).Scan(&tt, &alive)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !tt.Valid) {
			return nil, 0, fmt.Errorf("plan: dataset %q has no VMs (placelab sql --view dataset_summary lists the datasets)", dataset)
		}
		if err != nil {
			return nil, 0, err
		}
		t = tt.Float64
	}
	rows, err := q.QueryContext(ctx, store.MustQuery("plan_vms"), dataset, t)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	s := &vmSource{dataset: dataset, t: t, cat: cat.Types}
	for rows.Next() {
		var v vmRow
		var cores, mem sql.NullFloat64
		var constrained bool
		if err := rows.Scan(&v.id, &v.name, &v.tenant, &v.vmType, &v.prio, &v.start, &v.end, &cores, &mem, &v.gpus, &constrained); err != nil {
			return nil, 0, err
		}
		if !cores.Valid || !mem.Valid {
			return nil, 0, fmt.Errorf("%w (type %s of VM %s)", ErrNoSizes, v.vmType, v.name)
		}
		if constrained {
			return nil, 0, fmt.Errorf("plan: VM %s of dataset %q carries placement constraints (node sets of its own machines); give its Kubernetes objects (placelab ingest k8s) and plan its run with --run, so they are read against the catalog's types", v.name, dataset)
		}
		v.cores, v.mem = cores.Float64, mem.Float64
		s.vms = append(s.vms, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(s.vms) == 0 {
		return nil, 0, fmt.Errorf("plan: dataset %q has no VM alive at t=%g s", dataset, t)
	}
	// Groups: one per VM type.
	p := &fleet.Problem{Dims: []string{"cpu", "memory_gb"}}
	gpus := false
	for _, v := range s.vms {
		gpus = gpus || v.gpus > 0
	}
	if gpus {
		p.Dims = append(p.Dims, "gpus")
	}
	for _, ct := range cat.Types {
		a := res.Allocatable(ct)
		s.alloc = append(s.alloc, a)
		c := []float64{a.CPU, a.MemoryMiB * mib / 1e9}
		if gpus {
			c = append(c, a.GPUs)
		}
		p.Types = append(p.Types, fleet.Type{Name: ct.Name, Cap: c, Price: ct.Price, Limit: ct.MaxCount})
	}
	groupOf := map[string]int{}
	for i := range s.vms {
		v := &s.vms[i]
		g, ok := groupOf[v.vmType]
		if !ok {
			g = len(p.Groups)
			groupOf[v.vmType] = g
			d := []float64{v.cores, v.mem}
			if gpus {
				d = append(d, v.gpus)
			}
			p.Groups = append(p.Groups, fleet.Group{Name: v.vmType, Demand: d, AntiKey: -1})
			s.byGroup = append(s.byGroup, nil)
		}
		p.Groups[g].Count++
		v.group = g
		s.byGroup[g] = append(s.byGroup[g], i)
	}
	s.p = p
	// The dataset's own machines, for the current fleet.
	mrows, err := q.QueryContext(ctx, store.MustQuery("plan_machines"), dataset)
	if err != nil {
		return nil, 0, err
	}
	defer mrows.Close()
	s.machines = map[string]int{}
	for mrows.Next() {
		var sku string
		var n int
		if err := mrows.Scan(&sku, &n); err != nil {
			return nil, 0, err
		}
		s.machines[sku] = n
	}
	return s, t, mrows.Err()
}

// mib is bytes per MiB.
const mib = 1 << 20

func (s *vmSource) problem() *fleet.Problem               { return s.p }
func (s *vmSource) repair(*fleet.Fleet) (int, int, error) { return 0, 0, nil }
func (s *vmSource) typeName(k int) string                 { return s.p.Types[k].Name }
func (s *vmSource) poolName(int) string                   { return "" }
func (s *vmSource) leftOut() []string                     { return nil }
func (s *vmSource) kind() string                          { return "trace" }
func (s *vmSource) groupNames(g int) []string {
	var out []string
	for _, i := range s.byGroup[g] {
		out = append(out, s.vms[i].name)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// current prices the dataset's machines when the catalog names their SKUs.
func (s *vmSource) current(cat *catalog.Catalog) *Fleet {
	if len(s.machines) == 0 {
		return nil
	}
	price := map[string]float64{}
	for _, t := range cat.Types {
		price[t.Name] = t.Price
	}
	f := &Fleet{Types: map[string]int{}}
	priced := 0
	for sku, n := range s.machines {
		p, ok := price[sku]
		if !ok {
			f.Unpriced = append(f.Unpriced, sku)
			continue
		}
		priced++
		f.CostPerHour += p * float64(n)
		f.Nodes += n
		f.Types[sku] = n
	}
	if priced == 0 {
		return nil
	}
	sort.Strings(f.Unpriced)
	f.CostPerHour = round6(f.CostPerHour)
	return f
}

// store writes the plan as a dataset of machines of the plan's types and
// the VMs alive at the instant, placed on them.
func (s *vmSource) store(ctx context.Context, db *store.DB, f *fleet.Fleet, name string, params map[string]any) (int64, error) {
	pf := datasets.PlanFleet{Dataset: name, Source: "placelab plan --dataset " + s.dataset, T: s.t, Params: params}
	skuSeen := map[int]bool{}
	perType := map[int]int{}
	left := make([][]int, len(s.byGroup))
	for g := range s.byGroup {
		left[g] = append([]int(nil), s.byGroup[g]...)
	}
	typeSeen := map[string]bool{}
	for _, v := range s.vms {
		if !typeSeen[v.vmType] {
			typeSeen[v.vmType] = true
			pf.Types = append(pf.Types, datasets.PlanVMType{Name: v.vmType, Cores: v.cores, MemoryGB: v.mem, GPUs: v.gpus})
		}
	}
	vmMachine := make([]int32, len(s.vms))
	for i := range vmMachine {
		vmMachine[i] = -1
	}
	for _, n := range f.Nodes {
		k := n.Type
		t := s.p.Types[k]
		if !skuSeen[k] {
			skuSeen[k] = true
			gp := 0.0
			if len(t.Cap) > 2 {
				gp = t.Cap[2]
			}
			pf.SKUs = append(pf.SKUs, datasets.PlanSKU{Name: t.Name, Cores: t.Cap[0], MemoryGB: t.Cap[1], GPUs: gp})
		}
		perType[k]++
		m := int32(len(pf.Machines))
		pf.Machines = append(pf.Machines, datasets.PlanMachine{Name: t.Name + "-" + strconv.Itoa(perType[k]), SKU: t.Name, Zone: "plan"})
		for j, g := range n.Groups {
			for range n.Counts[j] {
				i := left[g][0]
				left[g] = left[g][1:]
				vmMachine[i] = m
			}
		}
	}
	for i, v := range s.vms {
		if vmMachine[i] < 0 {
			continue // unplaceable: no row
		}
		var end *float64
		if v.end.Valid {
			e := v.end.Float64
			end = &e
		}
		pf.VMs = append(pf.VMs, datasets.PlanVM{Name: v.name, Tenant: v.tenant, Type: v.vmType, Priority: v.prio,
			Start: math.Min(v.start, s.t), End: end, Machine: vmMachine[i]})
	}
	return datasets.WritePlanFleet(ctx, db, pf)
}
