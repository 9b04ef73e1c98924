package xgboost

import (
	"fmt"
	"math"
)

// The objectives the binding trains.
const (
	// SoftProb is multi-class softmax with one probability per class and
	// row, the shape Predict returns and RC's score is read from (RC's
	// client returns "a predicted value and a score"). Train fits it.
	SoftProb = "multi:softprob"
	// AFT is XGBoost's accelerated failure time model for interval-censored
	// survival times T > 0 (Barnwal, Cho and Hocking, "Survival regression
	// with accelerated failure time model in XGBoost", 2022):
	//
	//	ln T = μ(x) + σ·Z
	//
	// where μ(x) is the trees' sum (the margin), σ is Params.AFTScale and Z
	// follows Params.AFTDistribution. Each row's label is an interval
	// [lower, upper] that holds T: lower = upper for an observed time,
	// upper = +Inf for a right-censored one. TrainSurvival fits it; a row's
	// prediction is one value, exp(μ) (the median of T for the symmetric
	// distributions), or μ itself from PredictMargin.
	AFT = "survival:aft"
)

// Distributions of Z in the AFT model (XGBoost's aft_loss_distribution).
const (
	AFTNormal   = "normal"   // Z ~ N(0, 1): T is log-normal
	AFTLogistic = "logistic" // Z logistic: T is log-logistic
	AFTExtreme  = "extreme"  // Z a (minimum) Gumbel: T is Weibull
)

// Tree methods the binding accepts. Both are deterministic for a given
// seed and thread count (see Params.NThread).
const (
	// Hist bins each feature into at most 256 quantiles and scans the
	// histograms; XGBoost's fast CPU method.
	Hist = "hist"
	// Exact scans every distinct value of every feature.
	Exact = "exact"
)

// Defaults of DefaultBoosted and DefaultForest. Resource Central names the
// model kinds (Table 1) but not their settings; these are XGBoost's own
// defaults for boosting and the recipe of its random-forest tutorial
// ("Random Forests in XGBoost": one round, num_parallel_tree trees,
// subsample and colsample_bynode below 1, learning rate 1).
const (
	// DefaultRounds is the boosting rounds of DefaultBoosted.
	DefaultRounds = 100
	// DefaultMaxDepth is XGBoost's default tree depth, used by both.
	DefaultMaxDepth = 6
	// DefaultEta is XGBoost's default learning rate for boosting.
	DefaultEta = 0.3
	// DefaultForestTrees is the forest size of DefaultForest.
	DefaultForestTrees = 100
	// DefaultForestSubsample is the share of rows each forest tree sees.
	DefaultForestSubsample = 0.8
	// DefaultForestColsample is the share of features each split may use.
	DefaultForestColsample = 0.8
	// DefaultSeed seeds both defaults.
	DefaultSeed = 1
	// DefaultAFTScale is DefaultSurvival's σ, XGBoost's own default.
	DefaultAFTScale = 1.0
	// DefaultNThread is the OpenMP threads of both defaults. It is fixed,
	// not the machine's core count, because a trained model's bytes could
	// depend on it (Params.NThread), and it is 1 because on this shared
	// 2-core machine two threads trained no faster and at times several
	// times slower (BenchmarkTrain).
	DefaultNThread = 1
)

// MaxSeed is the largest seed Validate accepts. XGBoost 1.7 seeds a
// std::mt19937, which keeps only the low 32 bits of its seed, so larger
// seeds would silently alias smaller ones.
const MaxSeed = math.MaxUint32

