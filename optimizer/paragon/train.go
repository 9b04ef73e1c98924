package paragon

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Defaults of Options. The paper gives the method (§2.1) but not its
// settings; these were chosen on planted matrices (1,000 × 100 and 5,000 ×
// 40, rank 3, 5–20% of entries, 0–5% noise): λ = 10⁻³ gave the least
// held-out error with and without noise, 10⁻² lost the weak concepts.
const (
	// DefaultEnergy is the share of the squared Frobenius norm of the
	// column-centred initial matrix that RankByEnergy keeps.
	DefaultEnergy = 0.9
	// DefaultMaxRank caps the rank: the paper's matrices have tens of
	// columns and a handful of similarity concepts (§2.2).
	DefaultMaxRank = 10
	// DefaultLearningRate is the starting η of §2.1.
	DefaultLearningRate = 0.05
	// DefaultRegularization is λ of §2.1, applied at every visited entry.
	DefaultRegularization = 1e-3
	// DefaultMaxEpochs bounds the SGD passes over the known entries.
	DefaultMaxEpochs = 500
	// DefaultTolerance is "marginal" of §2.1: SGD stops when the last
	// stopWindow epochs lowered ‖ε‖₂ by less than this fraction of it per
	// epoch.
	DefaultTolerance = 1e-4
	// DefaultValidationShare is the share of known entries RankByValidation
	// holds out.
	DefaultValidationShare = 0.1

	// boldGrow and the halving on a rise are the "bold driver" step-size
	// rule (Battiti 1989): η grows 5% after each epoch that lowers ‖ε‖₂.
	// It cut the epochs to convergence 3–6× on the planted matrices.
	boldGrow = 1.05
	// stopWindow is the span, in epochs, over which the drop of ‖ε‖₂ is
	// measured against Tolerance per epoch: a single epoch's drop is
	// "marginal" on the plateaus where SGD is slowly escaping a saddle to
	// find a weak concept, and stopping there lost it in tests.
	stopWindow = 10
	// riseAllowed lets an epoch raise ‖ε‖₂ by 1% (the noise of stochastic
	// steps) before the epoch is undone and η halved.
	riseAllowed = 1.01
	// maxHalvings is how often η may be halved; after that SGD stops (no
	// step lowers ‖ε‖₂), or fails with ErrDiverged if ‖ε‖₂ is not finite.
	maxHalvings = 20
	// rankPatience is how many ranks past the best RankByValidation tries
	// before it stops; rankSlack is how much worse than the best held-out
	// error a smaller rank may be and still be preferred.
	rankPatience = 2
	rankSlack    = 0.01
	// noiseFloor keeps the fold-in noise variance s² above (noiseFloor ×
	// RMS of the entries)², so that an exact fit does not make the fold-in
	// solve singular.
	noiseFloor = 1e-3
	// priorJitter is added to the diagonal of the row-factor covariance,
	// relative to its mean diagonal element, to keep it invertible when a
	// concept has (near) zero spread across the training rows.
	priorJitter = 1e-6
)

// RankRule says how Train chooses the rank when Options.Rank is zero.
type RankRule int

const (
	// RankByValidation holds out ValidationShare of the known entries
	// (seeded), trains at r = 1, 2, … and keeps the smallest r whose
	// held-out RMSE is within 1% of the least seen, stopping two ranks past
	// the best; then it retrains on all entries. It needs no spectral gap:
	// at 10% density the weak concepts of a matrix lie below the noise that
	// sampling spreads over the initial singular values, where no threshold
	// on them can find them, yet SGD recovers them.
	RankByValidation RankRule = iota
	// RankByEnergy reads the rank off the singular values: one concept for
	// the mean profile plus the fewest concepts of the column-centred,
	// mean-filled initial matrix whose squared singular values hold Energy
	// of its squared Frobenius norm. By Eckart–Young, 1 − Energy bounds the
	// relative squared error of that truncation. (Centring matters: on
	// positive scores the mean profile alone holds > 99% of the uncentred
	// energy.) One factorization, so fast; reliable when the matrix is
	// dense or nearly so, like §2.2's offline training rows.
	RankByEnergy
)

