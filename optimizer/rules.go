package optimizer

import "fmt"

// Rules is the ordered rule set of an engine: validators filter, preferences
// rank with strict priority in the order given, the global rule ranks racks
// last, request validators (tenant-dependent) apply at pick time.
//
// Every path that places a VM applies the same validators: Protean through
// its cached evaluations, and the baselines, the commit store's conflict
// check, the eviction fallback and what-if migration through a Check. A
// validator added here therefore constrains all of them; only the
// preferences are Protean's own (the baselines order machines by their
// policy instead).
type Rules struct {
	ClusterValidators  []ClusterValidator
	ClusterPreferences []ClusterPreference
	Validators         []MachineValidatorRule
	Preferences        []MachinePreferenceRule
	Global             GlobalRule // may be nil
	Request            []RequestValidator
}

// DefaultRules is the rule set of §3.2–3.3 and the slides (the default
// profile, Profiles) — the registry a new rule is added to: clusters must support the VM type, be healthy, be
// below their buffer limit and be among the request's clusters (when it
// names any), and are ranked emptier first; machines must be healthy,
// respect isolation and have the resources; they are ranked non-empty
// first, then by best fit, then by the least used rack; tenant
// anti-colocation, availability-set spread and the Kubernetes constraints
// (node affinity, taints, topology spread; clusters must hold an allowed
// node) apply at pick time.
func DefaultRules() Rules {
	return Rules{
		ClusterValidators:  []ClusterValidator{IsTypeSupported{}, IsClusterHealthy{}, IsClusterBelowLimit{}, IsRequestedCluster{}, HasAllowedNode{}},
		ClusterPreferences: []ClusterPreference{PreferEmptierClusters{}},
		Validators:         []MachineValidatorRule{IsMachineHealthy{}, RequireIsolation{}, AreNodeResourcesValid{}},
		Preferences:        []MachinePreferenceRule{PreferNonEmptyMachines{}, BestFit{}},
		Global:             RackBalance{},
		Request:            []RequestValidator{TenantAntiColocation{}, AvailabilitySetSpread{}, NodeAffinity{}, TaintToleration{}, PodTopologySpread{}},
	}
}

// maxClusterPrefs bounds the cluster preference rules (the scores a
// cluster candidate holds).
const maxClusterPrefs = 2

// maxValidators bounds the validators of each level (rejection counts are
// kept in fixed arrays on the per-request path).
const maxValidators = 16

// Validate reports a rule set an engine cannot run: too many rules for the
// fixed-size keys, or two rules of one name (explanations and statistics
// are keyed by rule name).
func (r *Rules) Validate() error {
	switch {
	case len(r.Preferences) > maxPrefs:
		return fmt.Errorf("%w: %d machine preference rules, at most %d", ErrBadRequest, len(r.Preferences), maxPrefs)
	case len(r.ClusterPreferences) > maxClusterPrefs:
		return fmt.Errorf("%w: %d cluster preference rules, at most %d", ErrBadRequest, len(r.ClusterPreferences), maxClusterPrefs)
	case len(r.ClusterValidators) > maxValidators || len(r.Validators) > maxValidators || len(r.Request) > maxValidators:
		return fmt.Errorf("%w: more than %d validators at one level", ErrBadRequest, maxValidators)
	}
	seen := map[string]bool{}
	for _, n := range r.Names() {
		if seen[n] {
			return fmt.Errorf("%w: two rules named %q", ErrBadRequest, n)
		}
		seen[n] = true
	}
	return nil
}

// Names lists every rule's name: cluster validators, cluster preferences,
// machine validators, request validators, machine preferences, the global
// rule.
func (r *Rules) Names() []string {
	var out []string
	for _, x := range r.ClusterValidators {
		out = append(out, x.Name())
	}
	for _, x := range r.ClusterPreferences {
		out = append(out, x.Name())
	}
	for _, x := range r.Validators {
		out = append(out, x.Name())
	}
	for _, x := range r.Request {
		out = append(out, x.Name())
	}
	return append(out, r.PreferenceOrder()...)
}

// PreferenceOrder is the machine preference rules' names in priority order,
// the global rule last: the order of Scored.Scores and of
// Explanation.AfterPrefs.
func (r *Rules) PreferenceOrder() []string {
	out := make([]string, 0, len(r.Preferences)+1)
	for _, x := range r.Preferences {
		out = append(out, x.Name())
	}
	if r.Global != nil {
		out = append(out, r.Global.Name())
	}
	return out
}
