package analysis

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"placelab/analysis/replay"
	"slices"

	"placelab/optimizer"
	store "placelab/sql"
)

// Sentinel errors of loading a trace.
var (
	// ErrNoInventory says a dataset has VMs but no machines to place them on.
	ErrNoInventory = errors.New("analysis: dataset has no machines (ingest it with --inventory)")
	// ErrNoDataset says no dataset of that name is loaded.
	ErrNoDataset = errors.New("analysis: no such dataset")
)

// LoadTrace reads a dataset's inventory and the VMs alive at some point of
// [from, to) (use ±Inf for all).
func LoadTrace(ctx context.Context, db *store.DB, dataset string, from, to float64) (*replay.Trace, error) {
	q := db.SQL()
	tr := &replay.Trace{Dataset: dataset}
	var format string
	var origin sql.NullTime
	err := q.QueryRowContext(ctx, "SELECT load_id, format, time_origin FROM dataset WHERE name = ?", dataset).Scan(&tr.LoadID, &format, &origin)
	if origin.Valid {
		tr.TimeOrigin = origin.Time.UTC()
	}
	// A Kubernetes cluster's pods are scheduled one by one.
	tr.OnePerRequest = format == "k8s"
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q (placelab sql --view dataset_summary lists what is loaded; placelab generate makes \"synthetic\")", ErrNoDataset, dataset)
	}
	if err != nil {
		return nil, err
	}
	// SKUs.
	var skus []optimizer.SKU
	skuIdx := map[string]int32{}
	err = Each(ctx, q, "replay_skus", []any{dataset}, func(r *sql.Rows) error {
		var s optimizer.SKU
		var c optimizer.Vec
		if err := r.Scan(&s.Name, &s.Generation, &c[optimizer.Cores], &c[optimizer.Memory], &c[optimizer.SSD],
			&c[optimizer.HDD], &c[optimizer.NIC], &c[optimizer.GPU], &c[optimizer.Pods]); err != nil {
			return err
		}
		s.Capacity = c
		skuIdx[s.Name] = int32(len(skus))
		skus = append(skus, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Machines.
	var specs []optimizer.MachineSpec
	err = Each(ctx, q, "replay_machines", []any{dataset}, func(r *sql.Rows) error {
		var id int32
		var ms optimizer.MachineSpec
		var sku, health string
		if err := r.Scan(&id, &ms.Name, &ms.Cluster, &ms.Rack, &ms.UpdateDomain, &sku, &health); err != nil {
			return err
		}
		s, ok := skuIdx[sku]
		if !ok {
			return fmt.Errorf("analysis: machine %s: unknown SKU %q", ms.Name, sku)
		}
		ms.SKU, ms.Healthy = s, health == "healthy"
		// Racks are named within their cluster.
		specs = append(specs, ms)
		tr.MachineIDs = append(tr.MachineIDs, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoInventory, dataset)
	}
	// VM types with per-SKU demand (fractions × SKU capacity).
	typeIdx := map[string]int32{}
	var types []optimizer.VMType
	err = Each(ctx, q, "replay_type_demand", []any{dataset}, func(r *sql.Rows) error {
		var name, sku string
		var f optimizer.Vec
		if err := r.Scan(&name, &sku, &f[optimizer.Cores], &f[optimizer.Memory], &f[optimizer.SSD], &f[optimizer.HDD],
			&f[optimizer.NIC], &f[optimizer.GPU], &f[optimizer.Pods]); err != nil {
			return err
		}
		t, ok := typeIdx[name]
		if !ok {
			t = int32(len(types))
			typeIdx[name] = t
			types = append(types, optimizer.VMType{Name: name, Demand: make([]optimizer.Vec, len(skus)), Supported: make([]bool, len(skus))})
			tr.TypeNames = append(tr.TypeNames, name)
		}
		s, ok := skuIdx[sku]
		if !ok {
			return fmt.Errorf("analysis: demand of %s on unknown SKU %q", name, sku)
		}
		var d optimizer.Vec
		for i := range d {
			d[i] = f[i] * skus[s].Capacity[i]
		}
		types[t].Demand[s], types[t].Supported[s] = d, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	// VM types the inventory cannot host at all get a type that runs on no
	// SKU, so IsTypeSupported rejects them like any unsupported request.
	unsupported := func(name string) int32 {
		t := int32(len(types))
		typeIdx[name] = t
		types = append(types, optimizer.VMType{Name: name, Demand: make([]optimizer.Vec, len(skus)), Supported: make([]bool, len(skus))})
		tr.TypeNames = append(tr.TypeNames, name)
		return t
	}
	var typeNames []string
	err = Each(ctx, q, "replay_types", []any{dataset}, func(r *sql.Rows) error {
		var name string
		if err := r.Scan(&name); err != nil {
			return err
		}
		typeNames = append(typeNames, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range typeNames {
		if _, ok := typeIdx[name]; !ok {
			unsupported(name)
		}
	}
	inv, err := optimizer.NewInventory(skus, specs, types)
	if err != nil {
		return nil, err
	}
	tr.Inv = inv
	// Node sets of the placement constraints: set_id k is NodeSets[k] and
	// a VM names it as k+1 (0: no constraint).
	setOf, err := loadNodeSets(ctx, q, dataset, tr)
	if err != nil {
		return nil, err
	}
	// VMs: sized once, tenants and types as numbers (replay_vms).
	var nVMs, nTenants int64
	if err := q.QueryRowContext(ctx, store.MustQuery("replay_vm_count"), dataset, from, to).Scan(&nVMs, &nTenants); err != nil {
		return nil, fmt.Errorf("analysis: replay_vm_count: %w", err)
	}
	tr.VMs = make([]replay.TraceVM, 0, nVMs)
	typeOfRank := make([]int32, len(typeNames))
	for i, name := range typeNames {
		typeOfRank[i] = typeIdx[name]
	}
	consIdx := map[replay.Constraints]int32{}
	err = Each(ctx, q, "replay_vms", []any{dataset, from, to}, func(r *sql.Rows) error {
		var v replay.TraceVM
		var tenant int32
		var typ sql.NullInt32
		var badType sql.NullString
		var prio int16
		var end sql.NullFloat64
		var aff, tol, perMachine, skew sql.NullInt32
		if err := r.Scan(&v.ID, &tenant, &typ, &badType, &prio, &v.Start, &end, &aff, &tol, &perMachine, &skew); err != nil {
			return err
		}
		var c replay.Constraints
		for _, x := range []struct {
			s   sql.NullInt32
			dst *int32
		}{{aff, &c.Affinity}, {tol, &c.Tolerated}} {
			if !x.s.Valid {
				continue
			}
			k, ok := setOf[x.s.Int32]
			if !ok {
				return fmt.Errorf("analysis: VM %d names node set %d, which the dataset lacks", v.ID, x.s.Int32)
			}
			*x.dst = k
		}
		c.MaxPerMachine, c.MaxSkew = perMachine.Int32, skew.Int32
		if c != (replay.Constraints{}) {
			k, ok := consIdx[c]
			if !ok {
				tr.Constraints = append(tr.Constraints, c)
				k = int32(len(tr.Constraints))
				consIdx[c] = k
			}
			v.Cons = k
		}
		if tenant < 0 || int64(tenant) >= nTenants {
			return fmt.Errorf("analysis: VM %d: tenant rank %d out of range (%d tenants): the dataset changed while it was read", v.ID, tenant, nTenants)
		}
		v.Tenant, v.Priority = tenant, uint8(prio) // the rank by name until renumbered below
		if !typ.Valid || int(typ.Int32) >= len(typeOfRank) {
			return fmt.Errorf("analysis: VM %d has type %q, which the vm_type table lacks", v.ID, badType.String)
		}
		v.Type = typeOfRank[typ.Int32]
		v.End = math.Inf(1)
		if end.Valid {
			v.End = end.Float64
		}
		tr.VMs = append(tr.VMs, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Arrival order: start, then tenant by name, then id.
	slices.SortFunc(tr.VMs, func(a, b replay.TraceVM) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Tenant, b.Tenant); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	// Tenants are numbered by first arrival (rule_spread's update domain
	// offset reads the number).
	tenantOf := make([]int32, nTenants)
	for i := range tenantOf {
		tenantOf[i] = -1
	}
	var tenants int32
	for i := range tr.VMs {
		v := &tr.VMs[i]
		if tenantOf[v.Tenant] < 0 {
			tenantOf[v.Tenant] = tenants
			tenants++
		}
		v.Tenant = tenantOf[v.Tenant]
	}
	tr.NumTenants = int(tenants)
	return tr, nil
}

func Each(ctx context.Context, q *sql.DB, name string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, store.MustQuery(name), args...)
	if err != nil {
		return fmt.Errorf("analysis: %s: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return fmt.Errorf("analysis: %s: %w", name, err)
		}
	}
	return rows.Err()
}

// loadNodeSets reads a dataset's node sets into tr.Inv.NodeSets and returns
// each set_id's VMRequest index (its position + 1).
func loadNodeSets(ctx context.Context, q *sql.DB, dataset string, tr *replay.Trace) (map[int32]int32, error) {
	idx := make(map[int32]int32, len(tr.MachineIDs))
	for i, id := range tr.MachineIDs {
		idx[id] = int32(i)
	}
	type set struct {
		id         int32
		kind, name string
		machines   []int32
	}
	var sets []set
	err := Each(ctx, q, "replay_node_sets", []any{dataset}, func(r *sql.Rows) error {
		var id int32
		var kind, name string
		var m sql.NullInt32
		if err := r.Scan(&id, &kind, &name, &m); err != nil {
			return err
		}
		if len(sets) == 0 || sets[len(sets)-1].id != id {
			sets = append(sets, set{id: id, kind: kind, name: name})
		}
		if m.Valid {
			i, ok := idx[m.Int32]
			if !ok {
				return fmt.Errorf("analysis: node set %d (%s) holds machine %d, which the dataset lacks", id, name, m.Int32)
			}
			s := &sets[len(sets)-1]
			s.machines = append(s.machines, i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int32]int32, len(sets))
	for _, s := range sets {
		ns, err := tr.Inv.NewNodeSet(s.name, s.kind, s.machines)
		if err != nil {
			return nil, err
		}
		tr.Inv.NodeSets = append(tr.Inv.NodeSets, ns)
		out[s.id] = int32(len(tr.Inv.NodeSets))
	}
	return out, nil
}

// ReplayableDatasets names the datasets whose current load has machines,
// in name order: those a replay or a capacity search can run on.
func ReplayableDatasets(ctx context.Context, db *store.DB) ([]string, error) {
	rows, err := db.SQL().QueryContext(ctx, store.MustQuery("replayable_datasets"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}