// Options configure Train. A zero field takes its default (DefaultOptions);
// for no regularization set a tiny positive λ.
type Options struct {
	// Rank fixes the number of similarity concepts r; zero chooses it by
	// Rule, at most MaxRank and min(rows, cols).
	Rank    int
	Rule    RankRule
	MaxRank int
	// Energy is RankByEnergy's share; ValidationShare RankByValidation's.
	Energy          float64
	ValidationShare float64
	// LearningRate is the starting η and Regularization λ of the SGD
	// updates (§2.1).
	LearningRate   float64
	Regularization float64
	// MaxEpochs bounds the passes over the known entries; Tolerance is the
	// relative drop of ‖ε‖₂ per epoch (over the last 10) below which SGD
	// stops.
	MaxEpochs int
	Tolerance float64
	// Seed orders the visits of SGD and draws the validation entries; the
	// same seed and matrix give the same model, bit for bit.
	Seed uint64
}

// DefaultOptions returns the options Train uses for zero fields.
func DefaultOptions() Options {
	return Options{
		Rule:            RankByValidation,
		MaxRank:         DefaultMaxRank,
		Energy:          DefaultEnergy,
		ValidationShare: DefaultValidationShare,
		LearningRate:    DefaultLearningRate,
		Regularization:  DefaultRegularization,
		MaxEpochs:       DefaultMaxEpochs,
		Tolerance:       DefaultTolerance,
	}
}

func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	if o.Energy == 0 {
		o.Energy = d.Energy
	}
	if o.ValidationShare == 0 {
		o.ValidationShare = d.ValidationShare
	}
	if o.MaxRank == 0 {
		o.MaxRank = d.MaxRank
	}
	if o.LearningRate == 0 {
		o.LearningRate = d.LearningRate
	}
	if o.Regularization == 0 {
		o.Regularization = d.Regularization
	}
	if o.MaxEpochs == 0 {
		o.MaxEpochs = d.MaxEpochs
	}
	if o.Tolerance == 0 {
		o.Tolerance = d.Tolerance
	}
	switch {
	case o.Rank < 0:
		return o, fmt.Errorf("%w: Rank %d < 0", ErrBadOptions, o.Rank)
	case o.Rule != RankByValidation && o.Rule != RankByEnergy:
		return o, fmt.Errorf("%w: Rule %d", ErrBadOptions, o.Rule)
	case !(o.Energy > 0 && o.Energy <= 1):
		return o, fmt.Errorf("%w: Energy %v not in (0, 1]", ErrBadOptions, o.Energy)
	case !(o.ValidationShare > 0 && o.ValidationShare < 1):
		return o, fmt.Errorf("%w: ValidationShare %v not in (0, 1)", ErrBadOptions, o.ValidationShare)
	case o.MaxRank < 0:
		return o, fmt.Errorf("%w: MaxRank %d < 0", ErrBadOptions, o.MaxRank)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return o, fmt.Errorf("%w: LearningRate %v", ErrBadOptions, o.LearningRate)
	case !(o.Regularization > 0) || math.IsInf(o.Regularization, 0):
		return o, fmt.Errorf("%w: Regularization %v", ErrBadOptions, o.Regularization)
	case o.MaxEpochs < 0:
		return o, fmt.Errorf("%w: MaxEpochs %d < 0", ErrBadOptions, o.MaxEpochs)
	case !(o.Tolerance > 0 && o.Tolerance < 1):
		return o, fmt.Errorf("%w: Tolerance %v not in (0, 1)", ErrBadOptions, o.Tolerance)
	}
	return o, nil
}

// Model is a learned factorization A ≈ R = Q·Pᵀ of a utility matrix, kept
// in the orthogonal "concept" basis of R's own SVD, R = U Σ Vᵀ, with the
// singular values split evenly between the two factors:
//
//	Q = U Σ^½  (rows × r, one row factor q_u per application)
//	P = V Σ^½  (cols × r, one column factor p_i per column)
//
// so QᵀQ = PᵀP = Σ. (§2.1 writes Q = U and Pᵀ = Σ Vᵀ; the product is the
// same, and the even split gives both factors the same scale, so one
// learning rate suits both.) A Model is read-only after Train and safe for
// concurrent use.
type Model struct {
	rows, cols, rank int
	q, p             []float64 // row-major rows×rank and cols×rank

	// Sigma holds the singular values of the reconstruction R, largest
	// first: the strength of each similarity concept (§2.1).
	Sigma []float64
	// InitSigma holds all singular values of the initial matrix X (Train's
	// step 1).
	InitSigma []float64
	// EnergyKept is Σ_{i≤r} σ_i² / Σ_i σ_i² over InitSigma.
	EnergyKept float64
	// RankErrors holds, for RankByValidation, the held-out RMSE at ranks
	// 1, 2, … as tried; nil otherwise.
	RankErrors []float64
	// Epochs is the number of SGD passes run; Converged reports that SGD
	// stopped on Tolerance rather than MaxEpochs.
	Epochs    int
	Converged bool
	// RMSE is ‖ε‖₂ / √N over the N known entries after the last epoch.
	RMSE float64
	// LearningRate is η as it ended (halved on every epoch that raised ‖ε‖₂).
	LearningRate float64

	// Fold-in prior: the row factors of the training rows have mean mu and
	// covariance C; noise is the entry noise variance s².
	mu       []float64
	cinv     *mat.SymDense
	cinvMu   []float64
	ptp      *mat.SymDense // PᵀP (= Σ up to rounding)
	priorVar float64       // tr(C PᵀP): total prior predictive variance
	noise    float64
}

