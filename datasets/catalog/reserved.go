package catalog

import (
	"fmt"
	"math"
	"strings"
)

// Reserved names what a Kubernetes node keeps back from its capacity
// (--reserved): none, or the published reservations of EKS or GKE.
type Reserved string

// The reservations.
const (
	ReservedNone Reserved = "none"
	ReservedEKS  Reserved = "eks"
	ReservedGKE  Reserved = "gke"
)

// DefaultMaxPods is the kubelet's default maxPods (110), and GKE
// Standard's default per node; it stands for a type without a pods value.
const DefaultMaxPods = 110

// EvictionMiB is the kubelet's hard eviction threshold memory.available
// that both EKS (bootstrap.sh writes evictionHard memory.available 100Mi)
// and GKE subtract from allocatable memory.
const EvictionMiB = 100

// EKS memory kube-reserved, bootstrap.sh get_memory_mebibytes_to_reserve:
// 11 MiB per pod the node may run plus 255 MiB.
const (
	eksMiBPerPod  = 11
	eksMiBPerNode = 255
)

// gkeSmallMiB is GKE's memory reservation for a machine under 1 GiB.
const gkeSmallMiB = 255

// tier reserves pct percent of a resource between from and to (to = 0:
// no upper end).
type tier struct{ from, to, pct float64 }

// cpuTiers is the kube-reserved CPU of both EKS and GKE, in cores: 6% of
// the first core, 1% of the second, 0.5% of the third and fourth, 0.25% of
// every core above four. EKS's bootstrap.sh says it took them from GKE.
var cpuTiers = []tier{{0, 1, 6}, {1, 2, 1}, {2, 4, 0.5}, {4, 0, 0.25}}

// gkeMemoryTiers is GKE's memory reservation for a machine of 1 GiB or
// more, in GiB: 25% of the first 4 GiB, 20% of the next 4 (up to 8), 10% of
// the next 8 (up to 16), 6% of the next 112 (up to 128), 2% above 128.
var gkeMemoryTiers = []tier{{0, 4, 25}, {4, 8, 20}, {8, 16, 10}, {16, 128, 6}, {128, 0, 2}}

// reserve is what tiers keep of x (same unit as the tiers).
func reserve(x float64, tiers []tier) float64 {
	var r float64
	for _, t := range tiers {
		if x <= t.from {
			break
		}
		top := x
		if t.to > 0 && t.to < x {
			top = t.to
		}
		r += (top - t.from) * t.pct / 100
	}
	return r
}

// eksCPUMillicores is bootstrap.sh's get_cpu_millicores_to_reserve: the
// CPU tiers in whole millicores, each tier truncated as the script's shell
// integer arithmetic does ((end − start) × pct×100 / 100 / 100), so a 5 vCPU
// machine reserves 82m, not 82.5m. A fractional vCPU count is rounded to
// the millicore first (the script counts nproc × 1000).
func eksCPUMillicores(vcpus float64) int64 {
	total := int64(math.Round(vcpus * 1000))
	var r int64
	for _, t := range cpuTiers {
		from := int64(t.from * 1000)
		if total <= from {
			break
		}
		top := total
		if t.to > 0 && int64(t.to*1000) < total {
			top = int64(t.to * 1000)
		}
		r += (top - from) * int64(t.pct*100) / 100 / 100
	}
	return r
}

// ParseReserved parses --reserved: none (or ""), eks or gke, any case.
func ParseReserved(s string) (Reserved, error) {
	switch r := Reserved(strings.ToLower(strings.TrimSpace(s))); r {
	case "", ReservedNone:
		return ReservedNone, nil
	case ReservedEKS, ReservedGKE:
		return r, nil
	}
	return "", fmt.Errorf("%w %q: want none, eks or gke", ErrReserved, s)
}

// Allocatable is what a node of a type offers pods: its capacity less what
// the Reserved keeps back, never below 0.
type Allocatable struct {
	CPU, MemoryMiB, GPUs float64
	Pods                 int
	// Formula states in one line what was subtracted and why.
	Formula string
}

