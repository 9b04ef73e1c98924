// Package exact computes the optimum of a small lpbound.Problem with CBC
// (package cbc) on the assignment formulation: an independent check of the
// configuration-LP bound of package lpbound, which it shares nothing with
// but the Problem and the fit rule (lpbound.FitSlack).
//
// # Formulation
//
// Bin type k has cost c_k (Problem cost under lpbound.MinCost, 0 meaning
// 1; 1 under lpbound.MinCount), capacity cap_k and limit L_k; item type i
// has demand d_i and sizes s_ik on the bin types it fits. Bin type k gets
// n_k candidate machines m, each with a binary y_km (open) and, for every
// item type i that fits k, an integer x_ikm ∈ [0, u_ik] (copies of i on
// m), u_ik = min(d_i, copies of i that fit an empty machine of type k):
//
//	min  Σ_k c_k Σ_m y_km
//	s.t. Σ_k Σ_m x_ikm = d_i                          every item type i
//	     Σ_i s_ikj x_ikm ≤ (cap_kj + FitSlack) y_km   every k, m, dimension j
//	     x_ikm ≤ u_ik y_km                             every i, k, m
//	     y_km ≥ y_k,m+1                                every k, m (symmetry)
//
// # Candidate machines
//
// For a type with c_k > 0, n_k = min(L_k, F_k, ⌊B/c_k⌋) (L_k only if
// limited), where F_k is the number of machines first-fit decreasing needs
// to pack every item that fits k into machines of type k alone, and B
// bounds what the positive-cost types can cost in an optimal packing (the
// cost of a feasible packing, less what the negative-cost types add at
// most). F_k is safe: an optimal packing with more than F_k machines of
// type k could move every item that fits k onto the F_k machines of the
// first-fit packing and drop its own, for less. A negative-cost type (a
// rebate; lpbound requires it to be limited) gets n_k = L_k and, like the
// LP, opens all of them even empty.
//
// The feasible packing (greedy first fit over all types, within limits)
// is also CBC's MIP start. Every packing returned is verified in Go
// (Verify) before Solve returns it.
//
// The assignment LP is weak (near the volume bound, lifted a little by
// clique rows, clique.go) and symmetric, so this is for small problems:
// tens of items, as in the exactness checks of the LP bound. Snapshots of
// 30 or 60 VMs at zone density (about ten per machine) are proven in
// milliseconds to 0.6 s in 2–5 dimensions; with a few VMs per machine, 5
// dimensions and 60 VMs, 3 of 5 are not proven in 20 s (BenchmarkSolve),
// and of BPPLIB's 180 Scholl instances with 50 items 68 are proven in 2 s
// (bpplib_test.go).
package exact
