package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	store "placelab/sql"
)

// Sentinel errors of reading a stored run against its data.
var (
	// ErrUnpinned says a run records no load (written before runs pinned
	// their input, or a run that read no dataset).
	ErrUnpinned = errors.New("analysis: run does not pin the data it read")
	// ErrLoadGone says the load a run read was replaced by a re-ingest.
	ErrLoadGone = errors.New("analysis: the data this run read has been replaced")
)

// RunInput is what a stored run read: its dataset and load, its placements
// and its cores limit (MAX_OVERSUB for an oversubscribing run, else 1).
type RunInput struct {
	Run        int64
	Dataset    string
	LoadID     int64
	Placements int64
	CoresLimit float64
}

// LoadRunInput returns the input a run pinned, refusing a run whose load is
// no longer the dataset's: its placements would be read against other rows.
func LoadRunInput(ctx context.Context, db *store.DB, run int64) (*RunInput, error) {
	in := &RunInput{Run: run}
	var ds sql.NullString
	var load, cur sql.NullInt64
	err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_load"), run).Scan(&ds, &load, &cur, &in.Placements, &in.CoresLimit)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d (placelab sql --view run_summary lists the runs)", ErrNoRun, run)
	}
	if err != nil {
		return nil, err
	}
	in.Dataset = ds.String
	switch {
	case !ds.Valid || !load.Valid:
		return nil, fmt.Errorf("%w: run %d (dataset %q) records no load id; replay it again to check it", ErrUnpinned, run, ds.String)
	case !cur.Valid:
		return nil, fmt.Errorf("%w: run %d read load %d of dataset %q, which is no longer loaded", ErrLoadGone, run, load.Int64, ds.String)
	case cur.Int64 != load.Int64:
		return nil, fmt.Errorf("%w: run %d read load %d of dataset %q; the dataset was re-ingested since (now load %d), so its placements no longer match the data",
			ErrLoadGone, run, load.Int64, ds.String, cur.Int64)
	}
	in.LoadID = load.Int64
	return in, nil
}

// CapacityViolation is a machine a run over-committed in a dimension
// (Peak > 1 of its capacity; for cores, > the run's cores limit), or a
// placement the data cannot account for (Problem unknown_vm,
// unknown_machine, type_unsupported; Peak 0).
type CapacityViolation struct {
	MachineID int32   `json:"machine_id"`
	Problem   string  `json:"problem"` // cores, memory, ssd, hdd, nic, gpu, or one of the above
	Peak      float64 `json:"peak"`    // load / capacity at its peak
	AtS       float64 `json:"at_s"`    // trace time of the peak (first occurrence)
	// Machine and SKU are the machine's and its SKU's names ("" for a
	// machine the load lacks); Capacity is the SKU's capacity in the
	// dimension and Load the machine's load at the peak (Peak × Capacity),
	// both in the SKU's units (Unit: cores, GB, Gbit/s, GPUs, pod slots;
	// 0 for the problems without a peak).
	Machine  string  `json:"machine"`
	SKU      string  `json:"sku,omitempty"`
	Capacity float64 `json:"capacity,omitempty"`
	Load     float64 `json:"load,omitempty"`
	Unit     string  `json:"unit,omitempty"`
	// VMs names the first few VMs on the machine at the peak, largest in
	// the dimension first (for the problems without a peak, the VMs so
	// placed); VMCount counts them all.
	VMs     []string `json:"vms"`
	VMCount int64    `json:"vm_count"`
}

// capacityUnits are the units of check_capacity's dimensions.
var capacityUnits = map[string]string{"cores": "cores", "memory": "GB memory", "ssd": "GB SSD", "hdd": "GB HDD",
	"nic": "Gbit/s NIC", "gpu": "GPUs", "pods": "pod slots"}

