package k8sgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// instanceType is an EC2 instance type as the kubelet reports it. maxPods is
// the VPC CNI's limit for the type (ENIs × (IPs per ENI − 1) + 2).
type instanceType struct {
	name       string
	cores      int64
	memGiB     int64
	gpus       int64
	maxPods    int64
	diskGiB    int64
	gpuProduct string
}

var (
	m5Large    = instanceType{name: "m5.large", cores: 2, memGiB: 8, maxPods: 29, diskGiB: 50}
	m5XLarge   = instanceType{name: "m5.xlarge", cores: 4, memGiB: 16, maxPods: 58, diskGiB: 80}
	m52XLarge  = instanceType{name: "m5.2xlarge", cores: 8, memGiB: 32, maxPods: 58, diskGiB: 80}
	m54XLarge  = instanceType{name: "m5.4xlarge", cores: 16, memGiB: 64, maxPods: 234, diskGiB: 80}
	r52XLarge  = instanceType{name: "r5.2xlarge", cores: 8, memGiB: 64, maxPods: 58, diskGiB: 80}
	g5XLarge   = instanceType{name: "g5.xlarge", cores: 4, memGiB: 16, gpus: 1, maxPods: 58, diskGiB: 200, gpuProduct: "NVIDIA-A10G"}
	generalMix = []struct {
		it     instanceType
		weight float64
	}{{m5XLarge, 0.40}, {m52XLarge, 0.45}, {m54XLarge, 0.15}}
)

// Node pools (the karpenter.sh/nodepool label) and their shares of the
// worker nodes; the general pool takes the rest.
const (
	poolGeneral      = "general"
	poolMemory       = "memory"
	poolGPU          = "gpu"
	poolControlPlane = "" // control-plane nodes are not Karpenter's
	shareGPU         = 0.05
	shareMemory      = 0.20
	controlPlanes    = 3
)

// Well-known labels and taints this package sets.
const (
	labelNodePool     = "karpenter.sh/nodepool"
	labelCapacityType = "karpenter.sh/capacity-type"
	labelControlPlane = "node-role.kubernetes.io/control-plane"
	labelGPUProduct   = "nvidia.com/gpu.product"
	labelGPUCount     = "nvidia.com/gpu.count"
	taintGPUValue     = "present"
	region            = "eu-west-1"
	kubeletVersion    = "v1.32.3"
)

// Node reservations, as the EKS-optimized AMI's bootstrap computes them:
//
//	kube-reserved cpu    = 6% of core 1 + 1% of core 2 + 0.5% of cores 3–4 + 0.25% of each core above 4
//	kube-reserved memory = 255Mi + 11Mi × maxPods
//	eviction-hard        = memory.available<100Mi, nodefs.available<10%
//
// so allocatable = capacity − kube-reserved − eviction-hard. The memory a
// kubelet reports as capacity is the instance's nominal memory less what the
// kernel keeps (about 3.5% + 280Mi); it varies by a few Ki from node to node.
const (
	reservedMemBaseMi   = 255
	reservedMemPerPodMi = 11
	evictionMemMi       = 100
	evictionDiskPercent = 10
	kernelMemPermille   = 35
	kernelMemMi         = 280
	filesystemOverheadK = 12 * 1024 // xfs metadata on the root volume
)

func reservedMilliCPU(cores int64) int64 {
	m := int64(60) // 6% of the first core
	if cores >= 2 {
		m += 10
	}
	m += 5 * min(max(cores-2, 0), 2)
	m += (25 * max(cores-4, 0)) / 10
	return m
}

// genNode is a node being generated.
type genNode struct {
	node     *corev1.Node
	pool     string
	it       instanceType
	zone     int
	ip       string
	created  time.Time
	notReady bool
	since    time.Time // NotReady since
}

func zoneName(z int) string { return region + string(rune('a'+z)) }

// ipPlan hands out addresses per zone: zone z owns 10.(16z).0.0/12, nodes and
// pods alike (the VPC CNI gives pods addresses of their node's subnet).
type ipPlan struct{ next []uint32 }