// Dims returns the number of training rows and of columns.
func (m *Model) Dims() (rows, cols int) { return m.rows, m.cols }

// Rank returns r, the number of similarity concepts kept.
func (m *Model) Rank() int { return m.rank }

// Predict returns r_ui = q_u · p_i, the reconstructed score of training row
// u on column i.
func (m *Model) Predict(u, i int) float64 {
	if u < 0 || u >= m.rows || i < 0 || i >= m.cols {
		panic(fmt.Sprintf("paragon: Predict(%d, %d) out of range %d × %d", u, i, m.rows, m.cols))
	}
	return dot(m.q[u*m.rank:(u+1)*m.rank], m.p[i*m.rank:(i+1)*m.rank])
}

// Row returns the reconstructed row u of R: a prediction for every column.
func (m *Model) Row(u int) []float64 {
	out := make([]float64, m.cols)
	for i := range out {
		out[i] = m.Predict(u, i)
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// Train learns a Model from the sparse utility matrix a (§2.1):
//
//  1. Initialise: take the SVD (gonum mat.SVD) of X, the column means μ_j
//     of the known entries with each known entry's deviation scaled by the
//     inverse density, X_ij = μ_j + (a_ij − μ_j)/p. Under uniform sampling
//     E[X] = A, so X's leading singular vectors point at A's (the spectral
//     start of matrix completion); filling with the means alone (p = 1)
//     starts SGD near a saddle, from which it did not recover centred
//     concepts in tests.
//
//  2. Choose the rank r (Options.Rank, or by Options.Rule) and start from
//     Q = U_r Σ_r^½, P = V_r Σ_r^½.
//
//  3. PQ reconstruction refined by SGD: for each known entry a_ui, visited
//     in a seeded random order each epoch,
//
//     ε_ui = a_ui − q_u · p_i
//     q_u ← q_u + η (ε_ui p_i − λ q_u)
//     p_i ← p_i + η (ε_ui q_u − λ p_i)
//
//     until ‖ε‖₂ = √(Σ_ui ε_ui²), recomputed after each epoch, falls by
//     less than Tolerance of itself per epoch over the last 10 epochs (the
//     "marginal" of §2.1) or MaxEpochs passes have run. (§2.1 writes ε with r_ui, an element of the matrix
//     being recreated; the error is taken against the known a_ui.) The
//     step η follows the bold driver: ×1.05 after an epoch that lowers
//     ‖ε‖₂; after one that raises it by over 1% the epoch is undone and η
//     halved.
//
//  4. Take the SVD of R = Q Pᵀ (§2.1's last step, "applying SVD to R") and
//     store the factors in its concept basis, whose singular values give
//     the strength of each concept and the fold-in prior.
//
// Train fails with ErrEmpty for a matrix with no entries, ErrBadValue for a
// non-finite entry, ErrBadOptions and ErrDiverged.
func Train(a *Sparse, opts Options) (*Model, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	rows, cols := a.Dims()
	if a.Len() == 0 || rows == 0 || cols == 0 {
		return nil, fmt.Errorf("%w: %d × %d utility matrix with %d entries", ErrEmpty, rows, cols, a.Len())
	}
	for _, e := range a.Entries() {
		if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
			return nil, fmt.Errorf("%w: entry (row %d, column %d) = %v", ErrBadValue, e.Row, e.Col, e.Value)
		}
	}
	limit := min(rows, cols, o.MaxRank)
	r := o.Rank
	var rankErrors []float64
	switch {
	case r > 0:
		r = min(r, rows, cols)
	case o.Rule == RankByEnergy:
		r = energyRank(a, o.Energy, limit)
	default:
		r, rankErrors, err = validateRank(a, o, limit)
		if err != nil {
			return nil, err
		}
	}
	st, err := newStart(a)
	if err != nil {
		return nil, err
	}
	m, err := fit(a, st, r, o)
	if err != nil {
		return nil, err
	}
	m.RankErrors = rankErrors
	if err := m.orthogonalize(); err != nil {
		return nil, err
	}
	m.prior(a)
	return m, nil
}

// start is the SVD of the initial matrix X of Train's step 1.
type start struct {
	u, v mat.Dense
	sv   []float64
}

func newStart(a *Sparse) (*start, error) {
	x := initial(a, true)
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		rows, cols := a.Dims()
		return nil, fmt.Errorf("%w: SVD of the %d × %d initial matrix did not converge", ErrDiverged, rows, cols)
	}
	st := &start{sv: svd.Values(nil)}
	svd.UTo(&st.u)
	svd.VTo(&st.v)
	return st, nil
}