// Params are the settings of one training. Start from DefaultBoosted or
// DefaultForest; Validate says what is out of range. The JSON names are
// XGBoost's parameter names (Rounds, which is not a booster parameter,
// excepted), so a stored Params reads like the XGBoost configuration.
type Params struct {
	// Objective is SoftProb (trained by Train) or AFT (by TrainSurvival).
	Objective string `json:"objective"`
	// NumClass is the number of classes (buckets) of SoftProb, at least 2;
	// labels are 0 … NumClass-1. An AFT model has one output per row:
	// NumClass is 0 (or 1, meaning the same).
	NumClass int `json:"num_class"`
	// AFTDistribution is the distribution of Z in the AFT model: AFTNormal,
	// AFTLogistic or AFTExtreme; empty with SoftProb.
	AFTDistribution string `json:"aft_loss_distribution,omitempty"`
	// AFTScale is σ of the AFT model, finite and > 0; 0 with SoftProb.
	AFTScale float64 `json:"aft_loss_distribution_scale,omitempty"`
	// BaseScore is the AFT model's starting prediction, a time > 0 (its
	// margin starts at ln BaseScore; XGBoost 1.7 does not estimate it and
	// defaults to 0.5, far below lifetimes in seconds). 0: TrainSurvival
	// takes the geometric mean of the rows' lower bounds. Must be 0 with
	// SoftProb.
	BaseScore float64 `json:"base_score,omitempty"`
	// Rounds is the number of boosting rounds (1 for a random forest).
	Rounds int `json:"rounds"`
	// MaxDepth bounds each tree's depth, at least 1.
	MaxDepth int `json:"max_depth"`
	// Eta is the learning rate in (0, 1]; 1 for a random forest.
	Eta float64 `json:"eta"`
	// Subsample is the share of rows each tree is grown on, in (0, 1].
	Subsample float64 `json:"subsample"`
	// ColsampleByNode is the share of features each split may choose from,
	// in (0, 1].
	ColsampleByNode float64 `json:"colsample_bynode"`
	// NumParallelTree is the number of trees grown per class and round, at
	// least 1 (a random forest's size).
	NumParallelTree int `json:"num_parallel_tree"`
	// MinChildWeight is the least hessian sum a leaf may hold, ≥ 0.
	MinChildWeight float64 `json:"min_child_weight"`
	// Lambda is the L2 regularization of leaf weights, ≥ 0.
	Lambda float64 `json:"lambda"`
	// TreeMethod is Hist or Exact.
	TreeMethod string `json:"tree_method"`
	// Seed seeds row and column subsampling, at most MaxSeed. The same
	// Params (Seed and NThread included) and data give byte-identical
	// models.
	Seed uint64 `json:"seed"`
	// NThread is the number of OpenMP threads training uses, at least 1.
	// With Hist a model's bytes could depend on it: each thread sums the
	// float gradients of its share of the rows into a double-precision
	// histogram and the shares are added up, so the order of the additions
	// follows the thread count. Sums of floats in doubles are exact unless
	// their magnitudes span some 29 binary orders, so in practice the model
	// is the same (TestThreadsSameModel: 1 and 2 threads agree), but that is
	// not a guarantee. Prediction does not use it.
	NThread int `json:"nthread"`
}

// DefaultBoosted returns gradient-boosted trees (RC Table 1's "Extreme
// Gradient Boosting Tree", for deployment size, lifetime and workload
// class) over numClass classes: DefaultRounds rounds of one tree per class,
// depth DefaultMaxDepth, learning rate DefaultEta, every row and feature.
func DefaultBoosted(numClass int) Params {
	return Params{
		Objective:       SoftProb,
		NumClass:        numClass,
		Rounds:          DefaultRounds,
		MaxDepth:        DefaultMaxDepth,
		Eta:             DefaultEta,
		Subsample:       1,
		ColsampleByNode: 1,
		NumParallelTree: 1,
		MinChildWeight:  1,
		Lambda:          1,
		TreeMethod:      Hist,
		Seed:            DefaultSeed,
		NThread:         DefaultNThread,
	}
}

// DefaultForest returns a random forest in XGBoost's random-forest mode
// (RC Table 1's choice for average and P95 CPU) over numClass classes: one
// round of DefaultForestTrees trees per class, each on a DefaultForestSubsample
// share of the rows, each split choosing among a DefaultForestColsample share
// of the features, depth DefaultMaxDepth, learning rate 1 (so the forest
// averages its trees).
func DefaultForest(numClass int) Params {
	return Params{
		Objective:       SoftProb,
		NumClass:        numClass,
		Rounds:          1,
		MaxDepth:        DefaultMaxDepth,
		Eta:             1,
		Subsample:       DefaultForestSubsample,
		ColsampleByNode: DefaultForestColsample,
		NumParallelTree: DefaultForestTrees,
		MinChildWeight:  1,
		Lambda:          1,
		TreeMethod:      Hist,
		Seed:            DefaultSeed,
		NThread:         DefaultNThread,
	}
}