// AvailabilityViolation is a stored row that breaks the availability rules
// of a run with outages or availability sets (query check_availability):
// Problem is placed_during_outage, stayed_through_failure,
// move_without_failure, fault_domain_shared_rack or update_domain_shared;
// OtherVM names the second VM of a spread violation (-1 otherwise).
type AvailabilityViolation struct {
	Problem   string  `json:"problem"`
	VM        int64   `json:"vm_id"`
	MachineID int32   `json:"machine_id"`
	AtS       float64 `json:"at_s"`
	OtherVM   int64   `json:"other_vm"`
	// VMName, MachineName and OtherVMName are the user's names of VM,
	// MachineID and OtherVM ("" when absent).
	VMName      string `json:"vm"`
	MachineName string `json:"machine"`
	OtherVMName string `json:"other_vm_name,omitempty"`
	// Detail names the tenant, both domains and the rack or machine
	// update domain of a spread violation ("" otherwise).
	Detail string `json:"detail,omitempty"`
}

// ConstraintViolation is a stored placement that breaks a placement
// constraint of its load (query check_constraints): Problem is affinity,
// taint, anti_affinity or topology_spread; or a VM put on a machine out of
// service (query check_health): unhealthy_machine. Detail says by how much.
type ConstraintViolation struct {
	Problem   string  `json:"problem"`
	VM        int64   `json:"vm_id"`
	MachineID int32   `json:"machine_id"`
	AtS       float64 `json:"at_s"`
	Detail    string  `json:"detail"`
	// VMName and MachineName are the user's names of VM and MachineID.
	VMName      string `json:"vm"`
	MachineName string `json:"machine"`
}

// CheckReport is the outcome of CheckRun.
type CheckReport struct {
	RunInput
	// Outages, Moves and Domains count the run's availability rows checked.
	Outages    int64                   `json:"outages"`
	Moves      int64                   `json:"moves"`
	Domains    int64                   `json:"domains"`
	Violations []CapacityViolation     `json:"violations"`
	Avail      []AvailabilityViolation `json:"availability_violations"`
	// Constrained counts the run's placed VMs that carry a placement
	// constraint (vm_constraint); Constraints lists the violations.
	Constrained int64                 `json:"constrained_vms"`
	Constraints []ConstraintViolation `json:"constraint_violations"`
}

// OK reports whether the run kept every machine within capacity and broke
// no availability rule.
func (r *CheckReport) OK() bool {
	return len(r.Violations) == 0 && len(r.Avail) == 0 && len(r.Constraints) == 0
}