// initial returns X of Train's step 1: column means, with the known
// entries' deviations from them scaled by 1/p when rescale is set and kept
// as they are otherwise.
func initial(a *Sparse, rescale bool) *mat.Dense {
	rows, cols := a.Dims()
	mean := columnMeans(a)
	x := mat.NewDense(rows, cols, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			x.Set(i, j, mean[j])
		}
	}
	scale := 1.0
	if rescale {
		scale = 1 / a.Density()
	}
	for _, e := range a.Entries() {
		x.Set(e.Row, e.Col, mean[e.Col]+(e.Value-mean[e.Col])*scale)
	}
	return x
}

// columnMeans returns the mean of each column's known entries (the global
// mean for a column without any).
func columnMeans(a *Sparse) []float64 {
	_, cols := a.Dims()
	sum := make([]float64, cols)
	n := make([]float64, cols)
	total := 0.0
	for _, e := range a.Entries() {
		sum[e.Col] += e.Value
		n[e.Col]++
		total += e.Value
	}
	global := total / float64(a.Len())
	for j := range sum {
		if n[j] > 0 {
			sum[j] /= n[j]
		} else {
			sum[j] = global
		}
	}
	return sum
}

// energyRank is RankByEnergy: 1 + the fewest concepts of the
// column-centred, mean-filled matrix that hold energy of its Σσ².
func energyRank(a *Sparse, energy float64, limit int) int {
	x := initial(a, false)
	rows, cols := x.Dims()
	mean := columnMeans(a)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			x.Set(i, j, x.At(i, j)-mean[j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDNone) {
		return 1
	}
	sv := svd.Values(nil)
	total := 0.0
	for _, s := range sv {
		total += s * s
	}
	r, acc := 1, 0.0
	for _, s := range sv {
		if r >= limit || acc >= energy*total {
			break
		}
		acc += s * s
		r++
	}
	return r
}

// validateRank is RankByValidation; it returns the rank and the held-out
// RMSE at each rank tried.
func validateRank(a *Sparse, o Options, limit int) (int, []float64, error) {
	rows, cols := a.Dims()
	entries := a.Entries()
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x7a11da7e))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	nHold := int(math.Round(o.ValidationShare * float64(len(entries))))
	if nHold < 1 || nHold >= len(entries) {
		return 1, nil, nil // too few entries to hold any out
	}
	train := NewSparse(rows, cols)
	for _, idx := range order[nHold:] {
		e := entries[idx]
		train.Set(e.Row, e.Col, e.Value)
	}
	st, err := newStart(train)
	if err != nil {
		return 0, nil, err
	}
	var errs []float64
	best := 0
	for r := 1; r <= limit && (best == 0 || r <= best+rankPatience); r++ {
		m, err := fit(train, st, r, o)
		if err != nil {
			return 0, nil, err
		}
		se := 0.0
		for _, idx := range order[:nHold] {
			e := entries[idx]
			d := e.Value - m.Predict(e.Row, e.Col)
			se += d * d
		}
		errs = append(errs, math.Sqrt(se/float64(nHold)))
		if best == 0 || errs[r-1] < errs[best-1] {
			best = r
		}
	}
	for r := 1; r <= len(errs); r++ {
		if errs[r-1] <= errs[best-1]*(1+rankSlack) {
			return r, errs, nil
		}
	}
	return best, errs, nil
}

