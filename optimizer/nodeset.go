package optimizer

import (
	"fmt"
	"math/bits"
)

// NodeSet is a set of machines that a placement constraint allows: the
// nodes a Kubernetes pod's node selector, required node affinity or pin
// (NodeAffinity), or its tolerations (TaintToleration) let it use. Sets are
// shared by every VM whose constraint is the same, and named by it.
type NodeSet struct {
	// Name is the constraint in words ("nodeSelector pool=gpu",
	// "tolerates nvidia.com/gpu=present:NoSchedule", "pinned to node-3"):
	// explanations say it.
	Name string
	// Kind is "affinity" or "tolerated".
	Kind                      string
	machines, racks, clusters bitset
	// Size is the number of machines in the set.
	Size int
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) has(i int32) bool {
	w := int(i >> 6)
	return w < len(b) && b[w]&(1<<(uint(i)&63)) != 0
}

func (b bitset) set(i int32) { b[i>>6] |= 1 << (uint(i) & 63) }

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// NewNodeSet is the set of the given machines of inv (indices into
// inv.Machines), with the racks and clusters that hold one, so that rack
// and cluster selection can skip the others.
func (inv *Inventory) NewNodeSet(name, kind string, machines []int32) (NodeSet, error) {
	s := NodeSet{Name: name, Kind: kind, machines: newBitset(len(inv.Machines)), racks: newBitset(len(inv.Racks)),
		clusters: newBitset(len(inv.Clusters))}
	for _, m := range machines {
		if m < 0 || int(m) >= len(inv.Machines) {
			return NodeSet{}, fmt.Errorf("%w: node set %q: machine %d out of range", ErrBadInventory, name, m)
		}
		s.machines.set(m)
		s.racks.set(inv.Machines[m].Rack)
		s.clusters.set(inv.Machines[m].Cluster)
	}
	s.Size = s.machines.count()
	return s, nil
}

// Has reports whether machine m is in the set.
func (s *NodeSet) Has(m int32) bool { return s.machines.has(m) }

// HasRack reports whether some machine of rack r is in the set.
func (s *NodeSet) HasRack(r int32) bool { return s.racks.has(r) }

// HasCluster reports whether some machine of cluster c is in the set.
func (s *NodeSet) HasCluster(c int32) bool { return s.clusters.has(c) }

// InSet is the pure predicate of NodeAffinity and TaintToleration: set k
// of inv (VMRequest.Affinity or Tolerated; 0 = no constraint, k = inv.NodeSets[k-1])
// allows machine m. A k out of range allows nothing.
func (inv *Inventory) InSet(k int32, m int32) bool {
	if k == 0 {
		return true
	}
	if k < 0 || int(k) > len(inv.NodeSets) {
		return false
	}
	return inv.NodeSets[k-1].Has(m)
}

// setAllowsRack is InSet for a whole rack: some machine of rack r is in set k.
func (inv *Inventory) setAllowsRack(k int32, r int32) bool {
	if k == 0 {
		return true
	}
	if k < 0 || int(k) > len(inv.NodeSets) {
		return false
	}
	return inv.NodeSets[k-1].HasRack(r)
}

// setAllowsCluster is InSet for a cluster.
func (inv *Inventory) setAllowsCluster(k int32, c int32) bool {
	if k == 0 {
		return true
	}
	if k < 0 || int(k) > len(inv.NodeSets) {
		return false
	}
	return inv.NodeSets[k-1].HasCluster(c)
}
