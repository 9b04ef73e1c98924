package k8s

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Sample files of ../shared/data/k8s-samples.
const (
	sampleNodeList   = "replicatedhq__troubleshoot__pkg__analyze__files__nodes.json"
	sampleMaster1    = "alibaba__open-simulator__example__cluster__demo_1__nodes__master-1.yaml"
	sampleGPUShare   = "alibaba__open-simulator__example__cluster__gpushare__nodes__pai-node-00.yaml"
	sampleDeployment = "alibaba__open-simulator__example__application__complicate__deploy-webapp.yaml"
	sampleStatefulSt = "alibaba__open-simulator__example__application__complicate__sts-database.yaml"
	samplePod        = "kubernetes-sigs__cluster-capacity__examples__pod.yaml"
)

// TestSampleNodeList reads troubleshoot's 7-node NodeList. Expected values
// are the file's quantities converted by hand: memory in Ki is ×1024 bytes
// and in Mi ×1048576, then / 10^9; ephemeral storage without a suffix is
// bytes.
func TestSampleNodeList(t *testing.T) {
	path := sample(t, sampleNodeList)
	c := load(t, path)
	cases := []struct {
		name                          string
		cores, memGB, capMemGB, ephGB float64
		gpus                          float64
		pool, region, instance        string
	}{
		// 30770604Ki = 31,509,098,496 B; capacity 30873004Ki; 1015018628Ki = 1,039,379,075,072 B.
		{"repldev-marc", 8, 31.509098496, 31.613956096, 1039.379075072, 0, "", "", ""},
		// 29222Mi = 30,641,487,872 B; capacity 32941864Ki; ephemeral 95087093603 B.
		{"biggernode-3i745", 8, 30.641487872, 33.732468736, 95.087093603, 0, "biggernode", "sfo2", "g-8vcpu-32gb"},
		// 3110Mi = 3,261,071,360 B; capacity 4041568Ki.
		{"pool-yd23sqk7u-3i7i7", 2, 3.26107136, 4.138565632, 76.063116777, 0, "pool-yd23sqk7u", "sfo2", "s-2vcpu-4gb"},
		// capacity 4041600Ki = 4,138,598,400 B.
		{"pool-yd23sqk7u-3i7it", 2, 3.26107136, 4.1385984, 76.063116777, 0, "pool-yd23sqk7u", "sfo2", "s-2vcpu-4gb"},
		{"pool-yd23sqk7u-3i7v3", 2, 3.26107136, 4.138565632, 76.063116777, 0, "pool-yd23sqk7u", "sfo2", "s-2vcpu-4gb"},
		// 1574Mi = 1,650,458,624 B; capacity 2043320Ki.
		{"smallnode-3i74t", 1, 1.650458624, 2.09235968, 47.5270262, 0, "smallnode", "sfo2", "s-1vcpu-2gb"},
		// 16064760Ki = 16,450,314,240 B; one nvidia.com/gpu.
		{"ip-172-31-21-92", 1, 16.45031424, 16.55517184, 93.478772582, 1, "", "", ""},
	}
	if len(c.Nodes) != len(cases) {
		t.Fatalf("%d nodes, want %d", len(c.Nodes), len(cases))
	}
	var cores, gpus float64
	for i, tc := range cases {
		n := &c.Nodes[i]
		if n.Name != tc.name {
			t.Errorf("node %d is %s, want %s (input order)", i, n.Name, tc.name)
			continue
		}
		checkFloat(t, tc.name+" allocatable cores", n.Allocatable.Cores, tc.cores)
		checkFloat(t, tc.name+" allocatable memory GB", n.Allocatable.MemoryGB, tc.memGB)
		checkFloat(t, tc.name+" capacity memory GB", n.Capacity.MemoryGB, tc.capMemGB)
		checkFloat(t, tc.name+" allocatable ephemeral GB", n.Allocatable.EphemeralGB, tc.ephGB)
		checkFloat(t, tc.name+" GPUs", n.Allocatable.GPUs, tc.gpus)
		checkFloat(t, tc.name+" pods", n.Allocatable.Pods, 110)
		if n.Pool != tc.pool || n.Region != tc.region || n.InstanceType != tc.instance || n.Zone != "" {
			t.Errorf("%s: pool/region/type/zone %q/%q/%q/%q, want %q/%q/%q/\"\"", tc.name,
				n.Pool, n.Region, n.InstanceType, n.Zone, tc.pool, tc.region, tc.instance)
		}
		if !n.Ready || n.Unschedulable || len(n.Taints) != 0 || n.Allocatable.Extended != nil {
			t.Errorf("%s: ready %v unschedulable %v taints %v extended %v", tc.name, n.Ready, n.Unschedulable, n.Taints, n.Allocatable.Extended)
		}
		if want := path + "#" + strconv.Itoa(i); n.Source != want {
			t.Errorf("%s: source %q, want %q", tc.name, n.Source, want)
		}
		cores += n.Allocatable.Cores
		gpus += n.Allocatable.GPUs
	}
	checkFloat(t, "total allocatable cores", cores, 24)
	checkFloat(t, "total GPUs", gpus, 1)
	r := c.Report
	if r.Files != 1 || r.Nodes != 7 || r.Objects[kindNode] != 7 || len(r.Warnings) != 0 || len(c.Pods) != 0 {
		t.Errorf("report %+v, %d pods", r, len(c.Pods))
	}
}