// fit runs steps 2–3 of Train at rank r from the initial SVD st.
func fit(a *Sparse, st *start, r int, o Options) (*Model, error) {
	rows, cols := a.Dims()
	m := &Model{rows: rows, cols: cols, rank: r, InitSigma: st.sv}
	total, kept := 0.0, 0.0
	for k, s := range st.sv {
		total += s * s
		if k < r {
			kept += s * s
		}
	}
	m.EnergyKept = 1
	if total > 0 {
		m.EnergyKept = kept / total
	}
	m.q = make([]float64, rows*r)
	m.p = make([]float64, cols*r)
	for k := 0; k < r; k++ {
		h := math.Sqrt(st.sv[k])
		for i := 0; i < rows; i++ {
			m.q[i*r+k] = st.u.At(i, k) * h
		}
		for j := 0; j < cols; j++ {
			m.p[j*r+k] = st.v.At(j, k) * h
		}
	}
	if err := m.sgd(a.Entries(), o); err != nil {
		return nil, err
	}
	return m, nil
}

// sgd runs the epochs of step 3 of Train.
func (m *Model) sgd(entries []Entry, o Options) error {
	r := m.rank
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9a7a6011))
	eta, lambda := o.LearningRate, o.Regularization
	prev := m.errNorm(entries)
	history := []float64{prev}
	halvings := 0
	savedQ := make([]float64, len(m.q))
	savedP := make([]float64, len(m.p))
	for m.Epochs < o.MaxEpochs {
		copy(savedQ, m.q)
		copy(savedP, m.p)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, idx := range order {
			e := entries[idx]
			qu := m.q[e.Row*r : (e.Row+1)*r]
			pi := m.p[e.Col*r : (e.Col+1)*r]
			eps := e.Value - dot(qu, pi)
			for k := range qu {
				qk, pk := qu[k], pi[k]
				qu[k] += eta * (eps*pk - lambda*qk)
				pi[k] += eta * (eps*qk - lambda*pk)
			}
		}
		m.Epochs++
		cur := m.errNorm(entries)
		if bad := math.IsNaN(cur) || math.IsInf(cur, 0); bad || cur > prev*riseAllowed {
			// Undo the epoch and retry with half the step.
			copy(m.q, savedQ)
			copy(m.p, savedP)
			halvings++
			if halvings > maxHalvings {
				if bad {
					return fmt.Errorf("%w: ‖ε‖₂ not finite after epoch %d with η = %g", ErrDiverged, m.Epochs, eta)
				}
				m.Converged = true // no step size lowers ‖ε‖₂ any more
				break
			}
			eta /= 2
			continue
		}
		prev = cur
		eta *= boldGrow
		history = append(history, cur)
		if n := len(history); n > stopWindow && history[n-1-stopWindow]-cur <= stopWindow*o.Tolerance*cur {
			m.Converged = true
			break
		}
	}
	m.RMSE = prev / math.Sqrt(float64(len(entries)))
	m.LearningRate = eta
	return nil
}

// errNorm returns ‖ε‖₂ over the known entries.
func (m *Model) errNorm(entries []Entry) float64 {
	r := m.rank
	s := 0.0
	for _, e := range entries {
		d := e.Value - dot(m.q[e.Row*r:(e.Row+1)*r], m.p[e.Col*r:(e.Col+1)*r])
		s += d * d
	}
	return math.Sqrt(s)
}

// orthogonalize rewrites Q and P in the concept basis of R = Q Pᵀ. With
// the Cholesky factors of the r × r Gram matrices, QᵀQ = L_q L_qᵀ and
// PᵀP = L_p L_pᵀ, the columns of Q L_q⁻ᵀ and P L_p⁻ᵀ are orthonormal and
// R = (Q L_q⁻ᵀ)(L_qᵀ L_p)(P L_p⁻ᵀ)ᵀ; the r × r SVD L_qᵀ L_p = W S Zᵀ then
// gives R = U S Vᵀ with U = Q L_q⁻ᵀ W and V = P L_p⁻ᵀ Z, and
// Q ← U S^½, P ← V S^½. Only r × r matrices are factorized.
func (m *Model) orthogonalize() error {
	r := m.rank
	qm := mat.NewDense(m.rows, r, m.q)
	pm := mat.NewDense(m.cols, r, m.p)
	lq, lqInvT := gramFactor(qm)
	lp, lpInvT := gramFactor(pm)
	var core mat.Dense
	core.Mul(lq.T(), lp)
	var svd mat.SVD
	if !svd.Factorize(&core, mat.SVDFull) {
		return fmt.Errorf("%w: SVD of the %d × %d core did not converge", ErrDiverged, r, r)
	}
	s := svd.Values(nil)
	var w, z mat.Dense
	svd.UTo(&w)
	svd.VTo(&z)
	for i := 0; i < r; i++ {
		for k := 0; k < r; k++ {
			h := math.Sqrt(s[k])
			w.Set(i, k, w.At(i, k)*h)
			z.Set(i, k, z.At(i, k)*h)
		}
	}
	var tq, tp mat.Dense
	tq.Mul(lqInvT, &w)
	tp.Mul(lpInvT, &z)
	var nq, np mat.Dense
	nq.Mul(qm, &tq)
	np.Mul(pm, &tp)
	copy(m.q, nq.RawMatrix().Data)
	copy(m.p, np.RawMatrix().Data)
	m.Sigma = s
	return nil
}

