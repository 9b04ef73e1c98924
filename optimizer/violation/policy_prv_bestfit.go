package violation

// PrVBestFit is Algorithm 2 (§6.1): nodes whose estimated probability of
// violation after placing db stays below θ are candidates and BestFit picks
// among them; with none, db goes where it adds the fewest expected
// violations,
//
//	Candidates = {n : Pr_violation(S_n ∪ {db}) < θ}
//	Delta_n    = Pr_violation(S_n ∪ {db}) − Pr_violation(S_n)
//	dest       = arg max_{n ∈ Candidates} W(nodeload_n + usage_db)   if Candidates ≠ ∅
//	           = arg min_n Delta_n                                   otherwise
//
// over the feasible nodes (see Reason for the branches and tie rules).
type PrVBestFit struct{ prv }

var _ Explainer = (*PrVBestFit)(nil)

// NewPrVBestFit returns Algorithm 2 with threshold θ and weighting w.
func NewPrVBestFit(est Prober, theta float64, w Weighting) *PrVBestFit {
	name := NamePrVBestFit
	if w == WSum {
		name = NamePrVBestFitSum
	}
	return &PrVBestFit{prv{name: name, est: est, theta: theta, w: w, fb: DefaultFallback}}
}

// Name is "prv-bestfit" (W_Max) or "prv-bestfit-sum".
func (p *PrVBestFit) Name() string { return p.name }

// Place implements Policy.
func (p *PrVBestFit) Place(c *Cluster, req Request) (int, bool) {
	d := p.decide(c, req, false)
	return d.Node, d.Node >= 0
}

// Explain places like Place and returns every step, with the estimates of
// every feasible node.
func (p *PrVBestFit) Explain(c *Cluster, req Request) Decision {
	return p.decide(c, req, true).clone()
}

// WithFallback sets the rule for when no node stays below θ (the
// constructor's is DefaultFallback) and returns p.
func (p *PrVBestFit) WithFallback(f Fallback) *PrVBestFit {
	p.fb = f
	return p
}
