package violation

import (
	"fmt"
	"slices"
)

// Policy places one tenant into a cluster. Implementations keep scratch
// space (and the PrV ones an Estimator), so a Policy is not safe for
// concurrent use.
type Policy interface {
	// Name is the policy's registry name (see PolicyNames).
	Name() string
	// Place returns the node for req.Tenant, or ok = false when no
	// available node can take its demand req.Tenant.Usage without being in
	// violation at once (Fits). It does not modify the cluster.
	Place(c *Cluster, req Request) (node int, ok bool)
}

// Explainer is a Policy that can say why: the PrV policies return the
// steps of Algorithms 2 and 3 as a Decision.
type Explainer interface {
	Policy
	Explain(c *Cluster, req Request) Decision
}

// Prober estimates violation probabilities for the PrV policies; *Estimator
// is the implementation, tests stub it.
type Prober interface {
	// Estimate is Algorithm 1 with and without the candidate.
	Estimate(s []Tenant, cand *Tenant, limit Vec, seed uint64) Estimate
	// Below must equal Estimate(s, cand, limit, seed).With < theta; it may
	// stop drawing early.
	Below(s []Tenant, cand *Tenant, limit Vec, seed uint64, theta float64) bool
	// DeltaBelow must return Estimate(…).Delta and true when that is
	// below bound; otherwise false, with any lower bound of Delta.
	DeltaBelow(s []Tenant, cand *Tenant, limit Vec, seed uint64, bound float64) (float64, bool)
	// WithBelow must return Estimate(…).With and true when that is below
	// bound; otherwise false, with any lower bound of With.
	WithBelow(s []Tenant, cand *Tenant, limit Vec, seed uint64, bound float64) (float64, bool)
}

var _ Prober = (*Estimator)(nil)

// Request is one placement: a new tenant (Age 0, Usage the initial-demand
// estimate) or a tenant being failed over (its history and current Usage).
type Request struct {
	// ID numbers the request within its run.
	ID int64
	// Seed is RequestSeed(run seed, ID); it seeds Algorithm 1's draws.
	Seed   uint64
	Tenant Tenant
}

// Policy registry names. Baselines weigh with W_Sum unless suffixed -max;
// the PrV policies with W_Max (§8.3) unless suffixed -sum.
const (
	NamePrVWorstFit    = "prv-worstfit"
	NamePrVBestFit     = "prv-bestfit"
	NamePrVWorstFitSum = "prv-worstfit-sum"
	NamePrVBestFitSum  = "prv-bestfit-sum"
	NameBestFit        = "bestfit"
	NameBestFitMax     = "bestfit-max"
	NameWorstFit       = "worstfit"
	NameWorstFitMax    = "worstfit-max"
	NameMinStdDev      = "minstddev"
	NameDotProduct     = "dotproduct"
)

// PolicyNames lists the registry, PrV policies first.
func PolicyNames() []string {
	return []string{
		NamePrVWorstFit, NamePrVBestFit, NamePrVWorstFitSum, NamePrVBestFitSum,
		NameBestFit, NameBestFitMax, NameWorstFit, NameWorstFitMax,
		NameMinStdDev, NameDotProduct,
	}
}

// IsPrV reports whether a registry name is a probability-of-violation
// policy.
func IsPrV(name string) bool {
	switch name {
	case NamePrVWorstFit, NamePrVBestFit, NamePrVWorstFitSum, NamePrVBestFitSum:
		return true
	}
	return false
}

// DefaultTheta is θ of §8.3.
const DefaultTheta = 0.01

// DefaultHeldOut is M, the held-out nodes of PrV-WorstFit in §8.3.
const DefaultHeldOut = 3

// PolicyParams configures the PrV policies; zero fields take the defaults
// (DefaultTheta, DefaultHeldOut, DefaultRepetitions). A negative HeldOut
// holds out no node; a negative Reps or a Theta outside (0, 1] is an error.
type PolicyParams struct {
	Theta   float64  `json:"theta"`
	HeldOut int      `json:"held_out"`
	MC      MCConfig `json:"mc"`
	// Fallback is the rule when no feasible node stays below θ; ""
	// means DefaultFallback.
	Fallback Fallback `json:"fallback"`
}

// Fallback is how the PrV policies place a tenant when every feasible node
// is at or over θ with it.
type Fallback string

