package capacity

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sort"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/datasets/catalog"
	"placelab/optimizer"
	store "placelab/sql"
)

// A catalog search (capacity --catalog) asks the capacity question of a
// priced catalog's types rather than of the zone's machines: the cheapest
// fleet on which the allocator meets the targets over the whole trace.
//
//	plan at the trace's peak (placelab plan) ──▶ mix n_k nodes per catalog type
//	  ──▶ fleet of N machines in the mix's proportions ──RunTrace──▶ targets met?
//	        bisection on N (the mix search), then each type in turn, dearest
//	        first, shrunk by bisection while the targets hold (the per-SKU search)
//
// It is the zone search with a fleet base (fleetBase): the SKUs are the
// mix's catalog types, each machine one node of its type with the type's
// allocatable (Reserved) as capacity, all in one cluster "fleet", each in
// its own rack (a cloud node is its own fault domain: a rack failure of the
// failure model is one more failure of one node). The mix search's
// apportionment of N over the types (mixCounts: Sainte-Laguë, every count
// non-decreasing in N) is its scale factor s = N / Σ n_k. Spot and
// preemptible types are interrupted at their interruptions_per_year when
// failures are on (Spec.Interruptions): beside the failure model, which
// every node of every type draws alike (hardware fails whatever the
// billing); on-demand types are not interrupted. Interruptions are hard
// outages: their VMs are healed, the node comes back after a repair time.

// CatalogFleet is the catalog and plan a catalog search read.
type CatalogFleet struct {
	File        string `json:"file"`
	SHA256      string `json:"sha256"`
	PriceColumn string `json:"price_column"`
	Filter      string `json:"filter"`
	Reserved    string `json:"reserved"`
	// PlanCostPerHour, PlanLBCostPerHour, PlanNodes and PlanTypes are the
	// plan at the trace's peak the mix came from: the cheapest fleet that
	// holds the VMs alive then (placelab plan's cost_per_hour), no fleet
	// holds them for less (its lb_cost_per_hour).
	PlanCostPerHour   float64        `json:"plan_cost_per_hour"`
	PlanLBCostPerHour float64        `json:"plan_lb_cost_per_hour"`
	PlanNodes         int            `json:"plan_nodes"`
	PlanTypes         map[string]int `json:"plan_types"`
	// PricePerHour is each type's price; Interruptions the spot and
	// preemptible types' interruptions per node-year the probes drew (only
	// with failures on).
	PricePerHour  map[string]float64 `json:"price_per_hour"`
	Interruptions map[string]float64 `json:"interruptions_per_year,omitempty"`
}

// Catalog is what a catalog search needs beyond the run spec: the catalog
// as placelab plan reads it and the plan's answer at the trace's peak.
type Catalog struct {
	// File, Price, Types and Reserved are plan.Options'.
	File, Price, Types, Reserved string
	// Mix is the plan's nodes per catalog type; PlanCostPerHour and
	// PlanLBCostPerHour its cost and bound.
	Mix                                map[string]int
	PlanCostPerHour, PlanLBCostPerHour float64
}

// RunCatalog finds the cheapest fleet of c's catalog types on which spec's
// allocator meets o's targets over the dataset: the mix search and (with
// ScalePerSKU) the per-SKU search, dearest type first, on fleets of the
// plan's mix (see above). The answer's cost is CostPerHour.
func RunCatalog(ctx context.Context, db *store.DB, spec analysis.Spec, o Options, c Catalog) (*Result, error) {
	if err := checkCapacity(&spec, &o); err != nil {
		return nil, err
	}
	if spec.FailureFile != "" {
		return nil, fmt.Errorf("%w: --catalog with --failure-file: a failure file names the zone's machines, and a catalog fleet has none of them", ErrCapacity)
	}
	cat, err := catalog.Read(c.File, catalog.ReadOptions{Price: c.Price})
	if err != nil {
		return nil, err
	}
	filt, err := catalog.ParseFilter(c.Types)
	if err != nil {
		return nil, err
	}
	if !filt.IsZero() {
		if cat, err = cat.Filter(filt); err != nil {
			return nil, err
		}
	}
	res, err := catalog.ParseReserved(c.Reserved)
	if err != nil {
		return nil, err
	}
	tr, err := analysis.LoadTrace(ctx, db, spec.Dataset, spec.From, spec.To)
	if err != nil {
		return nil, err
	}
	sizes, err := typeSizes(ctx, db, tr.LoadID)
	if err != nil {
		return nil, err
	}
	growth := o.MaxGrowth
	if growth == 0 {
		growth = MaxGrowth
	}
	ft, fb, info, err := catalogFleet(tr, sizes, cat, res, c, growth)
	if err != nil {
		return nil, err
	}
	info.Filter = filt.String()
	if _, on, _ := outage.ParseModel(spec.Failures); on && len(info.Interruptions) > 0 {
		spec.Interruptions = outage.Interruptions(info.Interruptions)
	} else {
		info.Interruptions = nil
	}
	rep, err := runSearch(ctx, ft, spec, o, fb)
	if err != nil {
		return nil, err
	}
	rep.Catalog = info
	return rep, nil
}

// typeSize is a VM type's absolute size.
type typeSize struct{ cores, memGB, gpus float64 }

// typeSizes reads each VM type's absolute size (type_sizes); a type the
// dataset gives only as fractions of its machines is missing.
func typeSizes(ctx context.Context, db *store.DB, load int64) (map[string]typeSize, error) {
	out := map[string]typeSize{}
	err := analysis.Each(ctx, db.SQL(), "type_sizes", []any{load}, func(r *sql.Rows) error {
		var name string
		var cores, mem, ssd, hdd, nic, gpus, pods sql.NullFloat64
		if err := r.Scan(&name, &cores, &mem, &ssd, &hdd, &nic, &gpus, &pods); err != nil {
			return err
		}
		if cores.Valid {
			out[name] = typeSize{cores.Float64, mem.Float64, gpus.Float64}
		}
		return nil
	})
	return out, err
}