func newIPPlan(zones int) *ipPlan { return &ipPlan{next: make([]uint32, zones)} }

func (a *ipPlan) take(r *rand.Rand, zone int) string {
	a.next[zone] += 1 + uint32(r.IntN(3))
	v := uint32(10)<<24 | uint32(16*zone)<<16 + 10 + a.next[zone]
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}

// planNodes decides every node's pool, type and zone, in creation order:
// the control plane first, then the workers of all pools interleaved.
func planNodes(o Options, r *rand.Rand) []*genNode {
	workers := o.Nodes - controlPlanes
	gpu := max(1, int(float64(workers)*shareGPU+0.5))
	mem := max(1, int(float64(workers)*shareMemory+0.5))
	general := workers - gpu - mem
	var out []*genNode
	for i := range controlPlanes {
		out = append(out, &genNode{pool: poolControlPlane, it: m5Large, zone: i % o.Zones})
	}
	var ws []*genNode
	for i := range general {
		it := generalMix[len(generalMix)-1].it
		x := r.Float64()
		for _, m := range generalMix {
			if x < m.weight {
				it = m.it
				break
			}
			x -= m.weight
		}
		ws = append(ws, &genNode{pool: poolGeneral, it: it, zone: i % o.Zones})
	}
	for i := range mem {
		ws = append(ws, &genNode{pool: poolMemory, it: r52XLarge, zone: (i + 1) % o.Zones})
	}
	for i := range gpu {
		ws = append(ws, &genNode{pool: poolGPU, it: g5XLarge, zone: (i + 2) % o.Zones})
	}
	r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	return append(out, ws...)
}

