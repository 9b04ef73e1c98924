package optimizer

import "fmt"

// Dim is a resource dimension.
type Dim int

// The resource dimensions every machine and VM carries.
const (
	Cores Dim = iota
	Memory
	SSD
	HDD
	NIC
	GPU
	// Pods is pod slots: a Kubernetes node's allocatable pod count, one per
	// pod (NodeResourcesFit's "Too many pods"); 0 on both sides for the
	// public traces, which count no slots.
	Pods
	NumDims
	// NoDim stands for "no dimension": a rejection that is not a shortage.
	NoDim Dim = -1
)

var dimNames = [NumDims]string{"cores", "memory", "ssd", "hdd", "nic", "gpu", "pods"}

func (d Dim) String() string {
	if d == NoDim {
		return "none"
	}
	if d < 0 || d >= NumDims {
		return fmt.Sprintf("dim(%d)", int(d))
	}
	return dimNames[d]
}

// Vec is an amount of every resource, in the machine's units (cores, GB,
// Gbit/s, devices).
type Vec [NumDims]float64

// Add returns a + b.
func (a Vec) Add(b Vec) Vec {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Sub returns a - b.
func (a Vec) Sub(b Vec) Vec {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}

// capacityEps absorbs float rounding when demands that are fractions of a
// machine (the Azure packing trace) are summed: a machine whose VMs add up
// to 1.0000000000002 of a dimension is full, not over-committed.
const capacityEps = 1e-9

// Fits reports whether demand fits in free in every dimension:
//
//	∀i: dᵢ ≤ fᵢ (+ε)
//
// It is the pure predicate behind AreNodeResourcesValid, the baselines and
// the invariant checks.
func Fits(demand, free Vec) bool {
	for i := range demand {
		if demand[i] > free[i]+capacityEps {
			return false
		}
	}
	return true
}

// Within reports whether used stays within capacity in every dimension.
func Within(used, capacity Vec) bool { return Fits(used, capacity) }

// FirstShort returns the first dimension in which demand does not fit free,
// or NoDim.
func FirstShort(demand, free Vec) Dim {
	for i := range demand {
		if demand[i] > free[i]+capacityEps {
			return Dim(i)
		}
	}
	return NoDim
}
