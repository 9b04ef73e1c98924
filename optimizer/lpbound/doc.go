// Package lpbound computes an interval on the machines (or the cost of the
// machines) needed to hold a set of items (VMs): the Gilmore–Gomory
// configuration-LP lower bound and a packing that exists, the yardstick
// placelab sets beside every online allocator.
//
// # Problem
//
// There are d resource dimensions, bin types (SKUs) k with a capacity
// vector cap_k, a cost c_k and an optional limit L_k on their number, and
// item types i with a demand d_i and a size vector s_ik on every bin type
// they fit (the Azure packing trace gives a VM's demand as a fraction of
// each machine type). A pattern p of bin type k is a vector a_p of item
// counts with Σ_i a_ip s_ik ≤ cap_k (+FitSlack) and 0 ≤ a_ip ≤ d_i.
//
// # Master LP
//
//	min  Σ_k Σ_p c_k x_kp
//	s.t. Σ_k Σ_p a_ip x_kp ≥ d_i      every item type i   (duals π_i ≥ 0)
//	     Σ_p x_kp ≤ L_k                every limited type k (duals −μ_k ≤ 0)
//	     x ≥ 0
//
// Its value LP is a lower bound on the integer optimum OPT (x integer),
// and ⌈LP⌉ one when every cost is an integer. Column generation solves it
// over a growing set of patterns with COIN-OR Clp (github.com/lanl/clp):
// the restricted master is loaded afresh and solved from scratch (primal
// simplex) every iteration, since lanl/clp cannot add a column to a loaded
// model. The first columns come from first-fit decreasing per bin type, a
// packing heuristic (below) and Options.Initial (the columns of a previous
// solve, e.g. the last hourly snapshot of a replay, matched by name).
// When some type has a limit, artificial columns (cost PenaltyCost per
// uncovered item) keep every master feasible, and a phase 1 minimizes them
// first if some item type fits only limited types.
//
// # Pricing
//
// A column of type k enters when its reduced cost c_k + μ_k − Σ_i π_i a_i
// is below −Tolerance, so pricing is the bounded knapsack
//
//	V_k(π) = max Σ_i π_i a_i  s.t.  Σ_i a_i s_ik ≤ cap_k,  0 ≤ a_i ≤ d_i integer.
//
// Integer sizes are priced exactly by dynamic programming over the
// capacity vectors (per dimension in units of the gcd of the sizes; sizes
// that are multiples of 2^−e, e ≤ 29, such as 3/16 of a machine, are
// scaled to integers exactly), with binary splitting of the counts:
// O(cells · Σ_i log d_i) time, within MaxDPCapacity cells (MaxDPCellsMulti
// with several dimensions) and DPWorkLimit cell updates. That covers one
// dimension up to capacities of millions (BPPLIB's 100,000: tens of
// milliseconds) and a few small dimensions (a machine's cores × GB).
// Everything else — other fractional sizes (a VM's 0.768 GB, 11.908 cores
// or 0.47 GPU), several large dimensions (vbp's 3–10 × 1000) — goes to
// depth-first branch and bound over one surrogate constraint Σ_j λ_j s_ij ≤
// Σ_j λ_j cap_j whose multipliers λ are the duals of the knapsack's own LP
// relaxation (solved by Clp per pricing problem, see knapsackLP): by LP
// duality its Dantzig bound is the LP bound of the d-dimensional knapsack,
// and the per-dimension Dantzig bounds tighten it further at every node.
// The search checks only the dimensions that can bind: where the items'
// most copies (each item's own cap, from every dimension) overflow the
// capacity. An anti-affinity set is a capacity-1 dimension; the one item
// type that uses it on a bin type (its copies already capped at 1), or
// none, cannot bind, so a fleet's hundreds of sets leave a handful of
// dimensions per type (bench plan's snapshot: 367 dimensions; the bound's
// column generation solved 6 master LPs in 30 s instead of 1). The
// knapsack LP is solved over those dimensions too: it has the same
// optimum, and its duals, 0 elsewhere, are optimal for the whole.
// (The capacity-normalized surrogate 1/cap_j used before is far weaker
// when cores bind: on the demo zone's snapshots it left pricing unproven,
// stalled column generation at half the volume bound after 5 s; with the
// LP duals the same snapshots are proven in about 30 ms.) At most
// NodeLimit nodes per problem; when it stops early it still returns a
// valid upper bound U_k ≥ V_k. Branch and bound is exponential in the
// worst case: one pricing problem of a 10-dimensional vbp instance with
// 120 item kinds took 3.1 million nodes (0.2 s) near the LP optimum, and
// fractional sizes with many copies per machine can exhaust the node
// limit, leaving the bound valid but below the LP value. Where branch and
// bound leaves a problem unproven and the sizes lie on a decimal grid
// (Kubernetes' millicores and bytes: 0.05 cores, 0.134217728 GB), an exact
// DP on that grid settles it (newGridPricer; dimensions that cannot bind,
// like a node's pod count or an anti-affinity set one item type uses,
// left out, each item's copies capped by every dimension). Where that grid
// is too large, a DP per dimension with the others relaxed (newLinePricer)
// still bounds the value from above, closely when that dimension binds:
// one bin type of bench plan's snapshot (64 cores, 512 GiB, 116 pod shapes
// on 0.05-core and 128-MiB steps) had column generation stalled after 779
// masters with its bound at the volume bound; with the memory line it
// converges after 489, the bound equal to the LP optimum: past the first node limit, for the
// bin types that set the Lagrangian bound (when the patterns found would
// raise it), and for those still pending at the last. On a fleet
// snapshot's 2,075 pods on one small type (2 cores, 4 GiB, pods of 50
// millicores and 128 MiB, twenty to a node) column generation had stalled
// with the Lagrangian bound at 544.0 nodes (the master at 573.6: branch
// and bound's bound 39,196 against an optimum of 33,600, a node's cost);
// with the grid DP it converges at 568.774, proven.
//
// To converge in fewer master LPs (each one a from-scratch solve), pricing
// happens at Wentges-smoothed duals SmoothingAlpha·center + (1−α)·π, where
// the center is the best dual vector found so far (seeded with the volume
// duals π_i = c_k s_ik/cap_k, whose bound is the continuous L1 bound), α
// falling to 0 after each round that finds no column; every iteration adds
// up to maxExtraColumns more columns priced at π with the items of the
// columns already found removed; columns far from entering are purged; a
// branch-and-bound round starts with few nodes and gets NodeLimit nodes
// (then escalateNodes times more) only when the cheaper rounds find
// nothing.
//
// # The bound
//
// Validity never rests on Clp's tolerances or on convergence. Every
// pricing round at some π ≥ 0 (Clp's duals clamped to ≥ 0, or smoothed)
// yields the Lagrangian bound
//
//	f(θ) = θ Σ_i π_i d_i + Σ_{k limited} L_k · min(0, c_k − θ U_k),
//	0 ≤ θ ≤ min_{k unlimited} c_k / U_k,
//
// valid for every θ in that range because every solution x satisfies
// cost(x) ≥ θ Σ_i π_i d_i + Σ_kp x_kp (c_k − θ π·a_p), the cover slack being
// ≥ 0. With no limits and unit costs its maximum is Farley's bound
// Σ π_i d_i / max_k U_k. f is concave and piecewise linear, so it is
// maximized over its breakpoints. If no unlimited type can use π and the
// slope Σ π_i d_i − Σ L_k U_k stays positive, f is unbounded: a certificate
// that the limits cannot hold the demand (ErrInfeasible). Result.LowerLP is
// the best f over the run, and Result.Bound = ⌈LowerLP − RoundingSlack ·
// max(1, |LowerLP|)⌉ when every cost is an integer (else LowerLP itself).
//
// Column generation stops when no column has reduced cost below
// −Tolerance (Converged), when the master value z and the bound are within
// Tolerance (relative), or when ⌈bound⌉ reaches ⌈z⌉ or the cost of a known
// packing (StopProven: no more columns can raise the rounded bound). On a
// time limit, an iteration limit, a canceled context or a stall, Solve
// returns the best bound found so far.
//
// # The packing (UB)
//
// Result.Packing is a packing that exists — every item placed once, within
// the capacities and the limits, checked before Solve returns it — and
// Result.Upper its cost, an upper bound on OPT; with Result.Bound the two
// make an interval. It is the best of: Options.Incumbent (a known packing,
// e.g. what an online allocator did, so UB is never worse than it); the
// minimum-bin-slack heuristic (each machine holds the largest item left
// and is filled best by the pricing engine at the volume duals); rounded
// master solutions (⌊x⌋, then the largest fractional parts, then the
// heuristic for the rest); and, when that packing is still more than
// IntegerGap (DefaultIntegerGap, 0.1%) above ⌈LB⌉, price-and-branch: the
// master over the generated patterns with x integer, solved by COIN-OR
// CBC (package cbc) from the best packing as MIP start within
// IntegerTimeLimit, its over-covered items taken out and anything left
// packed greedily. Its patterns are those column generation found, so it
// bounds OPT from above, not OPT itself; Result.UpperSource says which of
// the four gave the packing. When a packing covers the demand from the
// start (an incumbent or the heuristic), the master needs no phase 1.
//
// # Tolerances
//
//   - FitSlack (1e-9, absolute): a pattern may exceed a capacity by this
//     much, as optimizer.Fits allows; it only enlarges the pattern set.
//   - Options.Tolerance (DefaultTolerance 1e-6, relative to the largest
//     cost): reduced costs and the convergence gap; affects when the
//     run stops, never validity.
//   - RoundingSlack (1e-9, relative): given up before rounding up, far
//     above the floating-point error of Σ π_i d_i and the pricing sums.
//   - PenaltyCost (1e6 × the largest cost): the price of an uncovered
//     item in masters with artificial columns.
//
// # Limits
//
// Clp solves each master from scratch: 1,200–1,700 simplex pivots, ~50
// ms, at 400 rows. Instances with hundreds of distinct item types take
// seconds to a minute (BPPLIB's AI with 600 items: 15–40 s; vbp with 500
// item kinds: some need more than 10 s, and with a 10 s limit their bound
// stays up to 55 bins below the optimum); instances with many copies of
// few types (Falkenauer, VM snapshots) take milliseconds. Multi-dimensional
// pricing may hit its node limit, which leaves LowerLP below the LP value
// (Converged false, Stop StopStalled) but valid. Non-integer costs are not
// rounded.
package lpbound