// TestSampleMaster1: open-simulator's master-1 states allocatable 8 CPU /
// 16Gi above capacity 4 CPU / 8Gi; the node is kept as stated and flagged.
func TestSampleMaster1(t *testing.T) {
	path := sample(t, sampleMaster1)
	c := load(t, path)
	n := findNode(t, c, "master-1")
	checkFloat(t, "allocatable cores", n.Allocatable.Cores, 8)
	checkFloat(t, "allocatable memory GB", n.Allocatable.MemoryGB, 17.179869184) // 16Gi
	checkFloat(t, "capacity cores", n.Capacity.Cores, 4)
	checkFloat(t, "capacity memory GB", n.Capacity.MemoryGB, 8.589934592)  // 8Gi
	checkFloat(t, "ephemeral GB", n.Allocatable.EphemeralGB, 62.725623808) // 61255492Ki
	want := []corev1.Taint{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}}
	if !reflect.DeepEqual(n.Taints, want) {
		t.Errorf("taints %v, want %v", n.Taints, want)
	}
	if !n.Ready || n.Source != path {
		t.Errorf("ready %v source %q", n.Ready, n.Source)
	}
	ws := warningsOf(c, WarnAllocatableExceedsCapacity)
	if len(ws) != 1 || len(c.Report.Warnings) != 1 {
		t.Fatalf("warnings %+v, want one %s", c.Report.Warnings, WarnAllocatableExceedsCapacity)
	}
	if w := ws[0]; w.Object != "Node master-1" || w.Source != path ||
		w.Message != "allocatable exceeds capacity: cpu 8 > 4, memory 16Gi > 8Gi; kept allocatable as stated" {
		t.Errorf("warning %+v", w)
	}
}

// TestSampleGPUShare: pai-node-00 counts alibabacloud.com/gpu-count as
// GPUs and keeps gpu-mem (32560Mi, in bytes) as an extended resource; its
// cpu is an unquoted integer; it has no conditions, so it is Ready.
func TestSampleGPUShare(t *testing.T) {
	c := load(t, sample(t, sampleGPUShare))
	n := findNode(t, c, "pai-node-00")
	checkFloat(t, "cores", n.Allocatable.Cores, 64)
	checkFloat(t, "memory GB", n.Allocatable.MemoryGB, 268.435456) // 256000Mi
	checkFloat(t, "GPUs", n.Allocatable.GPUs, 2)
	want := map[string]float64{"alibabacloud.com/gpu-mem": 32560 * 1048576}
	if !reflect.DeepEqual(n.Allocatable.Extended, want) || !reflect.DeepEqual(n.Capacity.Extended, want) {
		t.Errorf("extended %v / %v, want %v", n.Allocatable.Extended, n.Capacity.Extended, want)
	}
	if !n.Ready || n.Pool != "" || len(c.Report.Warnings) != 0 {
		t.Errorf("ready %v pool %q warnings %v", n.Ready, n.Pool, c.Report.Warnings)
	}
}

// TestSampleDeployment expands open-simulator's webapp Deployment into its
// 8 replicas of 8 CPU / 16Gi, each at most one per node (required
// hostname anti-affinity on its own label).
func TestSampleDeployment(t *testing.T) {
	c := load(t, sample(t, sampleDeployment))
	if len(c.Pods) != 8 || c.Report.ManifestReplicas != 8 || c.Report.PodsPending != 8 {
		t.Fatalf("%d pods, report %+v", len(c.Pods), c.Report)
	}
	var cores float64
	for i, p := range c.Pods {
		if want := "webapp-deploy-replica-" + strconv.Itoa(i); p.Name != want {
			t.Errorf("pod %d named %s, want %s", i, p.Name, want)
		}
		if p.Namespace != "default" || p.Tenant != "default/Deployment/webapp-deploy" || p.Phase != corev1.PodPending ||
			p.Node != -1 || p.MaxPerNode != 1 || p.MaxSkew != 0 || len(p.Unhonoured) != 0 || p.Pinned {
			t.Errorf("pod %+v", p)
		}
		checkFloat(t, p.Name+" memory GB", p.Requests.MemoryGB, 17.179869184)
		checkFloat(t, p.Name+" pods", p.Requests.Pods, 1)
		cores += p.Requests.Cores
	}
	checkFloat(t, "total cores", cores, 64)
	if len(c.NodeSets) != 0 || len(c.Report.Warnings) != 0 {
		t.Errorf("node sets %v warnings %v", c.NodeSets, c.Report.Warnings)
	}
}

