package synth

import "slices"

// VMType is a VM size. Cores and memory are the slides' ("Azure's VM
// Allocator Internals", Virtual Machine Types); SSD and HDD are the
// families' published temporary-disk sizes (A: HDD, D and G: SSD); NIC is
// 0.5 Gbit/s per core, and 2 Gbit/s per core for the InfiniBand A8–A11.
// Share is the type's share of VMs in the synthetic trace.
type VMType struct {
	Name     string
	Family   string // A, D or G
	Cores    float64
	MemoryGB float64
	SSDGB    float64
	HDDGB    float64
	NICGbps  float64
	Share    float64
}

// vmTypes lists the slides' A0–A11, D1–D4, D11–D14 and G1–G5.
//
// Shares give the shape of Protean Table 2 (two dominant types, 23.5% and
// 21.3%, ≈ 45% together, then a tail of types of a few percent and under)
// and, summed by cores, exactly Protean Table 3 Zone1:
//
//	 1 core  A0 4.2 + A1 6.0 + D1 6.9                           = 17.1
//	 2 cores A2 6.5 + A5 2.4 + D2 23.5 + D11 4.0 + G1 1.0        = 37.4
//	 4 cores A3 4.6 + A6 1.9 + D3 21.3 + D12 3.2 + G2 1.0        = 32.0
//	 8 cores A4 1.8 + A7 .7 + A8 .3 + A10 .4 + D4 3.5 + D13 1.6 + G3 .6 = 8.9
//	16 cores A9 .6 + A11 .5 + D14 2.0 + G4 1.2                  =  4.3
//	32 cores G5 .3                                              =  0.3
var vmTypes = []VMType{
	{"A0", "A", 1, 0.768, 0, 20, 0.5, 0.042},
	{"A1", "A", 1, 1.75, 0, 70, 0.5, 0.060},
	{"A2", "A", 2, 3.5, 0, 135, 1, 0.065},
	{"A3", "A", 4, 7, 0, 285, 2, 0.046},
	{"A4", "A", 8, 14, 0, 605, 4, 0.018},
	{"A5", "A", 2, 14, 0, 135, 1, 0.024},
	{"A6", "A", 4, 28, 0, 285, 2, 0.019},
	{"A7", "A", 8, 56, 0, 605, 4, 0.007},
	{"A8", "A", 8, 56, 0, 382, 16, 0.003},
	{"A9", "A", 16, 112, 0, 382, 32, 0.006},
	{"A10", "A", 8, 56, 0, 382, 16, 0.004},
	{"A11", "A", 16, 112, 0, 382, 32, 0.005},
	{"D1", "D", 1, 3.5, 50, 0, 0.5, 0.069},
	{"D2", "D", 2, 7, 100, 0, 1, 0.235},
	{"D3", "D", 4, 14, 200, 0, 2, 0.213},
	{"D4", "D", 8, 28, 400, 0, 4, 0.035},
	{"D11", "D", 2, 14, 100, 0, 1, 0.040},
	{"D12", "D", 4, 28, 200, 0, 2, 0.032},
	{"D13", "D", 8, 56, 400, 0, 4, 0.016},
	{"D14", "D", 16, 112, 800, 0, 8, 0.020},
	{"G1", "G", 2, 28, 384, 0, 1, 0.010},
	{"G2", "G", 4, 56, 768, 0, 2, 0.010},
	{"G3", "G", 8, 112, 1536, 0, 4, 0.006},
	{"G4", "G", 16, 224, 3072, 0, 8, 0.012},
	{"G5", "G", 32, 448, 6144, 0, 16, 0.003},
}

// VMTypes returns the VM types, in a fixed order (a VM's Type indexes it).
func VMTypes() []VMType { return slices.Clone(vmTypes) }

// CoreBuckets are Protean Table 3's rows: 1, 2, 4, 8, 10–19 and ≥ 20 cores.
var CoreBuckets = []string{"1", "2", "4", "8", "10-19", ">=20"}

// Table3Zone1 is Protean Table 3, Zone1 (% of VMs per CoreBuckets row).
var Table3Zone1 = []float64{17.1, 37.4, 32.0, 8.9, 4.3, 0.3}

// CoreBucket returns the CoreBuckets index for a core count, or -1 for
// counts Table 3 has no row for (3, 5–7, 9).
func CoreBucket(cores float64) int {
	switch {
	case cores == 1:
		return 0
	case cores == 2:
		return 1
	case cores == 4:
		return 2
	case cores == 8:
		return 3
	case cores >= 10 && cores < 20:
		return 4
	case cores >= 20:
		return 5
	}
	return -1
}

// meanCores is the expected cores of a VM under the type mix.
func meanCores() float64 {
	var m float64
	for _, t := range vmTypes {
		m += t.Share * t.Cores
	}
	return m
}
