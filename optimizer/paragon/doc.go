// Package paragon implements Paragon (Delimitrou & Kozyrakis, ASPLOS'13,
// §2–4): heterogeneity- and interference-aware scheduling driven by
// collaborative filtering, in pure Go (gonum for linear algebra) and free
// of DuckDB.
//
//	offline (§2.1–2.3)                      online, per arriving application (§2.4, §3)
//
//	Sparse ×3 ──Train──▶ Model ×3           Profile: 2 SCs, 2 + 2 SoIs
//	apps × SCs           (SVD start,           │
//	apps × SoIs (t)       SGD, rank)           ▼
//	apps × SoIs (c)          └──────────▶ Classifier.Classify (FoldIn ×3) ──▶ Class
//	                                                                             │
//	Cluster: per server Σ caused, min tolerated, headroom ◀── Policy.Place ◀─────┘
//	  paragon          SelectGreedy: D1/D2 levels, backtracking, best SC, min ‖D1+D2‖₁
//	  oracle           the same greedy on the true scores (and its two halves)
//	  paragon-sampled  SelectSampled: hashed candidates ranked by Q
//	  nh, ni, random   §4's baselines
//
// Classification (§2): Train factorizes a sparse utility matrix (Sparse)
// into row and column factors — SVD initialisation, PQ reconstruction
// refined by SGD with learning rate η and regularization λ until the L2
// norm of the error is marginal, rank chosen by held-out validation or
// from the singular values — and FoldIn classifies a new application from
// a few profiled entries by solving for its row factor alone, with a
// confidence. Classifier bundles the three matrices of §2.2–2.3;
// Heterogeneity and Interference compute Tables 1–2's metrics; Synthesize
// generates applications with latent platform and interference factors,
// its platform scores calibrated so that the classifier reproduces Table 1
// (TestTable1Calibrated).
//
// Placement (§3): Cluster keeps §3.1's per-server state; SelectGreedy is
// §3.2's greedy search and SelectSampled its statistical alternative
// (Quality is the colocation quality Q). Policies "paragon", "nh", "ni" and
// "random" adapt them (NewPolicy), and "oracle" is Paragon given the true
// scores, so that the classifier's cost is always measured. D1 is §3.2's
// (the residents' minimum tolerated score) unless D1Headroom is asked for.
//
// Evaluation (§4): Simulate and SimulateAll run the "low", "high",
// "oversubscribed" and small-scale "burst" scenarios (Scenario), with load
// stated against usable capacity (UsableCapacity), and report the QoS
// share, mean normalized performance and Figs. 5/10's decision-quality
// breakdowns; SimulateSeeds runs them over seeds and reports every figure
// as median and range (Summary), with Paragon's gap to the oracle.
//
// Errors wrap the package's sentinel errors and name the row, column,
// option or name at fault; panics are kept for programmer errors (indices
// out of range). Every random choice is seeded: the same inputs and seed
// give the same outputs, bit for bit.
package paragon
