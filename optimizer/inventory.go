package optimizer

import (
	"errors"
	"fmt"
)

// Sentinel errors for malformed inventories and requests.
var (
	ErrBadInventory = errors.New("optimizer: bad inventory")
	ErrBadRequest   = errors.New("optimizer: bad request")
)

// SKU is a hardware configuration.
type SKU struct {
	Name       string
	Generation int
	Capacity   Vec
}

// Machine is one server. IDs are dense indices into Inventory.Machines.
type Machine struct {
	Name         string
	SKU          int32
	Cluster      int32
	Rack         int32 // fault domain; index into Inventory.Racks
	UpdateDomain int16
	Healthy      bool
	// Local is the machine's index in its cluster's Machines; RackLocal
	// its rack's index in the cluster's Racks.
	Local, RackLocal int32
}

// Cluster is a set of racks, homogeneous in SKU in a well-formed zone.
type Cluster struct {
	Name     string
	SKUs     []int32 // distinct SKUs of its machines (one in a homogeneous cluster)
	Racks    []int32
	Machines []int32
	Cores    float64 // total cores of its machines
}

// Rack is a fault domain: the machines that share a top-of-rack switch and
// power. It is the cell of the rack-balance global rule (§5.2.5).
type Rack struct {
	Name     string
	Cluster  int32
	Machines []int32
	Cores    float64
}

// VMType is a VM size with its demand on every SKU it runs on. Demand is in
// the SKU's absolute units; Supported[s] is false when the type cannot run
// on SKU s.
type VMType struct {
	Name      string
	Demand    []Vec // indexed by SKU
	Supported []bool
}

// Inventory is a zone: SKUs, machines grouped into racks and clusters, and
// the VM types the workload uses.
type Inventory struct {
	SKUs     []SKU
	Machines []Machine
	Clusters []Cluster
	Racks    []Rack
	Types    []VMType
	// NodeSets are the sets of machines that VMs' placement constraints
	// name (VMRequest.Affinity and Tolerated: k stands for NodeSets[k-1]);
	// empty for a workload without such constraints.
	NodeSets []NodeSet
}

// MachineSpec describes a machine for NewInventory by names.
type MachineSpec struct {
	Name, Cluster, Rack string
	SKU                 int32
	UpdateDomain        int16
	Healthy             bool
}

// NewInventory builds an inventory, grouping machines into the named
// clusters and racks (in order of first appearance) and checking that every
// reference is in range, every capacity positive in cores, and every type
// demand non-negative.
func NewInventory(skus []SKU, machines []MachineSpec, types []VMType) (*Inventory, error) {
	inv := &Inventory{SKUs: skus, Types: types}
	for _, s := range skus {
		if s.Capacity[Cores] <= 0 {
			return nil, fmt.Errorf("%w: SKU %q has %v cores", ErrBadInventory, s.Name, s.Capacity[Cores])
		}
		for d, v := range s.Capacity {
			if v < 0 {
				return nil, fmt.Errorf("%w: SKU %q: negative %s", ErrBadInventory, s.Name, Dim(d))
			}
		}
	}
	for _, t := range types {
		if len(t.Demand) != len(skus) || len(t.Supported) != len(skus) {
			return nil, fmt.Errorf("%w: VM type %q: demand for %d SKUs, inventory has %d", ErrBadInventory, t.Name, len(t.Demand), len(skus))
		}
		for s, d := range t.Demand {
			for k, v := range d {
				if v < 0 {
					return nil, fmt.Errorf("%w: VM type %q on SKU %q: negative %s", ErrBadInventory, t.Name, skus[s].Name, Dim(k))
				}
			}
		}
	}
	clusterIdx := map[string]int32{}
	rackIdx := map[[2]string]int32{}
	for i, m := range machines {
		if m.SKU < 0 || int(m.SKU) >= len(skus) {
			return nil, fmt.Errorf("%w: machine %q: SKU index %d out of range", ErrBadInventory, m.Name, m.SKU)
		}
		c, ok := clusterIdx[m.Cluster]
		if !ok {
			c = int32(len(inv.Clusters))
			clusterIdx[m.Cluster] = c
			inv.Clusters = append(inv.Clusters, Cluster{Name: m.Cluster})
		}
		rk := [2]string{m.Cluster, m.Rack}
		r, ok := rackIdx[rk]
		if !ok {
			r = int32(len(inv.Racks))
			rackIdx[rk] = r
			inv.Racks = append(inv.Racks, Rack{Name: m.Rack, Cluster: c})
			inv.Clusters[c].Racks = append(inv.Clusters[c].Racks, r)
		}
		id := int32(i)
		rackLocal := int32(len(inv.Clusters[c].Racks) - 1)
		for k, x := range inv.Clusters[c].Racks {
			if x == r {
				rackLocal = int32(k)
			}
		}
		inv.Machines = append(inv.Machines, Machine{Name: m.Name, SKU: m.SKU, Cluster: c, Rack: r, UpdateDomain: m.UpdateDomain,
			Healthy: m.Healthy, Local: int32(len(inv.Clusters[c].Machines)), RackLocal: rackLocal})
		inv.Racks[r].Machines = append(inv.Racks[r].Machines, id)
		inv.Racks[r].Cores += skus[m.SKU].Capacity[Cores]
		cl := &inv.Clusters[c]
		cl.Machines = append(cl.Machines, id)
		cl.Cores += skus[m.SKU].Capacity[Cores]
		if !containsInt32(cl.SKUs, m.SKU) {
			cl.SKUs = append(cl.SKUs, m.SKU)
		}
	}
	return inv, nil
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Capacity of machine m.
func (inv *Inventory) Capacity(m int32) Vec { return inv.SKUs[inv.Machines[m].SKU].Capacity }

// Demand of a VM of type t on machine m, and whether the type runs there.
func (inv *Inventory) Demand(t int32, m int32) (Vec, bool) {
	s := inv.Machines[m].SKU
	ty := &inv.Types[t]
	return ty.Demand[s], ty.Supported[s]
}

// TypeSupported reports whether type t runs on some SKU of cluster c
// (IsTypeSupported's pure predicate).
func (inv *Inventory) TypeSupported(t int32, c int32) bool {
	for _, s := range inv.Clusters[c].SKUs {
		if inv.Types[t].Supported[s] {
			return true
		}
	}
	return false
}

// TotalCores is the zone's core capacity.
func (inv *Inventory) TotalCores() float64 {
	var t float64
	for _, c := range inv.Clusters {
		t += c.Cores
	}
	return t
}

// WithOwnHealth returns a copy of inv that shares everything but the machine
// table, so that a state over it can change machines' health
// (State.SetHealthy) without touching other states of inv: the commit store
// and each agent's view own theirs.
func (inv *Inventory) WithOwnHealth() *Inventory {
	c := *inv
	c.Machines = append([]Machine(nil), inv.Machines...)
	return &c
}
