// Package violation places database tenants on over-subscribed nodes by
// the Monte Carlo probability of a future resource violation, after König
// et al., "Tenant Placement in Over-subscribed Database-as-a-Service
// Clusters", PVLDB 15(11), 2022 (§ numbers below are the paper's).
//
//	demand curves ──NewRepository──▶ Repository 𝒟 ──▶ Estimator (Algorithm 1)
//	 (Curve, Synthetic)   Compress: 8-tuple models        │ Pr_violation(S_n ∪ {db})
//	                      by class, lifetime, max         ▼
//	tenant curves ──▶ Simulate (§3.3, §8.1) ──Request──▶ Policy.Place
//	                   H nodes, density OR^cpu,          PrV-BestFit (Alg 2), PrV-WorstFit (Alg 3),
//	                   replay, failovers                 BestFit, WorstFit, MinStdDev, DotProduct
//	                          │
//	                          ▼
//	                  SimResult: violations, failovers per policy; ratios as in §8.2
//
// # Demand and violations (§3.2)
//
// A node N_i with capacity c_r per resource r is in violation when its load
// reaches the threshold f_r·c_r:
//
//	nodeload_{i,t}^r = Σ_{db ∈ tenants(N_i, t)} usage_{db, t−creationtime(db)}^r ≥ f_r·c_r
//
// and the tenant density is the over-subscription ratio of CPU,
// OR^cpu = (1/H) Σ_i Σ_{db on N_i} MaxUsage_db^cpu / c_cpu.
//
// # Probability of violation (§5, Algorithm 1)
//
// For the tenants S of a node, each of known class, age a_j and observed
// maximum LBMax_j, draw for each a past tenant's curve o_j uniformly from
//
//	𝒟(db_j) = {o ∈ 𝒟 : class(o) = class(db_j), L_o > a_j, max_δ demand_{o,δ}^r ≥ LBMax_j^r ∀r}
//
// and count the repetitions in which the replayed sum reaches the
// threshold at some future step t ≥ 0 (tenant j reads its draw at δ = a_j + t
// while a_j + t < L_{o_j}):
//
//	Pr_violation(S) ≈ (1/NumRepetitions) · #{l : ∃ r, t : Σ_j demand_{o_j^l, a_j+t}^r ≥ f_r·c_r}
//
// The curves are replayed as the compressed models of §5.3 — disk and memory
// growing linearly from I to M over G steps and then flat, CPU at its 90th
// percentile — which are monotone, so only the |S| steps at which a tenant
// leaves need checking. When no curve meets all three conditions they are
// relaxed in a fixed, counted order (Stats.Relaxed). Draws are a pure
// function of (request seed, tenant ID, repetition): common random numbers
// across the nodes of one request.
//
// # Placement (§6)
//
// PrV-BestFit and PrV-WorstFit keep the nodes whose estimate after placing
// stays below θ and pick among them by BestFit or WorstFit under a
// weighting W_Sum or W_Max; PrV-WorstFit holds out the M least-loaded
// nodes; with no node below θ both place where Pr(S_n ∪ {db}) − Pr(S_n) is
// least. The baselines of §8.3 are BestFit and WorstFit under both
// weightings, the least summed standard deviation of node loads, and the
// Tetris dot product.
//
// # Reading notes
//
//   - Equation 2 prints the growth ramp as I + (δ/G)·M; it ends at I+M and
//     is not monotone, so the model here ramps to M (Growth).
//   - Algorithm 3's line 18 falls back to HeldOut_Nodes; the text calls for
//     HeldOut_Cand, implemented here (PrVWorstFit).
//   - The §5.1 max condition conditions on the full curve's maximum
//     (Repository keeps it beside the model). It is a lower bound: a tenant
//     already on its plateau is simulated by curves that end at or above
//     it, so the estimates for nodes of settled tenants run high, and with
//     no node below θ the least-Delta rule of Algorithms 2–3 favours nodes
//     whose violation already looks certain (Delta ≈ 0).
package violation
