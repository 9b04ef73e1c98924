package datasets

import (
	"context"
	"encoding/json"
	"fmt"

	"placelab/datasets/k8s"
	store "placelab/sql"
)

// PlanEngine and PlanPolicy name the run of a fleet plan's placements
// (placelab plan): an offline placement of every pod or VM on the plan's
// new nodes, which placelab check verifies like any run.
const (
	PlanEngine = "offline"
	PlanPolicy = "fleet-plan"
)

// IngestK8sPlan loads a fleet plan written as a Kubernetes cluster (the
// plan's nodes as Node objects, each pod bound to its planned node by
// spec.nodeName, DaemonSet pods on every node they run on) as dataset name,
// through the same reader and writer as ingest k8s, so that the plan's
// constraints are the user's own objects read by the same rules. The bound
// pods become the plan's run (engine PlanEngine, policy PlanPolicy), not an
// observed one; its id is Counts.ObservedRun.
func IngestK8sPlan(ctx context.Context, db *store.DB, name string, paths []string, version string, params map[string]any) (store.Counts, error) {
	c, err := k8s.Load(paths...)
	if err != nil {
		return store.Counts{}, fmt.Errorf("plan %s: %w", name, err)
	}
	js, _ := json.Marshal(params)
	info := store.IngestInfo{Dataset: name, Format: "k8s", Source: "placelab plan", Params: string(js)}
	p := map[string]any{"source": "plan"}
	for k, v := range params {
		p[k] = v
	}
	return db.Ingest(ctx, info, func(w *store.Writer) error {
		return writeK8s(ctx, w, c, version, observedAs{engine: PlanEngine, policy: PlanPolicy, params: p})
	})
}

// PlanMachine is one machine of a VM fleet plan.
type PlanMachine struct {
	Name, SKU, Zone string
}

// PlanSKU is a machine type of a VM fleet plan.
type PlanSKU struct {
	Name                  string
	Cores, MemoryGB, GPUs float64
}

// PlanVM is one VM of a VM fleet plan and its machine (index into
// PlanFleet.Machines).
type PlanVM struct {
	Name, Tenant, Type string
	Priority           int16
	Start              float64
	End                *float64
	Machine            int32
}

// PlanVMType is a VM type's size.
type PlanVMType struct {
	Name                  string
	Cores, MemoryGB, GPUs float64
}

// PlanFleet is a VM trace's fleet plan: its machines, the VMs alive at the
// plan's instant and where each goes.
type PlanFleet struct {
	Dataset  string
	Source   string
	SKUs     []PlanSKU
	Machines []PlanMachine
	Types    []PlanVMType
	VMs      []PlanVM
	T        float64
	Params   map[string]any
	Version  string
}

// WritePlanFleet stores a VM fleet plan as dataset pf.Dataset (its SKUs,
// machines, VM types and VMs) with its placements as a run (PlanEngine,
// PlanPolicy) placed at pf.T, in one transaction; it returns the run's id.
func WritePlanFleet(ctx context.Context, db *store.DB, pf PlanFleet) (int64, error) {
	js, _ := json.Marshal(pf.Params)
	info := store.IngestInfo{Dataset: pf.Dataset, Format: "plan", Source: pf.Source, Params: string(js)}
	var obs []observedPlacement
	counts, err := db.Ingest(ctx, info, func(w *store.Writer) error {
		for _, s := range pf.SKUs {
			if err := w.Append("sku", s.Name, nil, s.Cores, s.MemoryGB, 0.0, 0.0, 0.0, s.GPUs, nil, nil); err != nil {
				return err
			}
		}
		for i, m := range pf.Machines {
			if err := w.Append("machine", int32(i), m.Name, m.Zone, m.Zone, m.Zone, m.Zone+"/"+m.SKU, int16(0), m.SKU, "healthy"); err != nil {
				return err
			}
		}
		for _, t := range pf.Types {
			if err := w.Append("vm_type", t.Name, nil, t.Cores, t.MemoryGB, 0.0, 0.0, 0.0, t.GPUs, nil); err != nil {
				return err
			}
		}
		for i, v := range pf.VMs {
			var end any
			if v.End != nil {
				end = *v.End
			}
			if err := w.Append("vm", int64(i), v.Name, v.Tenant, nil, v.Type, v.Priority, v.Start, end, nil, nil, nil, nil, nil); err != nil {
				return err
			}
			w.Counts.RowsLoaded++
			obs = append(obs, observedPlacement{vm: int64(i), t: pf.T, machine: v.Machine})
		}
		w.Counts.RowsRead = int64(len(pf.VMs))
		if err := deriveDemand(w); err != nil {
			return err
		}
		p := map[string]any{"source": "plan"}
		for k, v := range pf.Params {
			p[k] = v
		}
		return writeObservedRun(w, PlanEngine, PlanPolicy, pf.Version, p, obs)
	})
	if err != nil {
		return 0, err
	}
	return counts.ObservedRun, nil
}
