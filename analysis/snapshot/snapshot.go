package snapshot

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/optimizer"
	store "placelab/sql"
)

// RunState is what a stored run held at one instant, rebuilt from its rows:
// the one way every planner (whatif migrate, whatif drain, explain
// --machine, capacity --like, the cluster bound) starts from a run.
//
// State holds every VM the run had placed at T with its whole Placement,
// as the engine placed it: type and demand on its machine, tenant,
// priority, node sets (affinity — a zonal volume's zone included — and
// tolerations), tenant bounds (MaxPerMachine, MaxSkew), its availability
// set (the fault and update domains the run stored in placement_domain,
// with the set's F and U from the run's parameters) and its pin (a
// DaemonSet's or a static pod). Rules and Cfg are the run's own settings
// that decide feasibility (buffers, BestFit weights); a run that
// oversubscribed CPU is read but refused by the planners (Planning), its
// feasibility resting on predictions no row keeps.
type RunState struct {
	Run     int64
	Dataset string
	Policy  string
	Engine  string
	// T is the instant: the run's last event (its last sample or
	// placement, or its dataset's last arrival when later) unless asked.
	T     float64
	Trace *replay.Trace
	State *optimizer.State
	Cfg   optimizer.Config
	Rules optimizer.Rules
	// FaultDomains and UpdateDomains are the run's availability sets (0:
	// off); Oversub whether it oversubscribed CPU.
	FaultDomains, UpdateDomains int32
	Oversub                     bool
	// Pending are the VMs (indices into Trace.VMs) alive at T that the run
	// did not place: a cluster's Pending pods, a replay's rejected VMs.
	Pending []int
	// PinnedVMs are the placed VMs pinned to their machine, by vm_id.
	PinnedVMs []optimizer.VMID
	// TenantNames names the trace's tenant indices (TraceVM.Tenant): a
	// Kubernetes pod's namespace/owner.
	TenantNames []string

	names   map[int64]string
	pins    map[int64]optimizer.Pin
	doms    map[int64]dom
	vmIndex map[int64]int
	// Tried: VMs PlacePending placed (not the run's placements).
	Tried map[optimizer.VMID]bool
	sizes map[string]optimizer.Vec
	sized map[string]bool
}

// dom is a VM's stored fault and update domain (NULL: none).
type dom struct{ f, u sql.NullInt16 }

// ErrNoSnapshot says a snapshot instant holds nothing the run placed.
var ErrNoSnapshot = errors.New("analysis: the run holds no VM at that instant")

// runParams are the parts of run.params a snapshot reads.
type runParams struct {
	Buffers       *optimizer.Buffers `json:"buffers"`
	Weights       *optimizer.Vec     `json:"weights"`
	FaultDomains  int32              `json:"fault_domains"`
	UpdateDomains int32              `json:"update_domains"`
	MaxOversub    *float64           `json:"max_oversub"`
}