// TestSampleStatefulSet expands database-sts into database-sts-0…7 of
// 4 CPU / 8Gi with self anti-affinity, and reports its preferred pod
// affinity as not honoured.
func TestSampleStatefulSet(t *testing.T) {
	c := load(t, sample(t, sampleStatefulSt))
	if len(c.Pods) != 8 {
		t.Fatalf("%d pods, want 8", len(c.Pods))
	}
	for i, p := range c.Pods {
		if want := "database-sts-" + strconv.Itoa(i); p.Name != want {
			t.Errorf("pod %d named %s, want %s", i, p.Name, want)
		}
		checkFloat(t, p.Name+" cores", p.Requests.Cores, 4)
		checkFloat(t, p.Name+" memory GB", p.Requests.MemoryGB, 8.589934592)
		if p.MaxPerNode != 1 || !slices.Equal(p.Unhonoured, []string{UnhonouredPreferredPodAffinity}) ||
			p.Tenant != "default/StatefulSet/database-sts" {
			t.Errorf("pod %s: max/node %d unhonoured %q tenant %s", p.Name, p.MaxPerNode, p.Unhonoured, p.Tenant)
		}
	}
	ws := warningsOf(c, WarnNotHonoured)
	if len(ws) != 1 || ws[0].Object != "StatefulSet default/database-sts" ||
		ws[0].Message != "not honoured on 8 pod(s) of the tenant, e.g. database-sts-0: preferred pod affinity" {
		t.Errorf("not-honoured warnings %+v", ws)
	}
}

// TestSamplePod reads cluster-capacity's --podspec example: one bare
// Pending pod of 150m / 100Mi.
func TestSamplePod(t *testing.T) {
	path := sample(t, samplePod)
	c := load(t, path)
	if len(c.Pods) != 1 {
		t.Fatalf("%d pods, want 1", len(c.Pods))
	}
	p := c.Pods[0]
	checkFloat(t, "cores", p.Requests.Cores, 0.15)
	checkFloat(t, "memory GB", p.Requests.MemoryGB, 0.1048576) // 100Mi
	if p.Name != "small-pod" || p.Namespace != "default" || p.Tenant != "default/Pod/small-pod" || p.OwnerKind != "" ||
		p.Phase != corev1.PodPending || !p.Created.IsZero() || p.Source != path || p.Node != -1 || p.Affinity != -1 || p.Tolerated != -1 {
		t.Errorf("pod %+v", p)
	}
	if c.Report.PodsPending != 1 || c.Report.ManifestReplicas != 0 {
		t.Errorf("report %+v", c.Report)
	}
}

// TestSamplesTogether loads the whole folder: 9 nodes (master-1 and
// pai-node-00 first, by file name), the bare pod, then the 16 replicas.
// master-1's NoSchedule taint, which neither workload tolerates, leaves 8
// nodes in the one "tolerated" set.
func TestSamplesTogether(t *testing.T) {
	c := load(t, sample(t, ""))
	r := c.Report
	if r.Files != 6 || r.Nodes != 9 || len(c.Pods) != 17 || r.ManifestReplicas != 16 || r.PodsPending != 17 {
		t.Fatalf("report %+v, %d pods", r, len(c.Pods))
	}
	wantObjects := map[string]int{kindNode: 9, kindPod: 1, kindDeployment: 1, kindStatefulSet: 1}
	if !reflect.DeepEqual(r.Objects, wantObjects) {
		t.Errorf("objects %v, want %v", r.Objects, wantObjects)
	}
	if c.Nodes[0].Name != "master-1" || c.Nodes[1].Name != "pai-node-00" || c.Pods[0].Name != "small-pod" ||
		c.Pods[1].Name != "webapp-deploy-replica-0" || c.Pods[9].Name != "database-sts-0" {
		t.Errorf("order: nodes %s, %s; pods %s, %s, %s", c.Nodes[0].Name, c.Nodes[1].Name, c.Pods[0].Name, c.Pods[1].Name, c.Pods[9].Name)
	}
	want := []NodeSet{{Kind: SetTolerated, Key: "tolerates no taints", Nodes: []int{1, 2, 3, 4, 5, 6, 7, 8}}}
	if !reflect.DeepEqual(c.NodeSets, want) {
		t.Errorf("node sets %+v, want %+v", c.NodeSets, want)
	}
	for _, p := range c.Pods {
		if p.Tolerated != 0 || p.Affinity != -1 {
			t.Errorf("%s: tolerated %d affinity %d", p.Name, p.Tolerated, p.Affinity)
		}
	}
}
