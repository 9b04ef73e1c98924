package paragon

import "fmt"

// Policy names, as the CLI's --policy takes them.
const (
	PolicyParagon = "paragon"
	// PolicyOracle is Paragon's greedy search given the true platform and
	// interference scores instead of the classification: what perfect
	// classification would reach in the same world, so the classifier's
	// cost is the gap between the two.
	PolicyOracle = "oracle"
	PolicyNH     = "nh"
	PolicyNI     = "ni"
	PolicyRandom = "random"
	// PolicySampled is Paragon with §3.2's statistical server selection
	// instead of the greedy search.
	PolicySampled = "paragon-sampled"
	// PolicyTruePlatform and PolicyTrueInterference are the oracle's two
	// halves, for diagnosis: Paragon's greedy with the true platform
	// scores and classified interference, and the other way round. How
	// much of the paragon → oracle gap each closes names its larger cause
	// (Summary.Gap).
	PolicyTruePlatform     = "oracle-platform"
	PolicyTrueInterference = "oracle-interference"
)

// Policies lists the policies every run compares: §4's four and the
// oracle, Paragon first.
var Policies = []string{PolicyParagon, PolicyOracle, PolicyNH, PolicyNI, PolicyRandom}

// DiagnosticPolicies are the oracle's halves (see PolicyTruePlatform).
var DiagnosticPolicies = []string{PolicyTruePlatform, PolicyTrueInterference}

// AllPolicies lists every policy name NewPolicy knows.
var AllPolicies = []string{PolicyParagon, PolicyOracle, PolicyNH, PolicyNI, PolicyRandom, PolicySampled,
	PolicyTruePlatform, PolicyTrueInterference}

// Policy places one classified application on a server of the cluster.
// Implementations only choose; the caller adds the application to the
// cluster.
type Policy interface {
	Name() string
	Place(c *Cluster, req *Request) Decision
}

// Knowledge says which scores a policy is given: the true platform scores
// (else the classifier's) and the true interference scores (else the
// classifier's). The simulator builds each Request, and each resident's
// scores in the cluster, from it.
type Knowledge struct {
	TruePlatform     bool `json:"true_platform"`
	TrueInterference bool `json:"true_interference"`
}

// Informed is the capability of policies given true scores (the oracle and
// its halves). Policies without it see the classification only.
type Informed interface {
	Policy
	Knows() Knowledge
}

// KnowledgeOf returns what p is given: Informed's answer, or nothing true.
func KnowledgeOf(p Policy) Knowledge {
	if in, ok := p.(Informed); ok {
		return in.Knows()
	}
	return Knowledge{}
}

// UsesD1 reports whether the named policy decides through §3.2's D1 (the
// greedy and sampled searches), so that a D1 rule applies to it.
func UsesD1(name string) bool {
	switch name {
	case PolicyNI, PolicyRandom:
		return false
	}
	return true
}

// PolicyOptions configure NewPolicy.
type PolicyOptions struct {
	Greedy GreedyOptions // paragon, oracle and its halves, nh
	Sample SampleOptions // paragon-sampled
	// Seed seeds every random choice, with the request ID.
	Seed uint64
}

// NewPolicy returns the named policy, or an error wrapping ErrUnknownName.
func NewPolicy(name string, o PolicyOptions) (Policy, error) {
	o.Greedy.Seed, o.Sample.Seed = o.Seed, o.Seed
	switch name {
	case PolicyParagon:
		return &paragonPolicy{o: o.Greedy}, nil
	case PolicyOracle:
		return &paragonPolicy{o: o.Greedy, name: PolicyOracle, knows: Knowledge{TruePlatform: true, TrueInterference: true}}, nil
	case PolicyTruePlatform:
		return &paragonPolicy{o: o.Greedy, name: PolicyTruePlatform, knows: Knowledge{TruePlatform: true}}, nil
	case PolicyTrueInterference:
		return &paragonPolicy{o: o.Greedy, name: PolicyTrueInterference, knows: Knowledge{TrueInterference: true}}, nil
	case PolicyNH:
		return &nhPolicy{o.Greedy}, nil
	case PolicyNI:
		return &niPolicy{o.Seed}, nil
	case PolicyRandom:
		return &randomPolicy{o.Seed}, nil
	case PolicySampled:
		return &sampledPolicy{o.Sample}, nil
	}
	return nil, fmt.Errorf("%w: policy %q (want one of %v)", ErrUnknownName, name, AllPolicies)
}