// DefaultSurvival returns gradient-boosted trees with the AFT objective:
// DefaultBoosted's settings (one tree per round, since the model has one
// output), distribution dist and σ = scale. BaseScore is left 0
// (TrainSurvival's default).
func DefaultSurvival(dist string, scale float64) Params {
	p := DefaultBoosted(0)
	p.Objective, p.AFTDistribution, p.AFTScale = AFT, dist, scale
	return p
}

// Survival reports whether p is an AFT model's settings.
func (p Params) Survival() bool { return p.Objective == AFT }

// Outputs is the number of values a model trained with p predicts per row:
// NumClass for SoftProb, 1 for AFT.
func (p Params) Outputs() int {
	if p.Survival() {
		return 1
	}
	return p.NumClass
}

// Validate returns an error wrapping ErrInvalid naming the first field out
// of range. It accepts either objective's set: SoftProb with NumClass ≥ 2
// and no AFT field set, or AFT with NumClass 0 or 1, a known distribution,
// a finite σ > 0 and a finite BaseScore ≥ 0.
func (p Params) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%w: %s %v: want %s", ErrInvalid, field, v, want)
	}
	unit := func(field string, v float64) error {
		if !(v > 0 && v <= 1) { // also refuses NaN
			return bad(field, v, "0 < value ≤ 1")
		}
		return nil
	}
	nonneg := func(field string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 1) {
			return bad(field, v, "a finite value ≥ 0")
		}
		return nil
	}
	switch p.Objective {
	case SoftProb:
		switch {
		case p.NumClass < 2:
			return bad("num_class", p.NumClass, "at least 2")
		case p.AFTDistribution != "":
			return bad("aft_loss_distribution", fmt.Sprintf("%q", p.AFTDistribution), fmt.Sprintf("none with %q", SoftProb))
		case p.AFTScale != 0:
			return bad("aft_loss_distribution_scale", p.AFTScale, fmt.Sprintf("0 with %q", SoftProb))
		case p.BaseScore != 0:
			return bad("base_score", p.BaseScore, fmt.Sprintf("0 (XGBoost's default) with %q", SoftProb))
		}
	case AFT:
		switch {
		case p.NumClass != 0 && p.NumClass != 1:
			return bad("num_class", p.NumClass, fmt.Sprintf("0 or 1 with %q (one output per row)", AFT))
		case p.AFTDistribution != AFTNormal && p.AFTDistribution != AFTLogistic && p.AFTDistribution != AFTExtreme:
			return bad("aft_loss_distribution", fmt.Sprintf("%q", p.AFTDistribution), fmt.Sprintf("%q, %q or %q", AFTNormal, AFTLogistic, AFTExtreme))
		case !(p.AFTScale > 0) || math.IsInf(p.AFTScale, 1):
			return bad("aft_loss_distribution_scale", p.AFTScale, "a finite σ > 0")
		case !(p.BaseScore >= 0) || math.IsInf(p.BaseScore, 1):
			return bad("base_score", p.BaseScore, "a finite time > 0, or 0 for the lower bounds' geometric mean")
		}
	default:
		return bad("objective", fmt.Sprintf("%q", p.Objective), fmt.Sprintf("%q or %q", SoftProb, AFT))
	}
	switch {
	case p.Rounds < 1:
		return bad("rounds", p.Rounds, "at least 1")
	case p.MaxDepth < 1:
		return bad("max_depth", p.MaxDepth, "at least 1")
	case p.NumParallelTree < 1:
		return bad("num_parallel_tree", p.NumParallelTree, "at least 1")
	case p.TreeMethod != Hist && p.TreeMethod != Exact:
		return bad("tree_method", fmt.Sprintf("%q", p.TreeMethod), fmt.Sprintf("%q or %q", Hist, Exact))
	case p.Seed > MaxSeed:
		return bad("seed", p.Seed, "at most 2^32-1 (XGBoost keeps a seed's low 32 bits)")
	case p.NThread < 1:
		return bad("nthread", p.NThread, "at least 1")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"eta", p.Eta}, {"subsample", p.Subsample}, {"colsample_bynode", p.ColsampleByNode}} {
		if err := unit(f.name, f.v); err != nil {
			return err
		}
	}
	if err := nonneg("min_child_weight", p.MinChildWeight); err != nil {
		return err
	}
	return nonneg("lambda", p.Lambda)
}
