package k8s

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// bytesPerGB: placelab's GB is decimal (10^9 bytes); Kubernetes' Gi is
// binary, so 1Gi = 1.073741824 GB.
const bytesPerGB = 1e9

// toResources converts a resource list to placelab's units:
//
//	Cores       = cpu               (1 = 1000m)
//	MemoryGB    = memory            bytes / 10^9
//	EphemeralGB = ephemeral-storage bytes / 10^9
//	GPUs        = the first of GPUResources in the list, in devices
//	Pods        = pods
//
// and every other non-zero quantity into Extended by name, in its own unit.
// Exact decimal arithmetic (AsFloat64Slow) keeps 150m at 0.15.
func toResources(list corev1.ResourceList) Resources {
	var r Resources
	gpu := gpuResource(list)
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			r.Cores = q.AsFloat64Slow()
		case corev1.ResourceMemory:
			r.MemoryGB = q.AsFloat64Slow() / bytesPerGB
		case corev1.ResourceEphemeralStorage:
			r.EphemeralGB = q.AsFloat64Slow() / bytesPerGB
		case corev1.ResourcePods:
			r.Pods = q.AsFloat64Slow()
		case gpu:
			r.GPUs = q.AsApproximateFloat64()
		default:
			if q.IsZero() {
				continue
			}
			if r.Extended == nil {
				r.Extended = map[string]float64{}
			}
			r.Extended[string(name)] = q.AsApproximateFloat64()
		}
	}
	return r
}

// gpuResource is the first of GPUResources the list holds, or "".
func gpuResource(list corev1.ResourceList) corev1.ResourceName {
	for _, name := range GPUResources {
		if _, ok := list[name]; ok {
			return name
		}
	}
	return ""
}

// exceedsCapacity describes the resources whose allocatable is above the
// capacity (compared as quantities), e.g. "cpu 8 > 4, memory 16Gi > 8Gi";
// "" when there is none. Resources absent from either list are not compared.
func exceedsCapacity(allocatable, capacity corev1.ResourceList) string {
	var over []string
	for _, name := range sortedKeys(allocatable) {
		a := allocatable[name]
		c, ok := capacity[name]
		if ok && a.Cmp(c) > 0 {
			over = append(over, fmt.Sprintf("%s %s > %s", name, a.String(), c.String()))
		}
	}
	return strings.Join(over, ", ")
}
