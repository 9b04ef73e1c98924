package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// SKU is one hardware configuration. Capacities are in the schema's units:
// cores, GB of memory / SSD / HDD, Gbit/s of NIC, GPU devices.
type SKU struct {
	Name       string
	Generation int // 0: unknown (written as NULL)
	Cores      float64
	MemoryGB   float64
	SSDGB      float64
	HDDGB      float64
	NICGbps    float64
	GPUs       float64
	GPUModel   string // "" when none
}

// The four hardware generations of Protean Table 1 (cores per machine and
// the zone's machine counts). Memory, SSD, HDD and NIC are ours, chosen so
// that the slides' A/D/G families make multi-dimensional packing matter:
//   - gen3 has no SSD, so D- and G-series (SSD-backed) run only on gen4+;
//     its 6.4 GB/core leaves the high-memory A5–A7 memory-bound there;
//   - gen4 (8 GB/core, 1.9 TB SSD) takes G1–G3, but G3 uses 80% of its SSD
//     with a third of its cores;
//   - only gen5/gen6 (12.8 and 16 GB/core) hold G4 (224 GB) and G5 (448 GB);
//   - gen3's 10 Gbit/s NIC cannot host the InfiniBand A8–A11.
var generations = []struct {
	sku      SKU
	machines int // Protean Table 1, "# Machines"
}{
	{SKU{Name: "gen3", Generation: 3, Cores: 10, MemoryGB: 64, SSDGB: 0, HDDGB: 2000, NICGbps: 10}, 7295},
	{SKU{Name: "gen4", Generation: 4, Cores: 24, MemoryGB: 192, SSDGB: 1920, HDDGB: 4000, NICGbps: 40}, 34208},
	{SKU{Name: "gen5", Generation: 5, Cores: 40, MemoryGB: 512, SSDGB: 7680, HDDGB: 4000, NICGbps: 40}, 18016},
	{SKU{Name: "gen6", Generation: 6, Cores: 48, MemoryGB: 768, SSDGB: 7680, HDDGB: 8000, NICGbps: 50}, 2064},
}

// Inventory layout constants.
const (
	ClusterSize     = 1000 // machines per cluster at most (Protean §2.1: "around a thousand")
	RackSize        = 40   // machines per rack (fault domain) at most
	UpdateDomains   = 20   // per cluster (slides: "up to 20 UDs")
	clustersPerDC   = 6    // clusters per datacenter
	shareOffline    = 0.005
	shareUnhealthy  = 0.010
	zoneName        = "zone1"
	healthHealthy   = "healthy"
	healthUnhealthy = "unhealthy"
	healthOffline   = "offline"
)

// Shapes returns the named SKUs usable in "shape:NAME:N" specs, gen3–gen6.
func Shapes() []SKU {
	out := make([]SKU, len(generations))
	for i, g := range generations {
		out[i] = g.sku
	}
	return out
}

// Table1Shares returns each generation's share of machines in Protean
// Table 1, in Shapes order.
func Table1Shares() []float64 {
	total := 0
	for _, g := range generations {
		total += g.machines
	}
	out := make([]float64, len(generations))
	for i, g := range generations {
		out[i] = float64(g.machines) / float64(total)
	}
	return out
}

// Machine is one server: zone > datacenter > cluster > rack > machine.
type Machine struct {
	ID           int
	Name         string
	Zone         string
	Datacenter   string
	Cluster      string
	Rack         string
	UpdateDomain int
	SKU          string
	Health       string // healthy, unhealthy or offline
}

// Zone is an inventory: its SKUs and machines.
type Zone struct {
	SKUs     []SKU
	Machines []Machine
}

// Cores sums the cores of all machines.
func (z Zone) Cores() float64 {
	cores := map[string]float64{}
	for _, s := range z.SKUs {
		cores[s.Name] = s.Cores
	}
	var t float64
	for _, m := range z.Machines {
		t += cores[m.SKU]
	}
	return t
}

// NewZone builds a zone of n machines in Protean Table 1's generation
// proportions (largest-remainder rounding), laid out in clusters of at most
// ClusterSize homogeneous machines and racks of at most RackSize.
func NewZone(n int, seed uint64) (Zone, error) {
	if n < 1 || n > MaxMachines {
		return Zone{}, fmt.Errorf("%w: machines = %d, want 1..%d", ErrBadConfig, n, MaxMachines)
	}
	counts := apportionCounts(n, Table1Shares())
	var groups []group
	var skus []SKU
	for i, g := range generations {
		skus = append(skus, g.sku)
		if counts[i] > 0 {
			groups = append(groups, group{g.sku.Name, counts[i]})
		}
	}
	return Zone{SKUs: skus, Machines: layout(groups, 0, stream(seed, streamInventory))}, nil
}

// apportionCounts splits n into integers proportional to shares (largest
// remainder, ties to the earlier share).
func apportionCounts(n int, shares []float64) []int {
	out := make([]int, len(shares))
	rem := make([]float64, len(shares))
	left := n
	for i, s := range shares {
		x := s * float64(n)
		out[i] = int(x)
		rem[i] = x - float64(out[i])
		left -= out[i]
	}
	idx := make([]int, len(shares))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for k := 0; left > 0; k++ {
		out[idx[k%len(idx)]]++
		left--
	}
	return out
}

// group is n machines of one SKU.
type group struct {
	sku string
	n   int
}

// layout numbers machines from first and arranges each group in clusters
// of at most ClusterSize (balanced sizes; a group always gets at least one
// cluster), clusters round-robin over datacenters of clustersPerDC, racks
// of at most RackSize within a cluster, update domains striped across
// racks, and a small random share of unhealthy and offline machines.
func layout(groups []group, first int, rng *rand.Rand) []Machine {
	nClusters := 0
	for _, g := range groups {
		nClusters += ceilDiv(g.n, ClusterSize)
	}
	nDC := max(1, ceilDiv(nClusters, clustersPerDC))
	var out []Machine
	id, ci := first, 0
	for _, g := range groups {
		k := ceilDiv(g.n, ClusterSize)
		for c := 0; c < k; c++ {
			size := g.n / k
			if c < g.n%k {
				size++
			}
			cluster := fmt.Sprintf("c%03d", ci+1)
			dc := fmt.Sprintf("dc%d", ci%nDC+1)
			ci++
			nRacks := ceilDiv(size, RackSize)
			pos := 0
			for r := 0; r < nRacks; r++ {
				rsize := size / nRacks
				if r < size%nRacks {
					rsize++
				}
				rack := fmt.Sprintf("%s-r%02d", cluster, r+1)
				for j := 0; j < rsize; j++ {
					health := healthHealthy
					switch u := rng.Float64(); {
					case u < shareOffline:
						health = healthOffline
					case u < shareOffline+shareUnhealthy:
						health = healthUnhealthy
					}
					out = append(out, Machine{
						ID:           id,
						Name:         fmt.Sprintf("%s-m%02d", rack, j+1),
						Zone:         zoneName,
						Datacenter:   dc,
						Cluster:      cluster,
						Rack:         rack,
						UpdateDomain: pos % UpdateDomains,
						SKU:          g.sku,
						Health:       health,
					})
					id++
					pos++
				}
			}
		}
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
