package optimizer

import "slices"

// RuleSpec is one validator's entry in the registry: the one definition of
// a constraint is the rule itself (its ValidFor, IsValid or ValidCluster),
// and the registry says who else must keep it and how — in the spirit of
// the Kubernetes scheduling framework's plugin registry. Every engine
// (Protean, the baselines, agents' commits, eviction, healing, what-if
// migration) decides through the rule (Check, NewCheck, MoveCheck); the
// drain planner keeps its own fast encoding (Drain), generated from the
// rule where it is static and held to it by a conformance test
// (analysis.TestDrainConformsToRules); placelab check's SQL finds a stored
// placement that breaks it (Check).
type RuleSpec struct {
	Name string `json:"rule"`
	// Level is where the rule runs: "cluster", "machine" or "request".
	Level string `json:"level"`
	// Check lists the problems placelab check reports for a stored
	// placement that breaks the rule (the problem column of the check_*
	// queries); Unchecked says why a rule has none.
	Check     []string `json:"check"`
	Unchecked string   `json:"unchecked,omitempty"`
	// Drain is how the drain planner (optimizer/drain) encodes the rule.
	Drain string `json:"drain"`
}

// resourceChecks are check_capacity's problems: a machine over capacity in
// a dimension, a placement the data cannot account for.
var resourceChecks = []string{"cores", "memory", "ssd", "hdd", "nic", "gpu", "pods"}

// registry holds every validator of the rule sets (DefaultRules,
// OversubRules, LifetimeRules, LifeClassRules).
var registry = []RuleSpec{
	{Name: RuleIsTypeSupported, Level: "cluster", Check: []string{"type_unsupported"},
		Drain: "Pod.DomainOK: the nodes of SKUs that run the type"},
	{Name: RuleIsClusterHealthy, Level: "cluster", Check: []string{"unhealthy_machine", "placed_during_outage"},
		Drain: "Node.Schedulable (no move onto a machine out of service)"},
	{Name: RuleIsClusterBelowLimit, Level: "cluster",
		Unchecked: "a buffer of empty machines the engine keeps for later requests (Protean §6.3); using it breaks no constraint of the load",
		Drain:     "none: a drain empties machines, it never uses a buffer"},
	{Name: RuleIsRequestedCluster, Level: "cluster",
		Unchecked: "where a heal request looks first (its failed machine's cluster); a placement elsewhere breaks no constraint of the load",
		Drain:     "none"},
	{Name: RuleHasAllowedNode, Level: "cluster", Check: []string{"affinity", "taint"},
		Drain: "Pod.AffinityOK and Pod.TolerationOK (a cluster shortcut of NodeAffinity and TaintToleration)"},
	{Name: RuleIsMachineHealthy, Level: "machine", Check: []string{"unhealthy_machine", "placed_during_outage"},
		Drain: "Node.Schedulable"},
	{Name: RuleRequireIsolation, Level: "machine",
		Unchecked: "no input placelab ingests asks for isolation (the vm table has no such column), so no stored run can break it",
		Drain:     "none: no snapshot carries an isolation request"},
	{Name: RuleAreNodeResourcesValid, Level: "machine", Check: resourceChecks,
		Drain: "Node.Free and Pod.Demand per dimension (rule_capacity.go)"},
	{Name: RuleCPUOversubscription, Level: "machine", Check: resourceChecks,
		Drain: "none: a consolidation of an oversubscribed run is refused (its fit rule reads predictions no row keeps)"},
	{Name: RuleTenantAntiColocation, Level: "request", Check: []string{"anti_affinity"},
		Drain: "Pod.MaxPerNode (rule_per_node.go)"},
	{Name: RuleAvailabilitySetSpread, Level: "request", Check: []string{"fault_domain_shared_rack", "update_domain_shared"},
		Drain: "Pod.FaultDomain and Node.Rack (rule_fault_domain.go); the update domain in Pod.DomainOK"},
	{Name: RuleNodeAffinity, Level: "request", Check: []string{"affinity"},
		Drain: "Pod.AffinityOK, from the rule per node"},
	{Name: RuleTaintToleration, Level: "request", Check: []string{"taint"},
		Drain: "Pod.TolerationOK, from the rule per node"},
	{Name: RulePodTopologySpread, Level: "request", Check: []string{"topology_spread"},
		Drain: "Pod.MaxSkew (rule_spread.go; stricter: no move may raise another pod's skew)"},
}

// Registry lists every validator's RuleSpec, by level and name.
func Registry() []RuleSpec { return slices.Clone(registry) }

// RuleSpecOf is the registry's entry for the rule named name.
func RuleSpecOf(name string) (RuleSpec, bool) {
	i := slices.IndexFunc(registry, func(r RuleSpec) bool { return r.Name == name })
	if i < 0 {
		return RuleSpec{}, false
	}
	return registry[i], true
}

// ValidatorNames lists the names of a rule set's validators: cluster,
// machine and request.
func (r *Rules) ValidatorNames() []string {
	var out []string
	for _, v := range r.ClusterValidators {
		out = append(out, v.Name())
	}
	for _, v := range r.Validators {
		out = append(out, v.Name())
	}
	for _, v := range r.Request {
		out = append(out, v.Name())
	}
	return out
}