// buildNode makes the Node object (its conditions come later, from
// finishNode, when the time of the snapshot is known).
func buildNode(g *genNode, r *rand.Rand, ips *ipPlan, c *clock) {
	g.ip = ips.take(r, g.zone)
	g.created = c.tick(r, 30, 600)
	name := fmt.Sprintf("ip-%s.%s.compute.internal", dashed(g.ip), region)
	zone := zoneName(g.zone)
	labels := map[string]string{
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         g.it.name,
		"beta.kubernetes.io/os":                    "linux",
		"failure-domain.beta.kubernetes.io/region": region,
		"failure-domain.beta.kubernetes.io/zone":   zone,
		corev1.LabelArchStable:                     "amd64",
		corev1.LabelHostname:                       name,
		corev1.LabelOSStable:                       "linux",
		corev1.LabelInstanceTypeStable:             g.it.name,
		corev1.LabelTopologyRegion:                 region,
		corev1.LabelTopologyZone:                   zone,
		"topology.k8s.aws/zone-id":                 fmt.Sprintf("euw1-az%d", g.zone+1),
	}
	var taints []corev1.Taint
	if g.pool == poolControlPlane {
		labels[labelControlPlane] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		labels["kops.k8s.io/instancegroup"] = "control-plane-" + zone
		taints = append(taints, corev1.Taint{Key: labelControlPlane, Effect: corev1.TaintEffectNoSchedule})
	} else {
		labels[labelNodePool] = g.pool
		labels[labelCapacityType] = "on-demand"
		if g.pool == poolGeneral && chance(r, 0.3) {
			labels[labelCapacityType] = "spot"
		}
		labels["karpenter.sh/initialized"] = "true"
		labels["karpenter.sh/registered"] = "true"
	}
	if g.it.gpus > 0 {
		labels[labelGPUProduct] = g.it.gpuProduct
		labels[labelGPUCount] = strconv.FormatInt(g.it.gpus, 10)
		taints = append(taints, corev1.Taint{Key: string(ResourceGPU), Value: taintGPUValue, Effect: corev1.TaintEffectNoSchedule})
	}

	memKi := g.it.memGiB * giB / kiB
	memKi -= memKi*kernelMemPermille/1000 + kernelMemMi*miB/kiB + 4*between(r, 0, 63)
	memKi -= memKi % 4
	if memKi%1024 == 0 {
		memKi -= 4 // keep the kubelet's Ki form
	}
	reservedMi := reservedMemBaseMi + reservedMemPerPodMi*g.it.maxPods + evictionMemMi
	diskKi := g.it.diskGiB*giB/kiB - filesystemOverheadK - 4*between(r, 0, 255)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              milliCPU(g.it.cores * 1000),
		corev1.ResourceMemory:           bytesBin(memKi * kiB),
		corev1.ResourceEphemeralStorage: bytesBin(diskKi * kiB),
		corev1.ResourcePods:             count(g.it.maxPods),
		"hugepages-1Gi":                 count(0),
		"hugepages-2Mi":                 count(0),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:              milliCPU(g.it.cores*1000 - reservedMilliCPU(g.it.cores)),
		corev1.ResourceMemory:           bytesBin((memKi - reservedMi*miB/kiB) * kiB),
		corev1.ResourceEphemeralStorage: bytesDec(diskKi * kiB * (100 - evictionDiskPercent) / 100),
		corev1.ResourcePods:             count(g.it.maxPods),
		"hugepages-1Gi":                 count(0),
		"hugepages-2Mi":                 count(0),
	}
	if g.it.gpus > 0 {
		capacity[ResourceGPU] = count(g.it.gpus)
		allocatable[ResourceGPU] = count(g.it.gpus)
	}
	instanceID := "i-0" + randHex(r, 16)
	g.node = &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               randUID(r),
			ResourceVersion:   c.version(),
			CreationTimestamp: metav1.NewTime(g.created),
			Labels:            labels,
			Annotations: map[string]string{
				"alpha.kubernetes.io/provided-node-ip":                   g.ip,
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: fmt.Sprintf("aws:///%s/%s", zone, instanceID),
			Taints:     taints,
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: g.ip},
				{Type: corev1.NodeInternalDNS, Address: name},
				{Type: corev1.NodeHostName, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               "ec2" + randHex(r, 29),
				SystemUUID:              "ec2" + randHex(r, 5) + "-" + randHex(r, 4) + "-" + randHex(r, 4) + "-" + randHex(r, 4) + "-" + randHex(r, 12),
				BootID:                  string(randUID(r)),
				KernelVersion:           "6.1.132-147.221.amzn2023.x86_64",
				OSImage:                 "Amazon Linux 2023.7.20250414",
				ContainerRuntimeVersion: "containerd://1.7.27",
				KubeletVersion:          kubeletVersion,
				OperatingSystem:         "linux",
				Architecture:            "amd64",
			},
		},
	}
}

func dashed(ip string) string {
	b := []byte(ip)
	for i, c := range b {
		if c == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

// cordon marks the node as `kubectl cordon` does.
func cordon(n *corev1.Node, at time.Time) {
	n.Spec.Unschedulable = true
	t := metav1.NewTime(at)
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &t})
}

// markNotReady taints the node as the node lifecycle controller does for a
// node whose kubelet reports NotReady.
func markNotReady(g *genNode, at time.Time) {
	g.notReady, g.since = true, at
	t := metav1.NewTime(at)
	g.node.Spec.Taints = append(g.node.Spec.Taints,
		corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &t},
		corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &t})
}

// finishNode sets the node's conditions as of the snapshot time now.
func finishNode(g *genNode, now time.Time) {
	beat := metav1.NewTime(now.Add(-time.Duration(g.created.Unix()%40) * time.Second))
	up := metav1.NewTime(g.created.Add(40 * time.Second))
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string, since metav1.Time) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, LastHeartbeatTime: beat, LastTransitionTime: since, Reason: reason, Message: msg}
	}
	ready := cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", up)
	if g.notReady {
		ready = cond(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
			"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
			metav1.NewTime(g.since))
	}
	g.node.Status.Conditions = []corev1.NodeCondition{
		cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", up),
		cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", up),
		cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", up),
		ready,
	}
}