// mibGB is GB (10^9 bytes) per MiB.
const mibGB = (1 << 20) / 1e9

// catalogFleet is tr's VMs on a fleet of the mix's catalog types: growth ×
// n_k nodes of each type k (more than the search ever probes, so that no
// probe copies a cluster), the VM types sized on each type (cores, memory,
// GPUs; a type fits where its size is within the allocatable).
func catalogFleet(tr *replay.Trace, sizes map[string]typeSize, cat *catalog.Catalog, res catalog.Reserved, c Catalog, growth int) (*replay.Trace, *fleetBase, *CatalogFleet, error) {
	if len(tr.Constraints) > 0 || len(tr.Inv.NodeSets) > 0 {
		return nil, nil, nil, fmt.Errorf("%w: --catalog: dataset %q has placement constraints (node sets of its own machines), which a fleet of catalog types does not have", ErrCapacity, tr.Dataset)
	}
	info := &CatalogFleet{File: cat.File, SHA256: cat.SHA256, PriceColumn: cat.PriceColumn, Reserved: string(res),
		PlanCostPerHour: c.PlanCostPerHour, PlanLBCostPerHour: c.PlanLBCostPerHour, PlanTypes: map[string]int{},
		PricePerHour: map[string]float64{}, Interruptions: map[string]float64{}}
	byName := map[string]catalog.Type{}
	for _, t := range cat.Types {
		byName[t.Name] = t
	}
	var names []string
	for name, n := range c.Mix {
		if n > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: --catalog: the plan at the peak has no nodes", ErrCapacity)
	}
	fb := &fleetBase{}
	var skus []optimizer.SKU
	var types []catalog.Type
	for _, name := range names {
		t, ok := byName[name]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: --catalog: the plan's type %q is not in %s", ErrCapacity, name, cat.File)
		}
		a := res.Allocatable(t)
		var v optimizer.Vec
		v[optimizer.Cores], v[optimizer.Memory], v[optimizer.GPU] = a.CPU, a.MemoryMiB*mibGB, a.GPUs
		if v[optimizer.Cores] <= 0 {
			return nil, nil, nil, fmt.Errorf("%w: --catalog: type %s has no allocatable CPU under --reserved %s", ErrCapacity, name, res)
		}
		skus = append(skus, optimizer.SKU{Name: name, Generation: 1, Capacity: v})
		types = append(types, t)
		fb.mix = append(fb.mix, c.Mix[name])
		fb.prices = append(fb.prices, t.Price)
		info.PlanTypes[name] = c.Mix[name]
		info.PlanNodes += c.Mix[name]
		info.PricePerHour[name] = t.Price
		if t.CapacityType != catalog.OnDemand && t.InterruptionsPerYear > 0 {
			info.Interruptions[name] = t.InterruptionsPerYear
		}
	}
	var specs []optimizer.MachineSpec
	var ids []int32
	for k, name := range names {
		for i := range growth * fb.mix[k] {
			m := fmt.Sprintf("%s-%d", name, i+1)
			specs = append(specs, optimizer.MachineSpec{Name: m, Cluster: "fleet", Rack: m, SKU: int32(k), Healthy: true})
			ids = append(ids, int32(len(ids)))
		}
	}
	vts := make([]optimizer.VMType, len(tr.Inv.Types))
	for i, ty := range tr.Inv.Types {
		vt := optimizer.VMType{Name: ty.Name, Demand: make([]optimizer.Vec, len(skus)), Supported: make([]bool, len(skus))}
		sz, ok := sizes[ty.Name]
		if !ok && slices.Contains(ty.Supported, true) {
			return nil, nil, nil, fmt.Errorf("%w: --catalog: VM type %s has no absolute size (cores, memory_gb): its demand is given per SKU, so no catalog type can be sized for it", ErrCapacity, ty.Name)
		}
		for k := range skus {
			var d optimizer.Vec
			d[optimizer.Cores], d[optimizer.Memory], d[optimizer.GPU] = sz.cores, sz.memGB, sz.gpus
			cp := skus[k].Capacity
			if ok && d[optimizer.Cores] <= cp[optimizer.Cores] && d[optimizer.Memory] <= cp[optimizer.Memory] && d[optimizer.GPU] <= cp[optimizer.GPU] {
				vt.Demand[k], vt.Supported[k] = d, true
			}
		}
		vts[i] = vt
	}
	inv, err := optimizer.NewInventory(skus, specs, vts)
	if err != nil {
		return nil, nil, nil, err
	}
	out := *tr
	out.Inv, out.MachineIDs = inv, ids
	return &out, fb, info, nil
}

// cost is Σ counts × price of a catalog fleet, to the micro-dollar.
func (s *capacitySearch) cost(counts []int) float64 {
	c := 0.0
	for k, n := range counts {
		c += float64(n) * s.prices[k]
	}
	return math.Round(c*1e6) / 1e6
}

// smaller orders two probes that met the targets: fewer machines (a
// catalog fleet: lower cost, then fewer machines), then fewer cores.
func (s *capacitySearch) smaller(a, b *Probe) bool {
	if s.prices != nil && *a.CostPerHour != *b.CostPerHour {
		return *a.CostPerHour < *b.CostPerHour
	}
	if a.Machines != b.Machines {
		return a.Machines < b.Machines
	}
	return a.Cores < b.Cores
}