const (
	// FallbackMinDelta is Algorithms 2–3 as printed: the node of least
	// Delta = Pr(S_n ∪ {db}) − Pr(S_n), the expected violations placing db
	// adds if every node violated at most once. A node whose violation
	// already looks certain has Delta ≈ 0 and attracts the tenant, though
	// a violation there fails tenants over, and more the more it holds.
	FallbackMinDelta Fallback = "min-delta"
	// FallbackMinWith places db where Pr(S_n ∪ {db}) is least — the node
	// least likely to be in violation with it, so least likely to fail db
	// or its neighbours over — ties to the secondary heuristic's order.
	// A deviation from Algorithms 2–3 (doc.go, "Reading notes").
	FallbackMinWith Fallback = "min-with"
	// DefaultFallback is the rule of every caller that does not choose.
	DefaultFallback = FallbackMinWith
)

// Fallbacks lists the valid Fallback values.
func Fallbacks() []Fallback { return []Fallback{FallbackMinWith, FallbackMinDelta} }

func (p PolicyParams) withDefaults() PolicyParams {
	if p.Theta == 0 {
		p.Theta = DefaultTheta
	}
	if p.HeldOut == 0 {
		p.HeldOut = DefaultHeldOut
	}
	p.HeldOut = max(p.HeldOut, 0)
	if p.MC.Reps == 0 {
		p.MC.Reps = DefaultRepetitions
	}
	if p.MC.Condition == "" {
		p.MC.Condition = DefaultConditioning
	}
	if p.Fallback == "" {
		p.Fallback = DefaultFallback
	}
	return p
}

// NewPolicy builds a policy by registry name; the PrV policies get their
// own Estimator over repo. Errors wrap ErrPolicy or ErrConfig.
func NewPolicy(name string, repo *Repository, p PolicyParams) (Policy, error) {
	p = p.withDefaults()
	if !(p.Theta > 0 && p.Theta <= 1) {
		return nil, fmt.Errorf("%w: theta %v not in (0, 1]", ErrConfig, p.Theta)
	}
	if p.MC.Reps < 1 {
		return nil, fmt.Errorf("%w: repetitions %d, want ≥ 1", ErrConfig, p.MC.Reps)
	}
	if !p.MC.Condition.valid() {
		return nil, fmt.Errorf("%w: conditioning %q, want one of %v", ErrConfig, p.MC.Condition, Conditionings())
	}
	if p.Fallback != FallbackMinWith && p.Fallback != FallbackMinDelta {
		return nil, fmt.Errorf("%w: fallback %q, want one of %v", ErrConfig, p.Fallback, Fallbacks())
	}
	if IsPrV(name) && repo == nil {
		return nil, fmt.Errorf("%w: policy %s needs a repository", ErrConfig, name)
	}
	switch name {
	case NamePrVWorstFit:
		return NewPrVWorstFit(NewEstimator(repo, p.MC), p.Theta, p.HeldOut, WMax).WithFallback(p.Fallback), nil
	case NamePrVBestFit:
		return NewPrVBestFit(NewEstimator(repo, p.MC), p.Theta, WMax).WithFallback(p.Fallback), nil
	case NamePrVWorstFitSum:
		return NewPrVWorstFit(NewEstimator(repo, p.MC), p.Theta, p.HeldOut, WSum).WithFallback(p.Fallback), nil
	case NamePrVBestFitSum:
		return NewPrVBestFit(NewEstimator(repo, p.MC), p.Theta, WSum).WithFallback(p.Fallback), nil
	case NameBestFit:
		return NewBestFit(WSum), nil
	case NameBestFitMax:
		return NewBestFit(WMax), nil
	case NameWorstFit:
		return NewWorstFit(WSum), nil
	case NameWorstFitMax:
		return NewWorstFit(WMax), nil
	case NameMinStdDev:
		return NewMinStdDev(), nil
	case NameDotProduct:
		return NewDotProduct(), nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrPolicy, name, PolicyNames())
}

// NewPolicies builds several policies by name, rejecting duplicates.
func NewPolicies(names []string, repo *Repository, p PolicyParams) ([]Policy, error) {
	var out []Policy
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("%w: %q named twice", ErrPolicy, n)
		}
		pol, err := NewPolicy(n, repo, p)
		if err != nil {
			return nil, err
		}
		out = append(out, pol)
	}
	return out, nil
}

// argBest returns the node among nodes with the smallest key (ties by
// lower index, which nodes lists ascending), or −1 for none.
func argBest(nodes []int, key func(n int) float64) int {
	best, bk := -1, 0.0
	for _, n := range nodes {
		if k := key(n); best < 0 || k < bk {
			best, bk = n, k
		}
	}
	return best
}