// Load rebuilds run's state at at (NaN: the run's last event). An
// instant at which the run held no VM is refused (ErrNoSnapshot), never
// answered with an empty state.
func Load(ctx context.Context, db *store.DB, run int64, at float64) (*RunState, error) {
	if math.IsInf(at, 0) {
		return nil, fmt.Errorf("analysis: snapshot time %v: want a finite time", at)
	}
	lr, err := analysis.LoadRunStays(ctx, db, run)
	if err != nil {
		return nil, err
	}
	rs := &RunState{Run: run, Dataset: lr.Dataset, Policy: lr.Policy, T: at, Trace: lr.Trace}
	var params sql.NullString
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_params"), run).Scan(&rs.Engine, &params); err != nil {
		return nil, err
	}
	tr := lr.Trace
	if math.IsNaN(rs.T) {
		// The run's last event: its last sample or placement, or the last
		// arrival of its dataset when later (a cluster's Pending pods,
		// created after the last pod the scheduler bound).
		rs.T = lr.Last
		for i := range tr.VMs {
			if v := &tr.VMs[i]; v.Start > rs.T && v.Start < v.End {
				rs.T = v.Start
			}
		}
	}
	inv := tr.Inv
	// The run's settings.
	var pr runParams
	if params.Valid && params.String != "" {
		if err := json.Unmarshal([]byte(params.String), &pr); err != nil {
			return nil, fmt.Errorf("analysis: run %d: params: %w", run, err)
		}
	}
	rs.Cfg = optimizer.DefaultConfig()
	rs.Cfg.Buffers = optimizer.Buffers{} // an observed run keeps no buffers
	if pr.Buffers != nil {
		rs.Cfg.Buffers = *pr.Buffers
	}
	rs.Cfg.Weights = replay.ScarcityWeights(tr)
	if pr.Weights != nil && *pr.Weights != (optimizer.Vec{}) {
		rs.Cfg.Weights = *pr.Weights
	}
	rs.Oversub = pr.MaxOversub != nil
	rs.Rules = optimizer.DefaultRules()
	rs.FaultDomains, rs.UpdateDomains = pr.FaultDomains, pr.UpdateDomains
	// Domains, names and pins.
	doms := map[int64]dom{}
	err = analysis.Each(ctx, db.SQL(), "run_domains", []any{run}, func(r *sql.Rows) error {
		var id int64
		var d dom
		if err := r.Scan(&id, &d.f, &d.u); err != nil {
			return err
		}
		doms[id] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	rs.names = map[int64]string{}
	pins := map[int64]optimizer.Pin{}
	tenantOf := map[int64]string{}
	err = analysis.Each(ctx, db.SQL(), "cluster_vms", []any{tr.LoadID}, func(r *sql.Rows) error {
		var id int64
		var name, tenant string
		var pin, static bool
		if err := r.Scan(&id, &name, &pin, &static, &tenant); err != nil {
			return err
		}
		rs.names[id] = name
		tenantOf[id] = tenant
		switch {
		case static:
			pins[id] = optimizer.PinStatic
		case pin:
			pins[id] = optimizer.PinNode
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rs.pins, rs.doms = pins, doms
	rs.vmIndex = make(map[int64]int, len(tr.VMs))
	rs.TenantNames = make([]string, tr.NumTenants)
	for i := range tr.VMs {
		v := &tr.VMs[i]
		rs.vmIndex[v.ID] = i
		if int(v.Tenant) < len(rs.TenantNames) {
			rs.TenantNames[v.Tenant] = tenantOf[v.ID]
		}
	}
	// The placements alive at T, in vm_id order.
	stays := slices.Clone(lr.Stays)
	sort.SliceStable(stays, func(i, j int) bool { return stays[i].VM < stays[j].VM })
	rs.State = optimizer.NewState(inv)
	placed := map[int64]bool{}
	for _, st := range stays {
		if !(st.From <= rs.T && rs.T < st.To) {
			continue
		}
		v := &tr.VMs[rs.vmIndex[st.VM]]
		p, err := rs.placementOf(v, st.Type, math.Max(v.Start, st.From))
		if err != nil {
			return nil, err
		}
		p.Machine, p.Pin = st.Machine, pins[st.VM]
		p.Demand, _ = inv.Demand(st.Type, st.Machine)
		rs.State.Place(p)
		placed[st.VM] = true
		if p.Pin != optimizer.PinNone {
			rs.PinnedVMs = append(rs.PinnedVMs, p.VM)
		}
	}
	for i, v := range tr.VMs {
		if v.Start <= rs.T && rs.T < v.End && !placed[v.ID] {
			rs.Pending = append(rs.Pending, i)
		}
	}
	if rs.State.Len() == 0 && len(rs.Pending) == 0 {
		return nil, fmt.Errorf("%w: run %d of dataset %q at t=%gs (its placements span [%gs, %gs]; --at picks another instant)",
			ErrNoSnapshot, run, rs.Dataset, rs.T, lr.From, lr.Last)
	}
	return rs, nil
}

// placementOf is VM v of type typ as a placement starting at start, with
// every constraint it carries (node sets, tenant bounds) and its stored
// availability-set domains, but no machine: what the snapshot places and
// PlacePending asks the rules about.
func (rs *RunState) placementOf(v *replay.TraceVM, typ int32, start float64) (optimizer.Placement, error) {
	c := rs.Trace.ConstraintsOf(v)
	p := optimizer.Placement{VM: v.ID, Type: typ, Tenant: v.Tenant, Priority: v.Priority, Affinity: c.Affinity,
		Tolerated: c.Tolerated, MaxPerMachine: c.MaxPerMachine, MaxSkew: c.MaxSkew, Start: start}
	if dm, ok := rs.doms[v.ID]; ok {
		if err := rs.setDomains(&p, dm.f, dm.u); err != nil {
			return p, err
		}
	}
	return p, nil
}

// setDomains gives p its availability set: the fault and update domains
// the run stored (0-based, NULL when off) as Domains, the set's F and U,
// and a SetIndex with SetIndex mod F = f and mod U = u, so that the VM's
// rebuilt request (optimizer.RequestOf) is asked about in the same domains.
func (rs *RunState) setDomains(p *optimizer.Placement, f, u sql.NullInt16) error {
	F, U := rs.FaultDomains, rs.UpdateDomains
	if (f.Valid && (F <= 0 || int32(f.Int16) >= F)) || (u.Valid && (U <= 0 || int32(u.Int16) >= U)) {
		return fmt.Errorf("analysis: run %d: VM %d's stored domains (%v, %v) do not fit the run's %d fault and %d update domains",
			rs.Run, p.VM, f.Int16, u.Int16, F, U)
	}
	if !f.Valid {
		F = 0
	}
	if !u.Valid {
		U = 0
	}
	p.SetF, p.SetU = int8(F), int8(U)
	lcm := max(F, 1) * max(U, 1)
	for i := range lcm {
		if (F == 0 || i%F == int32(f.Int16)) && (U == 0 || i%U == int32(u.Int16)) {
			p.SetIndex = i
			req := optimizer.Request{FaultDomains: F, UpdateDomains: U}
			p.FaultDomain, p.UpdateDomain = optimizer.VMDomains(&req, optimizer.VMRequest{SetIndex: i})
			return nil
		}
	}
	return fmt.Errorf("analysis: run %d: VM %d's fault domain %d and update domain %d of %d and %d: no set index has both",
		rs.Run, p.VM, f.Int16, u.Int16, F, U)
}

// Planning refuses a run whose state a planner cannot judge with the
// run's own rules: one that oversubscribed CPU (its fit rule reads
// predicted utilization no stored row keeps).
func (rs *RunState) Planning(what string) error {
	if rs.Oversub {
		return fmt.Errorf("%w: %s of run %d: the run oversubscribed CPU, whose fit rule reads predicted utilization that is not stored; plan a run without --oversub",
			analysis.ErrBadSpec, what, rs.Run)
	}
	return nil
}

// Name is a VM's name (the vm table's: namespace/name for a pod), or its
// id when it has none.
func (rs *RunState) Name(vm int64) string {
	if n := rs.names[vm]; n != "" {
		return n
	}
	return fmt.Sprint(vm)
}

// MachineName is inventory machine m's name.
func (rs *RunState) MachineName(m int32) string { return rs.Trace.Inv.Machines[m].Name }

// VM is the trace VM of vm_id id.
func (rs *RunState) VM(id int64) (*replay.TraceVM, bool) {
	i, ok := rs.vmIndex[id]
	if !ok {
		return nil, false
	}
	return &rs.Trace.VMs[i], true
}

// FindVM finds a VM by name or, failing that, by vm_id written in decimal.
func (rs *RunState) FindVM(key string) (*replay.TraceVM, bool) {
	for i := range rs.Trace.VMs {
		if rs.names[rs.Trace.VMs[i].ID] == key {
			return &rs.Trace.VMs[i], true
		}
	}
	var id int64
	if _, err := fmt.Sscanf(key, "%d", &id); err == nil && fmt.Sprint(id) == key {
		return rs.VM(id)
	}
	return nil, false
}

// TypeSize is a VM type's own size (the vm_type row: cores, memory GB, …,
// pods), whatever machine it is on — a Pending pod that fits no node
// included; false when the dataset states its types only as fractions of a
// machine (the Azure packing trace).
func (rs *RunState) TypeSize(ctx context.Context, db *store.DB, t int32) (optimizer.Vec, bool, error) {
	if rs.sizes == nil {
		rs.sizes, rs.sized = map[string]optimizer.Vec{}, map[string]bool{}
		err := analysis.Each(ctx, db.SQL(), "type_sizes", []any{rs.Trace.LoadID}, func(r *sql.Rows) error {
			var name string
			var v [optimizer.NumDims]sql.NullFloat64
			if err := r.Scan(&name, &v[optimizer.Cores], &v[optimizer.Memory], &v[optimizer.SSD], &v[optimizer.HDD],
				&v[optimizer.NIC], &v[optimizer.GPU], &v[optimizer.Pods]); err != nil {
				return err
			}
			var x optimizer.Vec
			for d := range x {
				x[d] = v[d].Float64
			}
			rs.sizes[name], rs.sized[name] = x, v[optimizer.Cores].Valid && v[optimizer.Memory].Valid
			return nil
		})
		if err != nil {
			return optimizer.Vec{}, false, err
		}
	}
	name := rs.Trace.Inv.Types[t].Name
	return rs.sizes[name], rs.sized[name], nil
}

// ResolveVM is the vm_id of the VM of run's load named key (a pod's
// namespace/name) or, when no VM has that name, whose vm_id key is; a name
// several VMs share is refused (give the vm_id).
func ResolveVM(ctx context.Context, db *store.DB, run int64, key string) (int64, error) {
	id, err := resolve(ctx, db, "resolve_vm", "VM", "vm_id", run, key)
	return id, err
}

// ResolveMachine is the machine_id of the machine of run's load named key
// or, when none has that name, whose machine_id key is.
func ResolveMachine(ctx context.Context, db *store.DB, run int64, key string) (int32, error) {
	id, err := resolve(ctx, db, "resolve_machine", "machine", "machine_id", run, key)
	return int32(id), err
}

// resolve runs a resolve_* query.
func resolve(ctx context.Context, db *store.DB, query, what, idName string, run int64, key string) (int64, error) {
	var id, n int64
	err := db.SQL().QueryRowContext(ctx, store.MustQuery(query), run, key).Scan(&id, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("analysis: run %d's load has no %s named %q and none with that %s", run, what, key, idName)
	case err != nil:
		return 0, err
	case n > 1:
		return 0, fmt.Errorf("analysis: %d %ss of run %d's load are named %q: give the %s", n, what, run, key, idName)
	}
	return id, nil
}

// PlanRow is one VM of a stored plan and the machine it is placed on.
type PlanRow struct {
	VM      int64
	Machine int32
}

// StorePlan stores rows as an offline run of the snapshot's load placed at
// T, with the source run's availability-set domains of those VMs
// (placement_domain), so that placelab check verifies the plan against the
// constraints its source run kept; it returns the run's id.
func (rs *RunState) StorePlan(ctx context.Context, db *store.DB, rows []PlanRow, policy string, extra map[string]any) (int64, error) {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return 0, err
	}
	params := map[string]any{"source_run": rs.Run, "t_s": rs.T, "objective": "nodes"}
	if rs.FaultDomains > 0 {
		params["fault_domains"] = rs.FaultDomains
	}
	if rs.UpdateDomains > 0 {
		params["update_domains"] = rs.UpdateDomains
	}
	for k, v := range extra {
		params[k] = v
	}
	js, err := json.Marshal(params)
	if err != nil {
		return 0, err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].VM < rows[j].VM })
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Append("run", id, analysis.OfflineEngine, policy, string(js), int64(0), rs.Dataset, "lpbound",
			time.Now().UTC(), 0.0, "done", analysis.LoadID(rs.Trace.LoadID)); err != nil {
			return err
		}
		for _, r := range rows {
			if err := w.Append("placement", id, r.VM, rs.T, r.Machine, int16(0), int32(0), nil, "placed", nil, nil, nil); err != nil {
				return err
			}
		}
		for _, r := range rows {
			p, ok := rs.State.Lookup(r.VM)
			if !ok || (p.FaultDomain == optimizer.NoDomain && p.UpdateDomain == optimizer.NoDomain) {
				continue
			}
			if err := w.Append("placement_domain", id, r.VM, analysis.Domain(int16(p.FaultDomain.Index())), analysis.Domain(int16(p.UpdateDomain.Index()))); err != nil {
				return err
			}
		}
		return nil
	})
	return id, err
}
