// Package fleet chooses the cheapest multiset of machine types (a priced
// catalog) that holds a set of pods or VMs, with a proof of how far it is
// from the cheapest: the Gilmore–Gomory configuration LP over the types,
// their prices as column costs (package lpbound, on COIN-OR Clp), gives the
// lower bound; price-and-branch on COIN-OR CBC over the generated patterns,
// a rounding of the assignment LP and the two baselines below give the
// fleet, each candidate improved by a local search.
//
// # Problem
//
// Types are machine types with an allocatable vector per dimension (cpu,
// memory, GPUs, pod slots, …), a price per hour and an optional limit on
// their number; Overhead[k] is what every new node of type k runs before
// any pod is placed (its DaemonSet pods). Groups are pods (or VMs) alike:
// one demand vector, a count, the types they may run on (Allowed: node
// selectors, required affinity and taints, decided by the caller through
// the rules every engine uses) and at most MaxPerNode of their AntiKey on
// one node (required pod anti-affinity on the hostname key). A group that
// fits no allowed type is unplaceable and reported with the reason; the
// rest is planned.
//
// # Lower bound
//
// LowerBound is the best of two valid bounds on the cost of every fleet
// that holds the placeable groups: the Lagrangian (Farley) bound of
// lpbound's column generation, valid however it stops, and the volume
// bound, min Σ c_k x_k s.t. Σ_k cap_kd x_k ≥ Σ_i demand_id for every
// dimension d (x_k ≤ L_k), whose Clp duals are turned into a Lagrangian
// bound of their own so that its validity does not rest on Clp's
// tolerances either. Dropping a constraint (topology spread, which the LP
// does not model) only weakens the bound.
//
// # Dominance
//
// Before the LP, a type is dropped when another unlimited type offers at
// least its allocatable in every dimension, allows every group it allows,
// and costs no more (ties broken by catalog order). Any node of the dropped
// type can be replaced by one of the other at no higher cost, so the
// optimum, the LP's and the integer one, is unchanged; it keeps column
// generation to the types that can matter (the 1,101 EC2 types of the
// shared catalog fall to a few hundred).
//
// # Baselines
//
// Karpenter is the provisioner's heuristic as Karpenter describes it: pods
// by CPU then memory, descending; each joins the first open claim on which
// some remaining type still fits it, else opens a new claim with every
// type that fits it; each claim launches its cheapest remaining type.
// BestSingle is the cheapest fleet of one type (first-fit decreasing per
// type, types tried in order of their volume bound until that bound
// exceeds the best found). The plan is never worse than either: both are
// incumbents of the integer master.
//
// # Plan
//
// Every stage shares Options.TimeLimit. The assignment LP (flow.go: a
// node may be split, so it relaxes the configuration LP) is solved first
// with generated columns and anti-affinity rows, each round re-solved by
// Clp from the last basis (package growlp); its duals seed column
// generation, its solution is rounded to a fleet (each type's pods packed
// first fit or node by node, whichever takes fewer nodes). With more than
// restrictAbove usable types, the bound's column generation gets a quarter
// of the time left (a second quarter, from its own columns and packing,
// when it solved continueIterations master LPs in the first and was still
// going) and a second one runs on the types the assignment LP's fleet
// uses, without the anti-affinity dimensions, for the packing (CBC over
// its patterns). Each candidate fleet then goes through improve:
// pods that break an anti-affinity set move, the emptiest nodes drain into
// the others' room, nodes shrink to the cheapest type holding them; the
// cheapest candidate that passes Check is the plan. When a column
// generation was stopped by the clock (the plan then depends on timing
// already), a large neighbourhood search (lns.go) plans the pods of the
// plan's most wasteful nodes again, one neighbourhood per CPU at a time
// (up to lnsWorkers, with no node in common), with Solve on those pods
// alone against every kept type, and keeps what costs less;
// with the restricted LP, half of TimeLimit is kept for it. Improve runs
// the local search for a caller, keeping each pod within a class of types
// (a zone).
package fleet