// gramFactor returns L and L⁻ᵀ for the Cholesky factor of XᵀX = L Lᵀ. A
// rank-deficient X gets a jitter on the diagonal of XᵀX.
func gramFactor(x *mat.Dense) (l, linvT *mat.Dense) {
	_, r := x.Dims()
	var g mat.SymDense
	g.SymOuterK(1, x.T())
	var chol mat.Cholesky
	for jit := 0.0; !chol.Factorize(&g); {
		if jit == 0 {
			jit = 1e-12 * (mat.Trace(&g)/float64(r) + 1)
		} else {
			jit *= 10
		}
		for k := 0; k < r; k++ {
			g.SetSym(k, k, g.At(k, k)+jit)
		}
	}
	var lt mat.TriDense
	chol.LTo(&lt)
	var inv mat.TriDense
	_ = inv.InverseTri(&lt) // a mat.Condition error only warns; inv is set
	return mat.DenseCopyOf(&lt), mat.DenseCopyOf(inv.T())
}

// prior sets the fold-in prior from the training rows that have entries:
// their row factors' mean μ and covariance C, PᵀP, and the entry noise
// variance s² (the training MSE, floored).
func (m *Model) prior(a *Sparse) {
	r := m.rank
	has := make([]bool, m.rows)
	rms := 0.0
	for _, e := range a.Entries() {
		has[e.Row] = true
		rms += e.Value * e.Value
	}
	rms = math.Sqrt(rms / float64(a.Len()))
	n := 0.0
	mu := make([]float64, r)
	for i := 0; i < m.rows; i++ {
		if has[i] {
			n++
			for k := 0; k < r; k++ {
				mu[k] += m.q[i*r+k]
			}
		}
	}
	for k := range mu {
		mu[k] /= n
	}
	c := mat.NewSymDense(r, nil)
	for i := 0; i < m.rows; i++ {
		if !has[i] {
			continue
		}
		qi := m.q[i*r : (i+1)*r]
		for k := 0; k < r; k++ {
			for l := k; l < r; l++ {
				c.SetSym(k, l, c.At(k, l)+(qi[k]-mu[k])*(qi[l]-mu[l])/n)
			}
		}
	}
	diag := 0.0
	for k := 0; k < r; k++ {
		diag += c.At(k, k)
	}
	jit := priorJitter * diag / float64(r)
	if jit == 0 {
		jit = priorJitter
	}
	for k := 0; k < r; k++ {
		c.SetSym(k, k, c.At(k, k)+jit)
	}
	ptp := mat.NewSymDense(r, nil)
	for j := 0; j < m.cols; j++ {
		pj := m.p[j*r : (j+1)*r]
		for k := 0; k < r; k++ {
			for l := k; l < r; l++ {
				ptp.SetSym(k, l, ptp.At(k, l)+pj[k]*pj[l])
			}
		}
	}
	var chol mat.Cholesky
	cinv := mat.NewSymDense(r, nil)
	if chol.Factorize(c) {
		_ = chol.InverseTo(cinv)
	} else {
		for k := 0; k < r; k++ {
			cinv.SetSym(k, k, 1/c.At(k, k))
		}
	}
	cinvMu := make([]float64, r)
	for k := 0; k < r; k++ {
		for l := 0; l < r; l++ {
			cinvMu[k] += cinv.At(k, l) * mu[l]
		}
	}
	var cp mat.Dense
	cp.Mul(c, ptp)
	m.mu, m.cinv, m.cinvMu, m.ptp = mu, cinv, cinvMu, ptp
	m.priorVar = mat.Trace(&cp)
	floor := noiseFloor * rms
	m.noise = math.Max(m.RMSE*m.RMSE, floor*floor)
}
