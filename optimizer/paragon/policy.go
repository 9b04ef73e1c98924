package paragon

import "fmt"

// Policy names, as the CLI's --policy takes them.
const (
	PolicyParagon = "paragon"
	PolicyNH      = "nh"
	PolicyNI      = "ni"
	PolicyRandom  = "random"
	// PolicySampled is Paragon with §3.2's statistical server selection
	// instead of the greedy search.
	PolicySampled = "paragon-sampled"
)

// Policies lists the policy names of §4's comparison, Paragon first.
var Policies = []string{PolicyParagon, PolicyNH, PolicyNI, PolicyRandom}

// Policy places one classified application on a server of the cluster.
// Implementations only choose; the caller adds the application to the
// cluster.
type Policy interface {
	Name() string
	Place(c *Cluster, req *Request) Decision
}

// PolicyOptions configure NewPolicy.
type PolicyOptions struct {
	Greedy GreedyOptions // paragon, nh
	Sample SampleOptions // paragon-sampled
	// Seed seeds every random choice, with the request ID.
	Seed uint64
}

// NewPolicy returns the named policy, or an error wrapping ErrUnknownName.
func NewPolicy(name string, o PolicyOptions) (Policy, error) {
	o.Greedy.Seed, o.Sample.Seed = o.Seed, o.Seed
	switch name {
	case PolicyParagon:
		return &paragonPolicy{o.Greedy}, nil
	case PolicyNH:
		return &nhPolicy{o.Greedy}, nil
	case PolicyNI:
		return &niPolicy{o.Seed}, nil
	case PolicyRandom:
		return &randomPolicy{o.Seed}, nil
	case PolicySampled:
		return &sampledPolicy{o.Sample}, nil
	}
	return nil, fmt.Errorf("%w: policy %q (want %s, %s, %s, %s or %s)", ErrUnknownName, name,
		PolicyParagon, PolicyNH, PolicyNI, PolicyRandom, PolicySampled)
}
