package optimizer

// Trait is a request property that rule state may depend on (§5.2.1).
// Requests with equal values of the traits a rule declares share one rule
// object; requests with equal trait vectors share one RuleEvaluation.
type Trait int

// The request traits.
const (
	TraitType           Trait = iota // VM type
	TraitPriority                    // 0 high, 1 low
	TraitIsolation                   // 1 if the VM requires a machine of its own tenant
	TraitProduction                  // 1 for a production VM (never oversubscribed, RC §5)
	TraitUtilBucket                  // predicted P95 CPU bucket, 0 = no confident prediction (RC Table 3)
	TraitLifetimeBucket              // predicted lifetime bucket, 0 = no confident prediction (RC Table 3)
	TraitLifeClass                   // predicted life class (LifeClassOf), 0 = no prediction
	NumTraits
)

// Traits is a request's trait vector.
type Traits [NumTraits]int32

// project keeps only the listed traits; the rest become 0.
func (t Traits) project(ts []Trait) Traits {
	var p Traits
	for _, x := range ts {
		p[x] = t[x]
	}
	return p
}

// TypeByShape is implemented by a rule whose objects read the VM type
// trait only through the type's shape: its demand and the SKUs that run it
// (Inventory.Types[t].Demand and .Supported). To such a rule two types of
// one shape are one type. When every rule that declares TraitType says so
// (TypeByShape returns true), a cached Protean keys its evaluations and
// their rule objects by shape (Protean.shapeOf), so the types of one shape
// share one evaluation and its upkeep.
type TypeByShape interface {
	TypeByShape() bool
}

// RequestKind selects the cluster buffer that applies (slides, "Buffers").
type RequestKind uint8

// Request kinds.
const (
	KindAuto     RequestKind = iota // New if the tenant has no VM placed, else ScaleOut
	KindNew                         // a new deployment
	KindScaleOut                    // an existing tenant grows
	KindHeal                        // re-creating VMs of a failed machine
)

// VMRequest is one VM of a service request.
type VMRequest struct {
	ID   VMID
	Type int32
	// SetIndex is the VM's index in its tenant's availability set: the
	// caller numbers a tenant's VMs 0, 1, 2, … in arrival order, across its
	// requests. With Request.FaultDomains F and UpdateDomains U it gives the
	// VM fault domain SetIndex mod F and update domain SetIndex mod U
	// (VMDomains); it means nothing when F and U are 0.
	SetIndex int32
	// Life is the VM's predicted lifetime distribution (none: Known false),
	// kept on its placement so that its machine's predicted empty time is
	// repredicted as it ages (State.Repredict).
	Life LifetimeDist
	// Affinity and Tolerated are the node sets the VM must be in (a
	// Kubernetes pod's node selector, required node affinity or pin, and
	// the nodes whose taints it tolerates): k stands for
	// Inventory.NodeSets[k-1]; 0 allows every machine (NodeAffinity,
	// TaintToleration).
	Affinity, Tolerated int32
}

// Request is a service request: the VMs of one tenant, allocated all or
// nothing (Algorithm 1).
type Request struct {
	ID       int64
	Tenant   int32
	Time     float64
	VMs      []VMRequest
	Priority uint8
	// Isolation: no other tenant may share a machine with these VMs.
	Isolation bool
	// MaxPerRack and MaxPerMachine bound the tenant's VMs per fault domain
	// and per machine (tenant anti-colocation); 0 = no bound.
	MaxPerRack, MaxPerMachine int32
	Kind                      RequestKind
	// Production marks production VMs (Resource Central §5: only
	// non-production VMs oversubscribe CPU); UtilBucket is the predicted
	// P95 CPU utilization bucket of RC Table 3 (1: ≤25%, 2: ≤50%, 3: ≤75%,
	// 4: ≤100%), 0 when no prediction reached the confidence threshold
	// (the VM is assumed to use all its cores). Both matter only under
	// Config.Oversub.
	Production bool
	UtilBucket int8
	// LifetimeBucket is the predicted lifetime bucket of RC Table 3 of the
	// request's VMs (1: ≤ 15 min, 2: 15–60 min, 3: 1–24 h, 4: > 24 h): the
	// bucket none of them is predicted to outlive. 0 when no prediction
	// reached the confidence threshold; any value outside 1..4 counts as 0.
	// It matters only to PreferAlignedLifetime (LifetimeRules), which is
	// indifferent to a request without a prediction.
	LifetimeBucket int8
	// LifeClass is the request's predicted life class (LifeClassOf of its
	// longest-lived VM's predicted lifetime; 0: none), the trait of
	// PreferLifetimeNILAS and PreferLifetimeLAVA.
	LifeClass int8
	// FaultDomains (F) and UpdateDomains (U) make the tenant's VMs an
	// availability set: VM v is in fault domain v.SetIndex mod F and update
	// domain v.SetIndex mod U, round-robin as Azure assigns them, and
	// AvailabilitySetSpread keeps the domains apart (a rack, a machine
	// update domain, holds one domain of the tenant). 0 turns a kind of
	// domain off; ValidateDomains bounds them by MaxFaultDomains and
	// MaxUpdateDomains.
	FaultDomains, UpdateDomains int32
	// MaxSkew bounds the spread of the tenant's VMs over clusters (a
	// Kubernetes DoNotSchedule topology spread constraint on the zone key;
	// a Kubernetes ingest makes one cluster per zone): after a placement on
	// cluster c, n_c(T) − min over the clusters the VM's affinity allows of
	// n(T) ≤ MaxSkew (PodTopologySpread). 0 = no bound.
	MaxSkew int32
	// Clusters, when non-nil, are the only clusters the request may use
	// (IsRequestedCluster): healing places a failed machine's VMs in its
	// own cluster first. Nil allows every cluster.
	Clusters []int32
}