// Allocatable is the allocatable of a node of type t (capacity: the
// catalog's vCPUs and memory; a real kubelet's memory capacity is the
// machine's MemTotal, a little below the nominal size):
//
//	none: allocatable = capacity.
//	eks:  CPU − kube-reserved cpu (cpuTiers in whole millicores, eksCPUMillicores);
//	      memory − (11 MiB × maxPods + 255 MiB) − 100 MiB eviction-hard.
//	      Source: awslabs/amazon-eks-ami, AL2 /etc/eks/bootstrap.sh
//	      (get_cpu_millicores_to_reserve, get_memory_mebibytes_to_reserve,
//	      evictionHard memory.available 100Mi); AL2023's nodeadm computes the
//	      same (getCPUMillicoresToReserve, getMemoryMebibytesToReserve).
//	gke:  CPU − kube-reserved cpu (cpuTiers, exact);
//	      memory − (255 MiB below 1 GiB, else gkeMemoryTiers) − 100 MiB eviction.
//	      Source: GKE docs, "Plan node sizes" / "Node allocatable resources",
//	      memory and CPU reservations.
//
// maxPods is t.Pods when the catalog gives it, else DefaultMaxPods: EKS's
// own default is the ENI-based limit of the instance type, which a catalog
// does not carry. GPUs are not reserved. A Reserved not from ParseReserved
// panics ("" is none).
func (r Reserved) Allocatable(t Type) Allocatable {
	pods, podsFrom := t.Pods, "the pods column"
	if pods <= 0 {
		pods, podsFrom = DefaultMaxPods, "the default, no pods value"
	}
	a := Allocatable{CPU: t.VCPUs, MemoryMiB: t.MemoryMiB, GPUs: t.GPUs, Pods: pods}
	switch r {
	case "", ReservedNone:
		a.Formula = fmt.Sprintf("none: allocatable = capacity; max pods %d (%s)", pods, podsFrom)
		return a
	case ReservedEKS:
		cpuM := eksCPUMillicores(t.VCPUs)
		memMiB := float64(eksMiBPerPod*pods + eksMiBPerNode)
		a.CPU -= float64(cpuM) / 1000
		a.MemoryMiB -= memMiB + EvictionMiB
		a.Formula = fmt.Sprintf("eks: kube-reserved cpu %dm (6%%/1%%/0.5%%/0.25%% tiers), memory %g MiB "+
			"(11 MiB × %d max pods + 255 MiB), eviction-hard 100 MiB; max pods %d (%s; the ENI-based EKS default is not in the catalog)",
			cpuM, memMiB, pods, pods, podsFrom)
	case ReservedGKE:
		cpu := reserve(t.VCPUs, cpuTiers)
		memMiB, how := float64(gkeSmallMiB), "255 MiB under 1 GiB"
		if t.MemoryMiB >= mibPerGiB {
			memMiB, how = reserve(t.MemoryGiB(), gkeMemoryTiers)*mibPerGiB, "25%/20%/10%/6%/2% tiers"
		}
		a.CPU -= cpu
		a.MemoryMiB -= memMiB + EvictionMiB
		a.Formula = fmt.Sprintf("gke: kube-reserved cpu %gm (6%%/1%%/0.5%%/0.25%% tiers), memory %g MiB (%s), "+
			"eviction 100 MiB; max pods %d (%s)", roundTo(cpu*1000, 3), roundTo(memMiB, 3), how, pods, podsFrom)
	default:
		panic(fmt.Sprintf("catalog: Reserved %q not from ParseReserved", string(r)))
	}
	a.CPU = math.Max(a.CPU, 0)
	a.MemoryMiB = math.Max(a.MemoryMiB, 0)
	return a
}

// roundTo rounds x to d decimals, for printing.
func roundTo(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(x*p) / p
}
