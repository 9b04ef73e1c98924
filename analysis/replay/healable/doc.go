// Package healable measures whether a zone can heal its failures: the
// share of single-machine and of rack failures whose VMs could all be
// re-created in their own cluster right now, under the healing buffer.
//
// The allocator slides argue that utilization alone does not tell whether a
// cluster can heal ("66% utilization with 0 empty nodes cannot heal 1/3 of
// possible single-node failures"): cluster limits should be expressed as
// empty machines, and "if a node or rack fails, VMs must be healed to empty
// capacity within the cluster". A replay samples, every interval,
//
//	healable_machine_failures_pct = 100 · |{m healthy : heal({m}) succeeds}| / |{m healthy}|
//	healable_rack_failures_pct    = 100 · |{r : heal(H(r)) succeeds}| / |{r : H(r) ≠ ∅}|
//
// where H(r) is the set of healthy machines of rack r. A failure that
// takes down no VM (an empty machine, a rack without VMs on its healthy
// machines) is trivially healable. A zone with nothing that can fail
// reports 100.
//
// # Healing
//
// heal(F) for the failed machines F of cluster c is the allocator's greedy
// heal, written out exactly:
//
//  1. The machines of F become unhealthy: they no longer count among the
//     cluster's empty healthy machines E, and nothing is placed on them.
//  2. Their VMs are taken largest first: by dominant share of the machine
//     they ran on, max over dimensions i with cᵢ > 0 of dᵢ/cᵢ (d the VM's
//     Placement.Demand, c its machine's SKU capacity); ties by VM ID.
//  3. Before each VM the cluster must keep the healing buffer, E ≥
//     b.Healing (optimizer.BelowLimit with optimizer.KindHeal), where a
//     machine filled earlier in this heal no longer counts as empty.
//  4. The candidates are the healthy machines of c outside F whose SKU
//     supports the VM's type and whose free capacity holds the type's
//     demand on that SKU (optimizer.Inventory.Demand) in every dimension
//     (optimizer.Fits). Free capacity is the machine's limit minus its
//     used resources minus what this heal has put on it; the limit is the
//     SKU capacity, with cores raised to State.OversubLimit × cores when
//     OversubLimit > 0 and the machine is tagged
//     optimizer.TagOversubscribable at sampling time. A machine that is
//     empty when the sample is taken keeps its plain capacity for the whole
//     heal, even after it receives a VM.
//  5. Best fit: among candidates already hosting VMs (in the state or by
//     this heal) the one with the least free cores left, f − d, ties to the
//     lowest machine index; only if there is none, the empty candidate with
//     the least free cores left, ties to the lowest index. Placing on an
//     empty machine lowers E by one.
//  6. The heal fails at the first VM that breaks the buffer or has no
//     candidate; it succeeds when every VM is placed.
//
// Each failure is healed alone, from the sampled state: heals do not
// accumulate. VMs already on unhealthy machines are not healed (they are
// not part of any failure sampled here).
//
// Not modelled: tenant spread rules (fault and update domains, the
// anti-colocation bounds MaxPerRack and MaxPerMachine), isolation,
// the separation of production and non-production VMs and the predicted
// utilization bound under oversubscription, low-priority eviction, and
// healing into other clusters. The figures are therefore an upper bound
// on what the allocator could heal under those rules, and exact for a zone
// without them.
//
// # Cost
//
// The sampler keeps its own copy of what it reads of the state — per
// machine its VM count, resources used, tag, health and VMs in healing
// order — brought up to date from the state's feed of changes
// (optimizer.State.Feed), the first time and whenever it does not hold
// the feed by reading every machine. A sample reads again only the
// machines that changed since, and only in clusters where some failure is
// not decided from counts alone. Per cluster and SKU it keeps
// the empty machines in index order with their least and greatest free
// capacity; a failure whose VMs need more cores (each at its least demand
// over the cluster's SKUs) than the rest of the cluster has free is
// refused, and one in a cluster of one SKU whose VMs' volume bounds the
// empty machines its heal can take below what the buffer leaves is
// accepted, both without a heal (Sampler.healsBounded proves the bound).
// Only the failures left are healed VM by VM, on indices built at their
// cluster's first such heal and then fixed while every failure is healed:
// per SKU the machines hosting VMs sorted by free cores, and per VM type
// the ones whose free capacity holds its demand (a heal never adds to a
// machine's free capacity, so a VM scans only its type's machines). A heal
// keeps the machines it changes in a small sorted overlay that is emptied
// afterwards, so nothing is copied back. A VM's scan stops at the first
// machine that would leave more than the best found. Buffers are reused:
// in steady state a Sample allocates nothing but its second goroutine.
//
// A heal stays in its cluster and reads and writes only its cluster's
// machines and groups, so with two or more processors a Sample shares the
// clusters between two goroutines (the second a copy of the sampler with
// scratch of its own); the figures are the same. Start takes the sample at
// once (it sets the changes since the last one aside) and computes it on
// a goroutine of its own, from the copy only, while the caller goes on
// changing the state; Wait returns the same figures Sample would have.
// A replay samples this way, so its decisions do not wait for the heals.
package healable
