package k8sgen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Binary byte units.
const (
	kiB int64 = 1 << 10
	miB int64 = 1 << 20
	giB int64 = 1 << 30
)

// Extended resource names.
const (
	// ResourceGPU counts whole NVIDIA GPUs (the device plugin's resource).
	ResourceGPU corev1.ResourceName = "nvidia.com/gpu"
	// ResourceGPUMilli counts thousandths of a GPU: a node with n GPUs has
	// n×1000; a whole-GPU pod asks 1000 per GPU besides ResourceGPU, a
	// GPU-sharing pod of the Alibaba trace asks only its share. Only
	// FromAlibaba uses it.
	ResourceGPUMilli corev1.ResourceName = "alibabacloud.com/gpu-milli"
)

// res indexes a resVec.
type res int

const (
	resCPU       res = iota // millicores
	resMemory               // bytes
	resEphemeral            // bytes
	resPods                 // pod slots
	resGPU                  // devices
	resGPUMilli             // thousandths of a device
	numRes
)

var resNames = [numRes]corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourcePods, ResourceGPU, ResourceGPUMilli,
}

// resVec is an amount of every resource the scheduler counts.
type resVec [numRes]int64

func (v *resVec) add(w resVec) {
	for i := range v {
		v[i] += w[i]
	}
}

func (v *resVec) sub(w resVec) {
	for i := range v {
		v[i] -= w[i]
	}
}

// vecOf reads a resource list. Hugepages are ignored (nothing asks for them);
// any other name is an error: the scheduler would not count it.
func vecOf(l corev1.ResourceList) (resVec, error) {
	var v resVec
	for name, q := range l {
		i, ok := resIndex(name)
		switch {
		case ok && i == resCPU:
			v[i] = q.MilliValue()
		case ok:
			v[i] = q.Value()
		case len(name) > 10 && name[:10] == "hugepages-":
		default:
			return v, fmt.Errorf("k8sgen: resource %q is not counted", name)
		}
	}
	return v, nil
}

func resIndex(name corev1.ResourceName) (res, bool) {
	for i, n := range resNames {
		if n == name {
			return res(i), true
		}
	}
	return 0, false
}

// podRequests is the pod's effective request, as the scheduler computes it
// for pods without restartable (sidecar) init containers or overhead:
//
//	request_r = max( Σ_containers request_r , max_init request_r ),  pods = 1
func podRequests(spec *corev1.PodSpec) (resVec, error) {
	var sum, initMax resVec
	for i := range spec.Containers {
		v, err := vecOf(spec.Containers[i].Resources.Requests)
		if err != nil {
			return sum, err
		}
		sum.add(v)
	}
	for i := range spec.InitContainers {
		v, err := vecOf(spec.InitContainers[i].Resources.Requests)
		if err != nil {
			return sum, err
		}
		for r := range v {
			initMax[r] = max(initMax[r], v[r])
		}
	}
	for r := range sum {
		sum[r] = max(sum[r], initMax[r])
	}
	sum[resPods] = 1
	return sum, nil
}

// Scoring defaults the scheduler assumes for a container that requests no
// CPU or memory (k8s.io/kube-scheduler's DefaultMilliCPURequest and
// DefaultMemoryRequest), so BestEffort pods still spread.
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 * miB
)

// nonZeroRequests is the CPU (millicores) and memory (bytes) request used for
// scoring: each app container's request, or the default when it has none;
// an init container counts when it asks for more than the sum.
func nonZeroRequests(spec *corev1.PodSpec) [2]int64 {
	var out [2]int64
	one := func(c *corev1.Container) [2]int64 {
		cpu, mem := defaultMilliCPURequest, defaultMemoryRequest
		if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
			cpu = q.MilliValue()
		}
		if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
			mem = q.Value()
		}
		return [2]int64{cpu, mem}
	}
	for i := range spec.Containers {
		v := one(&spec.Containers[i])
		out[0] += v[0]
		out[1] += v[1]
	}
	for i := range spec.InitContainers {
		v := one(&spec.InitContainers[i])
		out[0] = max(out[0], v[0])
		out[1] = max(out[1], v[1])
	}
	return out
}

// qosClass is the pod's status.qosClass: BestEffort when no container asks
// for or limits CPU or memory; Guaranteed when every container limits both
// and asks exactly its limits; Burstable otherwise.
func qosClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	some, guaranteed := false, true
	for _, c := range all {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[r]
			lim, hasLim := c.Resources.Limits[r]
			if hasReq || hasLim {
				some = true
			}
			if !hasLim || (hasReq && req.Cmp(lim) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// Quantity constructors in the forms the API server prints.
func milliCPU(m int64) resource.Quantity { return *resource.NewMilliQuantity(m, resource.DecimalSI) }
func bytesBin(b int64) resource.Quantity { return *resource.NewQuantity(b, resource.BinarySI) }
func bytesDec(b int64) resource.Quantity { return *resource.NewQuantity(b, resource.DecimalSI) }
func count(n int64) resource.Quantity    { return *resource.NewQuantity(n, resource.DecimalSI) }

// requirements builds a container's resources. A zero cpu or memory is left
// out; a limit of -1 means "equal to the request" and 0 means none.
// Extended resources are set as both request and limit, as the API requires.
func requirements(cpu, mem, cpuLim, memLim int64, ext corev1.ResourceList) corev1.ResourceRequirements {
	var rr corev1.ResourceRequirements
	set := func(l *corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		if *l == nil {
			*l = corev1.ResourceList{}
		}
		(*l)[name] = q
	}
	if cpu > 0 {
		set(&rr.Requests, corev1.ResourceCPU, milliCPU(cpu))
	}
	if mem > 0 {
		set(&rr.Requests, corev1.ResourceMemory, bytesBin(mem))
	}
	if cpuLim == -1 {
		cpuLim = cpu
	}
	if memLim == -1 {
		memLim = mem
	}
	if cpuLim > 0 {
		set(&rr.Limits, corev1.ResourceCPU, milliCPU(cpuLim))
	}
	if memLim > 0 {
		set(&rr.Limits, corev1.ResourceMemory, bytesBin(memLim))
	}
	for name, q := range ext {
		set(&rr.Requests, name, q)
		set(&rr.Limits, name, q)
	}
	return rr
}
