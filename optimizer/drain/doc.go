// Package drain plans node consolidation for a Kubernetes-like cluster
// snapshot: how many nodes could be drained now, which, where each moved
// pod goes, and, for a node that cannot be drained, why.
//
//	Problem (nodes: Free, zone, rack, Removable, Schedulable;
//	         pods:  Demand, node, Allowed, group rules, fault domain)
//	   │
//	   ├──▶ Greedy ─── Karpenter-style: candidates by disruption cost, each
//	   │               drained alone by first fit, committed if all pods fit
//	   │
//	   ├──▶ Plan ───── Greedy ∪ candidate orders × (multi-node prefix by
//	   │               binary search, then node by node) ∪ Repack-guided
//	   │               ─▶ best ─▶ ejection pass ─▶ Result{Removed, Moves}
//	   │
//	   ├──▶ Repack ─── every pod from scratch, first-fit decreasing +
//	   │               compaction: an upper bound on the nodes needed
//	   │
//	   ├──▶ Explain ── one node: its pods moved one after another; the first
//	   │               with nowhere to go, and per rule the nodes that refuse it
//	   │
//	   └──▶ Check ──── independent verifier of any assignment
//
// # Rules
//
// A pod may be on node n when it is Allowed there (AffinityOK[n] &&
// TolerationOK[n] && DomainOK[n], the last an availability set's
// update-domain condition); the pods on n fit its Free per dimension with
// Eps slack; at most MaxPerNode pods of the pod's Group share n; the
// Group's pods keep their zone skew (Pod.MaxSkew, DoNotSchedule):
//
//	cnt(zone of n) − min_{z ∈ E} cnt(z) ≤ MaxSkew
//
// with cnt(z) the Group's pods in zone z and E the zones holding a node
// that is not removed and that the pod's node affinity allows (AffinityOK;
// taints, DomainOK and cordons ignored, as Kubernetes counts domains with
// its defaults nodeAffinityPolicy Honor and nodeTaintsPolicy Ignore; zones
// with no pod count, with 0); and the Group's availability set keeps its
// fault domains apart (Pod.FaultDomain, as the online allocator's
// AvailabilitySetSpread): a rack (Node.Rack) holds pods of at most one
// non-zero FaultDomain of a Group,
//
//	f(p) ≠ 0, f(q) ≠ 0, f(p) ≠ f(q), Group(p) = Group(q)  ⇒  rack(p) ≠ rack(q).
//
// Check verifies exactly these for every pod. A pod moves
// only onto a Schedulable node that is not removed; it may stay on a
// cordoned one. Rules are checked on every single move of the planner
// (rule_capacity.go, rule_per_node.go, rule_spread.go,
// rule_fault_domain.go), so a snapshot that passes Check yields plans that
// pass Check; from a snapshot that breaks a spread rule a move may not
// make that rule worse, and no move enters a rack that holds another
// fault domain of the pod's Group.
//
// # Moves and removals
//
// A plan removes nodes that end empty; empty Removable nodes cost
// nothing. Options.MaxMoves bounds the pods that end on another node than
// in the snapshot (a pod moved twice counts once, a pod moved back home
// not at all). Result.Kept = len(Nodes) − len(Removed): the nodes that
// hold a pod or are not Removable.
//
// # Determinism and effort
//
// There is no map-order or clock dependence. Plan's work beyond Greedy is
// bounded by Options.Effort, counted in search steps, not time, so one
// problem gives one plan on any machine; its random candidate orders are
// seeded by Options.Seed. Searches are first fit over a segment tree of
// per-dimension maxima (index.go) with a per-pod-class memory of where the
// last search ended (search.go).
package drain