// CheckRun verifies a stored run independently of the engines: SQL over
// placement, vm_move, vm, vm_type_demand and machine of the load the run
// pinned (query check_capacity) finds every machine over capacity in any
// dimension at any time; for a run with outages or availability sets, query
// check_availability finds every placement during an outage of its machine,
// every VM left on a machine that failed hard, every heal move without a
// failure behind it and every tenant whose stored placements break its
// fault- or update-domain spread.
func CheckRun(ctx context.Context, db *store.DB, run int64) (*CheckReport, error) {
	in, err := LoadRunInput(ctx, db, run)
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{RunInput: *in, Violations: []CapacityViolation{}}
	err = Each(ctx, db.SQL(), "check_capacity", []any{run, in.CoresLimit}, func(r *sql.Rows) error {
		var v CapacityViolation
		var peak, capacity, load sql.NullFloat64
		var machine, sku sql.NullString
		var vms any // a LIST: []any of names
		if err := r.Scan(&v.MachineID, &v.Problem, &peak, &v.AtS, &machine, &sku, &capacity, &load, &vms, &v.VMCount); err != nil {
			return err
		}
		v.Peak, v.Machine, v.SKU, v.Capacity, v.Load = peak.Float64, machine.String, sku.String, capacity.Float64, load.Float64
		if peak.Valid {
			v.Unit = capacityUnits[v.Problem]
		}
		list, _ := vms.([]any)
		v.VMs = make([]string, 0, len(list))
		for _, x := range list {
			if s, ok := x.(string); ok {
				v.VMs = append(v.VMs, s)
			}
		}
		rep.Violations = append(rep.Violations, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("check_availability_rows"), run).Scan(&rep.Outages, &rep.Moves, &rep.Domains); err != nil {
		return nil, err
	}
	rep.Avail = []AvailabilityViolation{}
	if err := checkConstraints(ctx, db, run, rep); err != nil {
		return nil, err
	}
	if rep.Outages+rep.Moves+rep.Domains == 0 {
		return rep, nameViolations(ctx, db, rep)
	}
	err = Each(ctx, db.SQL(), "check_availability", []any{run}, func(r *sql.Rows) error {
		var v AvailabilityViolation
		var machine sql.NullInt32
		var other sql.NullInt64
		var detail sql.NullString
		if err := r.Scan(&v.Problem, &v.VM, &machine, &v.AtS, &other, &detail); err != nil {
			return err
		}
		v.MachineID, v.OtherVM = -1, -1
		if machine.Valid {
			v.MachineID = machine.Int32
		}
		if other.Valid {
			v.OtherVM = other.Int64
		}
		v.Detail = detail.String
		rep.Avail = append(rep.Avail, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nameViolations(ctx, db, rep)
}

// nameViolations fills the user's names of the VMs and machines the
// availability and constraint violations give by id (query check_names).
func nameViolations(ctx context.Context, db *store.DB, rep *CheckReport) error {
	if len(rep.Avail)+len(rep.Constraints) == 0 {
		return nil
	}
	var vms, machines []int64
	for _, v := range rep.Avail {
		vms = append(vms, v.VM)
		if v.OtherVM >= 0 {
			vms = append(vms, v.OtherVM)
		}
		machines = append(machines, int64(v.MachineID))
	}
	for _, v := range rep.Constraints {
		vms, machines = append(vms, v.VM), append(machines, int64(v.MachineID))
	}
	vmName, machineName := map[int64]string{}, map[int64]string{}
	err := Each(ctx, db.SQL(), "check_names", []any{rep.LoadID, vms, machines}, func(r *sql.Rows) error {
		var kind, name string
		var id int64
		if err := r.Scan(&kind, &id, &name); err != nil {
			return err
		}
		if kind == "vm" {
			vmName[id] = name
		} else {
			machineName[id] = name
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range rep.Avail {
		v := &rep.Avail[i]
		v.VMName, v.MachineName = vmName[v.VM], machineName[int64(v.MachineID)]
		if v.OtherVM >= 0 {
			v.OtherVMName = vmName[v.OtherVM]
		}
	}
	for i := range rep.Constraints {
		v := &rep.Constraints[i]
		v.VMName, v.MachineName = vmName[v.VM], machineName[int64(v.MachineID)]
	}
	return nil
}

// checkConstraints fills rep's constraint fields: machine health (query
// check_health) for every run, the placement constraints (query
// check_constraints) when the run's load has any constrained VM.
func checkConstraints(ctx context.Context, db *store.DB, run int64, rep *CheckReport) error {
	rep.Constraints = []ConstraintViolation{}
	scan := func(r *sql.Rows) error {
		var v ConstraintViolation
		if err := r.Scan(&v.Problem, &v.VM, &v.MachineID, &v.AtS, &v.Detail); err != nil {
			return err
		}
		rep.Constraints = append(rep.Constraints, v)
		return nil
	}
	if err := Each(ctx, db.SQL(), "check_health", []any{run}, scan); err != nil {
		return err
	}
	err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM placement p JOIN run r USING (run_id)
		JOIN vm_constraint c ON c.load_id = r.load_id AND c.vm_id = p.vm_id
		WHERE p.run_id = $1 AND p.machine_id IS NOT NULL`, run).Scan(&rep.Constrained)
	if err != nil || rep.Constrained == 0 {
		return err
	}
	return Each(ctx, db.SQL(), "check_constraints", []any{run}, scan)
}
