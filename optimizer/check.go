package optimizer

import "fmt"

// Rejection says why a rule set refused a VM on a machine (the model is
// Kubernetes' Status with InsufficientResource): the rule that refused and,
// when a resource rule refused for capacity, the first dimension that was
// short. The zero Rule means accepted.
type Rejection struct {
	Rule string `json:"rule"`
	Dim  Dim    `json:"dim"` // NoDim unless a ResourceValidator refused for capacity
}

// accepted is the Rejection of a VM the rule set allows.
var accepted = Rejection{Dim: NoDim}

// OK reports whether no rule refused.
func (r Rejection) OK() bool { return r.Rule == "" }

// String is the rule, with the short dimension when there is one:
// "AreNodeResourcesValid (memory short)".
func (r Rejection) String() string {
	switch {
	case r.Rule == "":
		return "accepted"
	case r.Dim == NoDim:
		return r.Rule
	}
	return fmt.Sprintf("%s (%s short)", r.Rule, r.Dim)
}

// Check is the uncached form of a rule set's validators for one VM of one
// request: may the VM go on machine m, and if not, which rule refused? It
// instantiates the machine validators for the VM's trait class once
// (NewValidator, as Protean's cache would) and applies, in rule order, the
// cluster validators of m's cluster, the machine validators and the request
// validators that apply to the request. The baselines, the commit store's
// conflict check, the eviction fallback and what-if migration all decide
// through it, so they obey exactly the validators Protean obeys.
//
// A Check reads the state live for machines but remembers each cluster's
// verdict from the first question about it: make a new Check after changing
// the state between questions about one cluster (cluster validators read
// cluster-level counts such as the empty machines of the buffer rule).
type Check struct {
	env      *Env
	rules    *Rules
	req      *Request
	v        VMRequest
	kind     RequestKind
	traits   Traits
	badType  bool
	machine  []MachineValidator
	request  []int  // indices into rules.Request of the validators that apply
	clusters []int8 // per cluster: 0 not asked, 1 valid, 2+i refused by cluster validator i
}

// NewCheck prepares the check of VM v of req, a request of kind kind
// (KindAuto is resolved on env's state), under rules.
func NewCheck(env *Env, rules *Rules, req *Request, kind RequestKind, v VMRequest) *Check {
	c := &Check{env: env, rules: rules, req: req, v: v, kind: resolveKind(env.State, req, kind), traits: req.traits(v)}
	if v.Type < 0 || int(v.Type) >= len(env.Inv.Types) {
		c.badType = true
		return c
	}
	c.machine = make([]MachineValidator, len(rules.Validators))
	for i, r := range rules.Validators {
		c.machine[i] = r.NewValidator(env, c.traits.project(r.Traits()))
	}
	for i, r := range rules.Request {
		if r.Applies(req) {
			c.request = append(c.request, i)
		}
	}
	c.clusters = make([]int8, len(env.Inv.Clusters))
	return c
}

// Check is the one-shot form: may VM v of req (of kind kind) go on machine
// m of env's state under r? Use NewCheck to ask about many machines.
func (r *Rules) Check(env *Env, req *Request, kind RequestKind, v VMRequest, m int32) Rejection {
	return NewCheck(env, r, req, kind, v).Machine(m)
}

// Machine applies every validator to machine m.
func (c *Check) Machine(m int32) Rejection {
	if rej := c.Cluster(c.env.Inv.Machines[m].Cluster); !rej.OK() {
		return rej
	}
	return c.OnMachine(m)
}

// Cluster applies the cluster validators to cluster cl.
func (c *Check) Cluster(cl int32) Rejection {
	if i := c.clusterRule(cl); i >= 0 {
		return Rejection{Rule: c.rules.ClusterValidators[i].Name(), Dim: NoDim}
	}
	if c.badType {
		return Rejection{Rule: ReasonBadType, Dim: NoDim}
	}
	return accepted
}

// OnMachine applies the machine and request validators to machine m, not
// the cluster validators (for a caller that checked m's cluster already).
func (c *Check) OnMachine(m int32) Rejection {
	if c.badType {
		return Rejection{Rule: ReasonBadType, Dim: NoDim}
	}
	i := c.machineRule(m)
	switch {
	case i < 0:
		return accepted
	case i < len(c.machine):
		rej := Rejection{Rule: c.rules.Validators[i].Name(), Dim: NoDim}
		if rv, ok := c.machine[i].(ResourceValidator); ok {
			rej.Dim = rv.Short(m)
		}
		return rej
	}
	return Rejection{Rule: c.rules.Request[i-len(c.machine)].Name(), Dim: NoDim}
}

// clusterRule is the index of the first cluster validator refusing cl, or -1.
func (c *Check) clusterRule(cl int32) int {
	if c.badType {
		return -1
	}
	if v := c.clusters[cl]; v != 0 {
		return int(v) - 2
	}
	for i, cv := range c.rules.ClusterValidators {
		if !cv.ValidCluster(c.env, c.req, c.kind, c.traits, cl) {
			c.clusters[cl] = int8(2 + i)
			return i
		}
	}
	c.clusters[cl] = 1
	return -1
}

// machineRule is the first validator refusing m, or -1: an index into the
// machine validators, or len(machine validators) + an index into
// rules.Request.
func (c *Check) machineRule(m int32) int {
	for i, v := range c.machine {
		if !v.IsValid(m) {
			return i
		}
	}
	for _, i := range c.request {
		if !c.rules.Request[i].ValidFor(c.env, c.req, c.v, m) {
			return len(c.machine) + i
		}
	}
	return -1
}

// ResolveKind is the buffer req uses on s (new deployment, scale-out,
// heal): req.Kind, or for KindAuto New when the tenant has no VM placed,
// else ScaleOut. The engines resolve it once per request, before placing
// any of its VMs; call it before Allocate to learn which buffer a request
// used.
func ResolveKind(s *State, req *Request) RequestKind { return resolveKind(s, req, req.Kind) }

// resolveKind is the buffer a request of kind kind uses: KindAuto is New
// when the tenant has no VM placed, else ScaleOut.
func resolveKind(s *State, req *Request, kind RequestKind) RequestKind {
	if kind != KindAuto {
		return kind
	}
	if s.TenantVMs(req.Tenant) > 0 {
		return KindScaleOut
	}
	return KindNew
}