func (r *Request) traits(v VMRequest) Traits {
	t := Traits{TraitType: v.Type, TraitPriority: int32(r.Priority)}
	if r.Isolation {
		t[TraitIsolation] = 1
	}
	if r.Production {
		t[TraitProduction] = 1
	}
	t[TraitUtilBucket] = int32(r.UtilBucket)
	t[TraitLifetimeBucket] = int32(lifetimeIndex(r.LifetimeBucket))
	if r.LifeClass > 0 && int(r.LifeClass) < NumLifeClasses {
		t[TraitLifeClass] = int32(r.LifeClass)
	}
	return t
}

// Env is what rules read: the inventory, the agent's view of it, the
// configuration.
type Env struct {
	Inv   *Inventory
	State *State
	Cfg   *Config
}

// Rule is the common part of every rule: a name (also the rejection reason
// it reports) and the request traits its state depends on.
type Rule interface {
	Name() string
	Traits() []Trait
}

// MachineValidatorRule creates validator objects for a trait class.
type MachineValidatorRule interface {
	Rule
	NewValidator(env *Env, t Traits) MachineValidator
}

// MachineValidator answers IsValid(x, v) for machine x and the requests of
// its trait class.
type MachineValidator interface {
	IsValid(m int32) bool
}

// ResourceValidator is a MachineValidator that checks resources (the model
// is Kubernetes' InsufficientResource): Short names the first dimension in
// which machine m lacks room for the VM, or NoDim when none is short (the
// machine passes, or fails for another reason such as an unsupported SKU).
// Explanations and rejections use it to say which resource was short.
type ResourceValidator interface {
	MachineValidator
	Short(m int32) Dim
}

// MachinePreferenceRule creates preference objects for a trait class.
type MachinePreferenceRule interface {
	Rule
	NewPreference(env *Env, t Traits) MachinePreference
}

// MachinePreference scores a machine: lower is better, already quantized
// into the rule's buckets. Compare(x, y | v) is the sign of Score(y)-Score(x).
type MachinePreference interface {
	Score(m int32) int64
}

// GlobalRule prefers among racks (cells) rather than machines (§5.2.5): a
// change to one machine changes the score of its whole rack.
type GlobalRule interface {
	Rule
	ScoreRack(env *Env, t Traits, r int32) int64
}

// ClusterValidator filters clusters for a request (uncached: a zone has at
// most a few hundred clusters, §5.1).
type ClusterValidator interface {
	Name() string
	ValidCluster(env *Env, req *Request, kind RequestKind, t Traits, c int32) bool
}

// AcceptsAllClusters is implemented by a cluster validator that can tell,
// from the request alone, that it accepts every cluster for it; cluster
// selection then skips it for that request (its refusal count stays 0,
// as evaluating it would leave it).
type AcceptsAllClusters interface {
	AcceptsAllClusters(req *Request) bool
}

// ClusterPreference scores clusters; lower is better.
type ClusterPreference interface {
	Name() string
	ScoreCluster(env *Env, t Traits, c int32) int64
}

// RequestValidator is a machine validator that depends on the tenant or on
// the VM itself (anti-colocation, availability-set spread), so it cannot be
// cached per trait class: it "escapes" the cache and is applied to
// candidates at pick time.
type RequestValidator interface {
	Name() string
	// Applies reports whether the rule can reject anything for req; when
	// it cannot, pick skips it.
	Applies(req *Request) bool
	// ValidFor reports whether VM v of req may go on machine m.
	ValidFor(env *Env, req *Request, v VMRequest, m int32) bool
}

// RackValidator is a RequestValidator that can refuse a whole rack (every
// machine in it) at once, so that machine selection skips the rack without
// visiting its machines: ValidRack(v, r) false must imply ValidFor(v, m)
// false for every machine m of rack r.
type RackValidator interface {
	RequestValidator
	ValidRack(env *Env, req *Request, v VMRequest, r int32) bool
}

// InRackValidator is a RackValidator whose verdict on a machine, once the
// machine's rack passed ValidRack for the same VM, reduces to ValidInRack:
// machine selection walks a rack's machines asking only that, and never
// asks the rack's conditions again per machine. ValidFor(m) must equal
// ValidRack(rack(m)) && ValidInRack(m).
type InRackValidator interface {
	RackValidator
	ValidInRack(env *Env, req *Request, v VMRequest, m int32) bool
}

// PreparedInRack is an InRackValidator that prepares ValidInRack for one
// VM: machine selection asks the returned predicate about the machines of
// every rack it walks for that VM, so work that depends on the request and
// the VM alone is done once.
type PreparedInRack interface {
	InRackValidator
	PrepareInRack(env *Env, req *Request, v VMRequest) func(m int32) bool
	// PrepareRack is ValidRack for VM v of req on the state as it is now
	// (machine selection asks it of every rack it considers for v, before
	// anything changes).
	PrepareRack(env *Env, req *Request, v VMRequest) func(r int32) bool
}

// Quantize maps a score S ∈ [0, 1] to ⌈S·N⌉ (§3.3); N = 0 means no
// quantization (∞ buckets), kept to 1e-9 resolution as an integer.
func Quantize(s float64, n int) int64 {
	if s < 0 {
		s = 0
	}
	if s > 1 {
		s = 1
	}
	if n <= 0 {
		return int64(s*1e9 + 0.5)
	}
	q := s * float64(n)
	b := int64(q)
	if float64(b) < q-1e-12 {
		b++
	}
	return b
}
