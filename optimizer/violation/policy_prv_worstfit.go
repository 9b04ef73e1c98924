package violation

// PrVWorstFit is Algorithm 3 (§6.2): like PrVBestFit with WorstFit as the
// secondary heuristic, and M nodes — those of least W(nodeload) — held out
// to limit fragmentation: a held-out node is a destination only when no
// other node stays below θ,
//
//	HeldOut    = the M nodes of least W(nodeload_n)
//	Candidates = {n ∉ HeldOut : Pr_violation(S_n ∪ {db}) < θ}, else
//	             {n ∈ HeldOut : Pr_violation(S_n ∪ {db}) < θ}
//	dest       = arg min_{n ∈ Candidates} W(nodeload_n + usage_db)   if Candidates ≠ ∅
//	           = arg min_n Delta_n                                   otherwise
//
// The listing's line 18 falls back to HeldOut_Nodes rather than
// HeldOut_Cand, which would make line 22 unreachable whenever M > 0 and
// leave HeldOut_Cand unused; the text ("only allowing placement on them if
// the probability of violation is always larger than θ when placing on a
// node not held out", and line 22 for when every node is over θ) reads as
// HeldOut_Cand, which is what this implements.
type PrVWorstFit struct{ prv }

var _ Explainer = (*PrVWorstFit)(nil)

// NewPrVWorstFit returns Algorithm 3 with threshold θ, m held-out nodes and
// weighting w.
func NewPrVWorstFit(est Prober, theta float64, m int, w Weighting) *PrVWorstFit {
	name := NamePrVWorstFit
	if w == WSum {
		name = NamePrVWorstFitSum
	}
	return &PrVWorstFit{prv{name: name, est: est, theta: theta, w: w, heldOut: m, worst: true, fb: DefaultFallback}}
}

// Name is "prv-worstfit" (W_Max) or "prv-worstfit-sum".
func (p *PrVWorstFit) Name() string { return p.name }

// Place implements Policy.
func (p *PrVWorstFit) Place(c *Cluster, req Request) (int, bool) {
	d := p.decide(c, req, false)
	return d.Node, d.Node >= 0
}

// Explain places like Place and returns every step, with the estimates of
// every feasible node.
func (p *PrVWorstFit) Explain(c *Cluster, req Request) Decision {
	return p.decide(c, req, true).clone()
}

// WithFallback sets the rule for when no node stays below θ (the
// constructor's is DefaultFallback) and returns p.
func (p *PrVWorstFit) WithFallback(f Fallback) *PrVWorstFit {
	p.fb = f
	return p
}
