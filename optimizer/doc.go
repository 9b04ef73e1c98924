// Package optimizer holds placelab's allocation engines, in pure Go and
// free of DuckDB: resource vectors and inventories, the Protean rule-based
// allocator (validator and preference rules at two levels, strict rule
// priority with quantized scores, seeded tie-breaks, gang allocation of
// service requests, the cache hierarchy of rule objects and RuleEvaluation
// objects kept fresh from a revision journal, and an explanation for every
// decision), and the baselines it is judged against (first fit, best fit,
// worst fit, random).
//
// # One rule set
//
// Rule knowledge lives in the rules: each rule's file holds its pure
// predicate (MachineHealthy, IsolationOK, NodeResourcesFit, OversubFits,
// AntiColocationOK, BelowLimit, ClusterHealthy, Inventory.TypeSupported)
// beside the thin adapter an engine calls, and its exported name constant
// (RuleAreNodeResourcesValid, …). A rule set (Rules; DefaultRules is the
// registry, RulesFor picks the one a Config runs with) is applied by every
// path that puts a VM on a machine: Protean through its cached
// evaluations, and the baselines, the commit store's conflict check
// (CommitStore), the eviction fallback and what-if migration
// (PlanMigrations) through a Check, the uncached form that answers "may
// this VM go on this machine, and if not which rule refused it (and which
// resource dimension was short)" with a typed Rejection. Adding a validator
// is one file plus one line in DefaultRules, and it binds all five paths.
//
// # Equal terms
//
// The baselines take the Rules and Config Protean takes and differ from it
// only in how they order the machines the rules accept. They honour Evict
// (the same eviction fallback), TopPct, Buffers (through the cluster
// validator), Weights, Seed, Oversub, Explain and SizeOrder (the same
// ORDER); they cannot honour K, Buckets, RackBuckets, Cache, RulePool,
// EvalPool, MaxAge, TopK, Safety or ArrivalRates, and Config.ValidateFor
// refuses a configuration that sets them for a baseline (IgnoredFields
// lists them); NewBaseline refuses a rule set with the Protean-only
// preference PreferAlignedLifetime (LifetimeRules).
//
// # Availability sets
//
// A request with FaultDomains F or UpdateDomains U (at most
// MaxFaultDomains and MaxUpdateDomains, ValidateDomains) makes its tenant's
// VMs an availability set: VM SetIndex i is in fault domain i mod F and
// update domain i mod U (VMDomains), recorded in its Placement. The State
// counts each tenant's VMs per fault domain and rack and per update domain
// and machine update domain; the request validator AvailabilitySetSpread
// keeps every rack, and every machine update domain, to one domain of the
// tenant, and CheckInvariants verifies it. ORDER places the most
// constrained fault domain first (domainOrder; Config.SizeOrder turns it
// off). Request.Clusters pins a request, such as the healing of a failed
// machine's VMs, to its clusters (IsRequestedCluster).
//
// # Stages
//
// Protean is cut by stage, after Nomad's scheduler: rules.go (the rule
// set), protean.go (the engine and its caches), gang.go (Algorithm 1:
// order, place, roll back; shared with the baselines), select_cluster.go,
// select_machine.go, pick.go (tie-break, conflict avoidance, safety),
// eviction.go, explain.go (explanations, rule statistics) and check.go.
//
// Engines take plain Go values (an Inventory, Requests) and return plain Go
// values (Decisions with Explanations); the analysis package replays traces
// through them and writes the results to DuckDB.
package optimizer
