package replay

import (
	"math"
	"time"

	"placelab/optimizer"
)

// Trace is a dataset loaded for replay: the inventory as the engines see it
// and the VMs in arrival order.
type Trace struct {
	Dataset string
	// LoadID is the load of Dataset the trace was read from: a run records
	// it, so that it stays tied to the rows it read.
	LoadID int64
	// TimeOrigin is the wall-clock instant t = 0 stands for
	// (dataset.time_origin), zero when the dataset's times are relative.
	TimeOrigin time.Time
	Inv        *optimizer.Inventory
	MachineIDs []int32 // database machine_id per inventory index
	VMs        []TraceVM
	TypeNames  []string
	// NumTenants is how many tenants the VMs belong to: TraceVM.Tenant
	// numbers them 0.. by first arrival.
	NumTenants int
	// Constraints are the distinct placement constraints of the VMs
	// (TraceVM.Cons).
	Constraints []Constraints
	// OnePerRequest makes every VM its own request (Requests): a
	// Kubernetes cluster's pods, which kube-scheduler places one by one —
	// a Deployment's replicas are not all or nothing.
	OnePerRequest bool
}

// TraceVM is one VM of a trace: 40 bytes, so that a trace of 10M VMs
// takes 400 MB.
type TraceVM struct {
	ID     int64 // vm_id
	Start  float64
	End    float64 // +Inf when still alive at the end of the trace
	Tenant int32
	Type   int32 // index into Inv.Types (a type no SKU can host is supported nowhere)
	// Cons is the VM's placement constraints, Trace.Constraints[Cons-1]
	// (0: none; Trace.ConstraintsOf).
	Cons     int32
	Priority uint8
}

// Constraints are a Kubernetes pod's placement constraints: Affinity and
// Tolerated its node sets (optimizer.VMRequest; 0: none), MaxPerMachine and
// MaxSkew its tenant's bounds (optimizer.Request; 0: none). A trace keeps
// each distinct one once (Trace.Constraints).
type Constraints struct {
	Affinity, Tolerated    int32
	MaxPerMachine, MaxSkew int32
}

// ConstraintsOf is v's placement constraints (the zero value: none).
func (tr *Trace) ConstraintsOf(v *TraceVM) Constraints {
	if v.Cons == 0 {
		return Constraints{}
	}
	return tr.Constraints[v.Cons-1]
}

// Policies lists the allocators a replay can use.
var Policies = []string{"protean", "firstfit", "bestfit", "worstfit", "random"}

// NewAllocator returns the allocator for a policy over a fresh state of
// tr's inventory. Protean and the baselines get the same configuration and
// rule set (optimizer.RulesFor): the same validators, eviction setting,
// buffers and weights; a baseline refuses settings it cannot honour
// (optimizer.Config.ValidateFor).
func NewAllocator(policy string, tr *Trace, cfg optimizer.Config) (optimizer.Allocator, error) {
	return NewAllocatorWith(policy, tr, cfg, nil)
}

// NewAllocatorWith is NewAllocator with a rule set (nil: optimizer.RulesFor).
func NewAllocatorWith(policy string, tr *Trace, cfg optimizer.Config, rules *optimizer.Rules) (optimizer.Allocator, error) {
	rs := optimizer.RulesFor(&cfg)
	if rules != nil {
		rs = *rules
	}
	state := optimizer.NewState(tr.Inv)
	if policy == "protean" {
		return optimizer.NewProtean(state, cfg, rs)
	}
	return optimizer.NewBaseline(optimizer.Policy(policy), state, cfg, rs)
}

// ScarcityWeights derives BestFit's weights from a trace: for each
// dimension, the mean share of a machine that the trace's VMs ask for
// (averaged over the SKUs each type runs on), scaled so the scarcest
// dimension weighs 1. Dimensions no VM asks for weigh 0.
func ScarcityWeights(tr *Trace) optimizer.Vec {
	inv := tr.Inv
	perType := make([]optimizer.Vec, len(inv.Types))
	for t, ty := range inv.Types {
		n := 0.0
		for s, ok := range ty.Supported {
			if !ok {
				continue
			}
			c := inv.SKUs[s].Capacity
			for i := range c {
				if c[i] > 0 {
					perType[t][i] += ty.Demand[s][i] / c[i]
				}
			}
			n++
		}
		for i := range perType[t] {
			if n > 0 {
				perType[t][i] /= n
			}
		}
	}
	var w optimizer.Vec
	for _, v := range tr.VMs {
		if v.Type >= 0 {
			w = w.Add(perType[v.Type])
		}
	}
	max := 0.0
	for _, x := range w {
		max = math.Max(max, x)
	}
	if max == 0 {
		return optimizer.Vec{optimizer.Cores: 1}
	}
	for i := range w {
		w[i] /= max
	}
	return w
}

// ArrivalRates is, per VM type of the trace, the arrival rate (per second)
// of high-priority VMs over the trace's arrival span: the input of the
// slides' safety score.
func ArrivalRates(tr *Trace) []float64 {
	rates := make([]float64, len(tr.Inv.Types))
	first, last := math.Inf(1), math.Inf(-1)
	for _, v := range tr.VMs {
		if v.Start < 0 || v.Priority != 0 {
			continue
		}
		rates[v.Type]++
		first, last = math.Min(first, v.Start), math.Max(last, v.Start)
	}
	span := last - first
	if span <= 0 {
		span = 1
	}
	for i := range rates {
		rates[i] /= span
	}
	return rates
}

// WithOwnHealth returns a copy of the trace whose inventory has its own
// machine table, so that a replay with outages can mark machines unhealthy
// without touching other runs of the same trace (the rest is shared).
func (tr *Trace) WithOwnHealth() *Trace {
	c := *tr
	c.Inv = tr.Inv.WithOwnHealth()
	return &c
}
