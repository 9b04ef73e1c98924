package k8s

import (
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestKubectlList reads testdata/cluster: three YAML node documents and a
// `kubectl get pods -A -o json` List of ten pods in every phase, with a
// ReplicaSet resolved by pod-template-hash, DaemonSet pods (one bound,
// one pinned by matchFields), a static mirror pod and pods on a node that
// is not in the input.
func TestKubectlList(t *testing.T) {
	c := load(t, "testdata/cluster")
	r := c.Report
	want := Report{
		Files: 2, Objects: map[string]int{kindNode: 3, kindPod: 10},
		Nodes: 3, NodesUnschedulable: 1, NodesNotReady: 1,
		PodsRunning: 4, PodsPending: 3, PodsSucceeded: 1, PodsFailed: 1, PodsBound: 3, PodsPinned: 3,
	}
	r.Warnings = nil
	if !reflect.DeepEqual(r, want) {
		t.Errorf("report\n got %+v\nwant %+v", r, want)
	}

	t.Run("nodes", func(t *testing.T) {
		a := findNode(t, c, "node-a")
		if a.Zone != "zone-1" || a.Region != "region-1" || a.Pool != "general" || a.InstanceType != "m5.xlarge" || !a.Ready {
			t.Errorf("node-a %+v", a)
		}
		checkFloat(t, "node-a cores", a.Allocatable.Cores, 3.8)
		checkFloat(t, "node-a memory GB", a.Allocatable.MemoryGB, 16.10612736) // 15Gi
		checkFloat(t, "node-a ephemeral GB", a.Allocatable.EphemeralGB, 96.63676416)
		b := findNode(t, c, "node-b")
		if b.Zone != "zone-2" || b.Pool != "gpus" || b.InstanceType != "p3.8xlarge" || !b.Unschedulable || len(b.Taints) != 1 {
			t.Errorf("node-b %+v (zone from failure-domain.beta, pool from EKS, type from the beta label)", b)
		}
		checkFloat(t, "node-b GPUs", b.Allocatable.GPUs, 4)
		n := findNode(t, c, "node-c")
		if n.Ready || !reflect.DeepEqual(n.Allocatable, n.Capacity) {
			t.Errorf("node-c ready %v allocatable %+v capacity %+v", n.Ready, n.Allocatable, n.Capacity)
		}
		checkFloat(t, "node-c memory GB", n.Allocatable.MemoryGB, 4)
	})

	t.Run("pods", func(t *testing.T) {
		cases := []struct {
			ns, name, phase, ownerKind, ownerName, tenant, nodeName string
			node                                                    int
			pinned                                                  bool
			affinity, tolerated                                     string
		}{
			{"ns1", "web-7d9f8b6c5d-abcde", "Running", "Deployment", "web", "ns1/Deployment/web", "node-a", 0, false, "", "tolerated: tolerates no taints"},
			{"ns1", "web-7d9f8b6c5d-fghij", "Pending", "Deployment", "web", "ns1/Deployment/web", "", -1, false, "", "tolerated: tolerates no taints"},
			{"ns1", "ghost-1", "Running", "", "", "ns1/Pod/ghost-1", "node-zzz", -1, false, "", "tolerated: tolerates no taints"},
			{"kube-system", "node-exporter-q1", "Running", "DaemonSet", "node-exporter", "kube-system/DaemonSet/node-exporter", "node-b", 1, true, "affinity: pinned to node-b", ""},
			{"kube-system", "kube-proxy-node-a", "Running", "Node", "node-a", "kube-system/Node/node-a", "node-a", 0, true, "affinity: pinned to node-a", ""},
			{"kube-system", "node-exporter-q2", "Pending", "DaemonSet", "node-exporter", "kube-system/DaemonSet/node-exporter", "", -1, true, "affinity: pinned to node-c", ""},
			{"ns1", "ghost-2", "Pending", "", "", "ns1/Pod/ghost-2", "node-zzz", -1, false, "", "tolerated: tolerates no taints"},
		}
		if len(c.Pods) != len(cases) {
			t.Fatalf("%d pods, want %d", len(c.Pods), len(cases))
		}
		for i, tc := range cases {
			p := &c.Pods[i]
			if p.Namespace != tc.ns || p.Name != tc.name {
				t.Errorf("pod %d is %s/%s, want %s/%s", i, p.Namespace, p.Name, tc.ns, tc.name)
				continue
			}
			got := []any{string(p.Phase), p.OwnerKind, p.OwnerName, p.Tenant, p.NodeName, p.Node, p.Pinned, setKey(c, p.Affinity), setKey(c, p.Tolerated)}
			exp := []any{tc.phase, tc.ownerKind, tc.ownerName, tc.tenant, tc.nodeName, tc.node, tc.pinned, tc.affinity, tc.tolerated}
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("%s: got %v, want %v", tc.name, got, exp)
			}
		}
		web := findPod(t, c, "ns1", "web-7d9f8b6c5d-abcde")
		checkFloat(t, "web cores", web.Requests.Cores, 0.25)
		checkFloat(t, "web memory GB", web.Requests.MemoryGB, 0.134217728) // 128Mi
		if web.Priority != 1000 || web.PriorityClassName != "high" || web.UID != "uid-web-1" ||
			!web.Created.Equal(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)) || web.Created.Location() != time.UTC ||
			web.Source != "testdata/cluster/pods.json#0" {
			t.Errorf("web %+v", web)
		}
		if ne := findPod(t, c, "kube-system", "node-exporter-q1"); !slices.Equal(ne.Unhonoured, []string{"hostPort 9100"}) {
			t.Errorf("node-exporter unhonoured %q", ne.Unhonoured)
		}
	})

	t.Run("warnings", func(t *testing.T) {
		want := []Warning{
			{Source: "testdata/cluster/nodes.yaml#2", Object: "Node node-c", Code: WarnNoAllocatable,
				Message: "no status.allocatable; using status.capacity"},
			{Source: "testdata/cluster/pods.json#4", Object: "Node node-zzz", Code: WarnUnknownNode,
				Message: "2 pod(s) bound to node node-zzz, which is not in the input; treated as unbound"},
			{Source: "testdata/cluster/pods.json#9", Object: "Pod ns2/lost", Code: WarnSkippedPhase,
				Message: "1 pod(s) of phase Unknown left out"},
			{Source: "testdata/cluster/pods.json#5", Object: "DaemonSet kube-system/node-exporter", Code: WarnNotHonoured,
				Message: "not honoured on 2 pod(s) of the tenant, e.g. node-exporter-q1: hostPort 9100"},
		}
		if !reflect.DeepEqual(c.Report.Warnings, want) {
			t.Errorf("warnings\n got %+v\nwant %+v", c.Report.Warnings, want)
		}
	})
}

// TestPodRequests checks PodRequests' effect: the restartable sidecar
// (100m/64Mi) runs beside the app (500m/256Mi) and the migrate init
// container (2/128Mi); overhead (50m/32Mi) is added:
//
//	cpu    = max(500m+100m, 2+100m) + 50m       = 2.15
//	memory = max(256Mi+64Mi, 128Mi+64Mi) + 32Mi = 352Mi = 0.369098752 GB
func TestPodRequests(t *testing.T) {
	c := load(t, "testdata/requests.yaml")
	p := findPod(t, c, "team-a", "sidecar-pod")
	checkFloat(t, "cores", p.Requests.Cores, 2.15)
	checkFloat(t, "memory GB", p.Requests.MemoryGB, 0.369098752)
	checkFloat(t, "ephemeral GB", p.Requests.EphemeralGB, 1.073741824) // 1Gi
	checkFloat(t, "GPUs", p.Requests.GPUs, 1)
	checkFloat(t, "pods", p.Requests.Pods, 1)
	if !reflect.DeepEqual(p.Requests.Extended, map[string]float64{"example.com/foo": 3}) {
		t.Errorf("extended %v", p.Requests.Extended)
	}
	if p.Priority != 5 || p.Source != "testdata/requests.yaml" {
		t.Errorf("priority %d source %q (a one-object file is its own source)", p.Priority, p.Source)
	}
}

// TestNodeSets: nodeSelector, required node affinity and taints of
// testdata/constraints give deduplicated sets in order of first use.
// Nodes: n1 ssd; n2 ssd + nvidia.com/gpu=present:NoSchedule; n3 hdd +
// dedicated=infra:NoExecute; n4 PreferNoSchedule only (ignored).
func TestNodeSets(t *testing.T) {
	c := load(t, "testdata/constraints")
	want := []NodeSet{
		{SetAffinity, "nodeSelector disktype=ssd", []int{0, 1}},
		{SetTolerated, "tolerates no taints", []int{0, 3}},
		{SetAffinity, "nodeAffinity disktype in (hdd,ssd)", []int{0, 1, 2}},
		{SetTolerated, "tolerates nvidia.com/gpu=present:NoSchedule", []int{0, 1, 3}},
		{SetAffinity, "pinned to n1", []int{0}},
	}
	if !reflect.DeepEqual(c.NodeSets, want) {
		t.Fatalf("node sets\n got %+v\nwant %+v", c.NodeSets, want)
	}
	cases := []struct {
		ns, name            string
		affinity, tolerated int
	}{
		{"default", "p-ssd", 0, 1},
		{"default", "p-ssd-2", 0, 1}, // equal constraints share the sets
		{"default", "p-gpu", 2, 3},
		{"default", "p-any", -1, -1}, // tolerates every taint
		{"default", "loner", -1, 1},
		{"kube-system", "agent-n1", 4, -1}, // pinned: its own node
	}
	for _, tc := range cases {
		p := findPod(t, c, tc.ns, tc.name)
		if p.Affinity != tc.affinity || p.Tolerated != tc.tolerated {
			t.Errorf("%s: affinity %d tolerated %d, want %d %d", tc.name, p.Affinity, p.Tolerated, tc.affinity, tc.tolerated)
		}
	}
}

// TestPodTerms: required anti-affinity and topology spread become
// MaxPerNode and MaxSkew; the rest is listed as unhonoured.
func TestPodTerms(t *testing.T) {
	c := load(t, "testdata/constraints")
	cases := []struct {
		ns, name   string
		maxPerNode int
		maxSkew    int
		unhonoured []string
	}{
		{"shop", "api-replica-0", 1, 2, []string{
			"preferred node affinity",
			"required pod anti-affinity on topologyKey topology.kubernetes.io/zone",
			"preferred pod anti-affinity",
			"topology spread ScheduleAnyway",
			"topology spread on key kubernetes.io/hostname",
			"volume topology (persistentVolumeClaim api-data of a pod not yet bound: its volume's zone is unknown)",
			"hostPort 8080",
		}},
		// tier=backend also selects api's pods; matchLabelKeys [app] keeps
		// the spread constraint to cache's own pods.
		{"shop", "cache-replica-1", 1, 1, []string{UnhonouredAntiAffinityOthers}},
		{"default", "loner", 0, 0, []string{UnhonouredAntiAffinityNotSelf}},
		{"default", "follower", 0, 0, []string{UnhonouredRequiredPodAffinity}},
		{"default", "db-1", 0, 0, []string{"volume topology (persistentVolumeClaim data-db-1 of a pod not yet bound: its volume's zone is unknown)"}},
		{"default", "p-ssd", 0, 0, nil},
	}
	for _, tc := range cases {
		p := findPod(t, c, tc.ns, tc.name)
		if p.MaxPerNode != tc.maxPerNode || p.MaxSkew != tc.maxSkew || !slices.Equal(p.Unhonoured, tc.unhonoured) {
			t.Errorf("%s: max/node %d skew %d unhonoured %q\nwant %d %d %q", tc.name,
				p.MaxPerNode, p.MaxSkew, p.Unhonoured, tc.maxPerNode, tc.maxSkew, tc.unhonoured)
		}
	}
	ws := warningsOf(c, WarnNotHonoured)
	if len(ws) != 11 || ws[2].Object != "Deployment shop/api" ||
		ws[2].Message != "not honoured on 3 pod(s) of the tenant, e.g. api-replica-0: preferred node affinity" {
		t.Errorf("%d not-honoured warnings, third %+v", len(ws), ws[2])
	}
}

// TestExpand: manifests without pods in the input become Pending replicas
// (after the input's pods, in manifest order); running workloads, owned
// ReplicaSets and finished Jobs do not.
func TestExpand(t *testing.T) {
	c := load(t, "testdata/constraints")
	var got []string
	for _, p := range c.Pods {
		got = append(got, p.Namespace+"/"+p.Name+" "+p.Tenant)
	}
	want := []string{
		"default/p-ssd default/Pod/p-ssd",
		"default/p-ssd-2 default/Pod/p-ssd-2",
		"default/p-gpu default/Pod/p-gpu",
		"default/p-any default/Pod/p-any",
		"default/loner default/Pod/loner",
		"default/follower default/Pod/follower",
		"default/running-abc12-xyz default/Deployment/running", // so Deployment running is not expanded
		"shop/api-replica-0 shop/Deployment/api",
		"shop/api-replica-1 shop/Deployment/api",
		"shop/api-replica-2 shop/Deployment/api",
		"shop/cache-replica-0 shop/Deployment/cache",
		"shop/cache-replica-1 shop/Deployment/cache",
		"default/db-0 default/StatefulSet/db",
		"default/db-1 default/StatefulSet/db",
		"kube-system/agent-n1 kube-system/DaemonSet/agent", // ssd and untainted: n1 only
		"default/batch-replica-0 default/Job/batch",        // parallelism 3, completions 2
		"default/batch-replica-1 default/Job/batch",
		"default/orphan-replica-0 default/ReplicaSet/orphan",
		"default/orphan-replica-1 default/ReplicaSet/orphan",
		"default/front-replica-0 default/Deployment/front", // its ReplicaSet is not expanded too
		"default/nightly-28000000-replica-0 default/CronJob/nightly",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pods\n got %q\nwant %q", got, want)
	}
	r := c.Report
	if r.ManifestReplicas != 14 || r.PodsPending != 20 || r.PodsRunning != 1 || r.PodsPinned != 1 || r.PodsBound != 1 {
		t.Errorf("report %+v", r)
	}
	wantObjects := map[string]int{"ConfigMap": 1, "DaemonSet": 1, "Deployment": 4, "Job": 3, "Node": 4, "Pod": 7,
		"ReplicaSet": 2, "Service": 1, "StatefulSet": 1}
	if !reflect.DeepEqual(r.Objects, wantObjects) {
		t.Errorf("objects %v", r.Objects)
	}
	skipped := warningsOf(c, WarnSkippedKind)
	if len(skipped) != 2 || skipped[0].Message != "1 object(s) of kind Service skipped" ||
		skipped[0].Source != "testdata/constraints/workloads.yaml#11" {
		t.Errorf("skipped-kind warnings %+v", skipped)
	}
	agent := findPod(t, c, "kube-system", "agent-n1")
	checkFloat(t, "agent cores", agent.Requests.Cores, 0.1)
	if !agent.Pinned || agent.Node != -1 || agent.Phase != corev1.PodPending {
		t.Errorf("agent %+v", agent)
	}
	db := findPod(t, c, "default", "db-0")
	checkFloat(t, "db memory GB", db.Requests.MemoryGB, 4.294967296) // 4Gi
}

// TestSupportBundle walks a troubleshoot-like folder: typed lists whose
// items carry no kind, a ReplicaSet and a Job that resolve their pods'
// owners, a bare array of custom resources (a Longhorn Node, not a
// Kubernetes Node), a list of collection errors and a text file.
func TestSupportBundle(t *testing.T) {
	c := load(t, "testdata/bundle")
	r := c.Report
	wantObjects := map[string]int{NoKind: 1, kindJob: 1, kindNode: 2, "Node.longhorn.io": 1, kindPod: 4, kindReplicaSet: 1}
	if r.Files != 7 || !reflect.DeepEqual(r.Objects, wantObjects) || r.PodsRunning != 4 || r.PodsBound != 4 || r.ManifestReplicas != 0 {
		t.Errorf("report %+v", r)
	}
	if len(c.Nodes) != 2 || c.Nodes[0].Pool != "pool-1" || c.Nodes[1].Zone != "us-east-1b" {
		t.Errorf("nodes %+v", c.Nodes)
	}
	checkFloat(t, "worker-1 memory GB", c.Nodes[0].Allocatable.MemoryGB, 14.233387008) // 13899792Ki
	checkFloat(t, "worker-1 cores", c.Nodes[0].Allocatable.Cores, 3.92)
	var tenants []string
	for _, p := range c.Pods {
		tenants = append(tenants, p.Tenant+"@"+c.Nodes[p.Node].Name)
	}
	want := []string{
		"ns1/Deployment/api-server@worker-1", // through the ReplicaSet object, not the hash
		"ns1/CronJob/sync@worker-2",          // through the Job object
		"ns2/StatefulSet/cache@worker-2",
		"ns2/Pod/debug@worker-1",
	}
	if !slices.Equal(tenants, want) {
		t.Errorf("tenants %q, want %q", tenants, want)
	}
	if got := len(warningsOf(c, WarnSkippedKind)); got != 2 {
		t.Errorf("%d skipped-kind warnings, want 2 (Node.longhorn.io, no kind)", got)
	}
}

// TestErrors: bad input stops Load with an error naming file, item,
// object and field.
func TestErrors(t *testing.T) {
	const quantityRE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
	cases := []struct {
		name, path string
		msg        string
		is         error
	}{
		{"bad quantity in a list", "testdata/bad/quantity-pods.json",
			"testdata/bad/quantity-pods.json: item 1 (default/web-1): spec.containers[0].resources.requests.cpu: " + quantityRE,
			resource.ErrFormatWrong},
		{"bad quantity in a node", "testdata/bad/quantity-node.yaml",
			"testdata/bad/quantity-node.yaml (n1): status.capacity.memory: " + quantityRE,
			resource.ErrFormatWrong},
		{"wrong type", "testdata/bad/type-error.yaml",
			"testdata/bad/type-error.yaml: item 1 (default/web): spec.template.spec.containers.ports.containerPort: k8s: malformed object: cannot read a JSON string into int32",
			ErrMalformed},
		{"bad node affinity operator", "testdata/bad/bad-affinity.yaml",
			`testdata/bad/bad-affinity.yaml (team/picky): spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: k8s: malformed object: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
			ErrMalformed},
		{"bad label selector", "testdata/bad/bad-selector.yaml",
			`testdata/bad/bad-selector.yaml (default/spready): spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: k8s: malformed object: "Maybe" is not a valid label selector operator`,
			ErrMalformed},
		{"duplicate node, different UID", "testdata/bad/dup-node.yaml",
			`testdata/bad/dup-node.yaml: item 1 (n1): metadata.uid: k8s: duplicate object with a different UID: node n1 is also in testdata/bad/dup-node.yaml#0 with UID "uid-1", here "uid-2"`,
			ErrDuplicate},
		{"duplicate pod, different UID", "testdata/bad/dup-pod.json",
			`testdata/bad/dup-pod.json: item 1 (a/p): metadata.uid: k8s: duplicate object with a different UID: pod a/p is also in testdata/bad/dup-pod.json#0 with UID "u1", here "u2"`,
			ErrDuplicate},
		{"YAML syntax", "testdata/bad/syntax.yaml", "", ErrMalformed},
		{"missing path", "testdata/absent", "", fs.ErrNotExist},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("error\n got %s\nwant %s", err, tc.msg)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			var oe *ObjectError
			if tc.is != fs.ErrNotExist && (!errors.As(err, &oe) || oe.File != tc.path) {
				t.Errorf("error %v is not an *ObjectError on %s", err, tc.path)
			}
		})
	}
	if _, err := Load(); !errors.Is(err, ErrNoInput) {
		t.Errorf("Load() = %v, want ErrNoInput", err)
	}
}

// TestDuplicates: a node and a pod read twice with the same UID are kept
// once, with a warning each.
func TestDuplicates(t *testing.T) {
	c := load(t, "testdata/dup")
	if len(c.Nodes) != 1 || len(c.Pods) != 1 || c.Pods[0].Node != 0 {
		t.Fatalf("%d nodes, %d pods", len(c.Nodes), len(c.Pods))
	}
	ws := warningsOf(c, WarnDuplicate)
	if len(ws) != 2 || ws[0].Object != "Node n1" || ws[1].Object != "Pod default/p" || ws[1].Source != "testdata/dup/pods.yaml#1" {
		t.Errorf("duplicate warnings %+v", ws)
	}
}

// TestDeterministic: the same input gives the same cluster, and paths may
// name files and folders together.
func TestDeterministic(t *testing.T) {
	paths := []string{"testdata/constraints", "testdata/cluster/nodes.yaml", "testdata/requests.yaml"}
	first := load(t, paths...)
	for i := 0; i < 5; i++ {
		if again := load(t, paths...); !reflect.DeepEqual(first, again) {
			t.Fatalf("run %d differs", i)
		}
	}
	if first.Report.Files != 5 || len(first.Nodes) != 7 {
		t.Errorf("files %d nodes %d", first.Report.Files, len(first.Nodes))
	}
}

// TestSourceNames: a one-object file is its own source; objects of a list
// or of a multi-document file are file#item.
func TestSourceNames(t *testing.T) {
	c := load(t, "testdata/requests.yaml", "testdata/cluster/nodes.yaml")
	if c.Pods[0].Source != "testdata/requests.yaml" || c.Nodes[2].Source != "testdata/cluster/nodes.yaml#2" {
		t.Errorf("sources %q, %q", c.Pods[0].Source, c.Nodes[2].Source)
	}
	if !strings.HasSuffix(c.Nodes[0].Source, "#0") {
		t.Errorf("first node source %q", c.Nodes[0].Source)
	}
}

// TestVolumeZone: a running pod with a persistentVolumeClaim is held to its
// node's zone (its volume is zonal), as part of its affinity set, and its
// claim is no longer listed as unhonoured; a pod with no claim is not held.
func TestVolumeZone(t *testing.T) {
	c := load(t, "testdata/bundle")
	p := findPod(t, c, "ns2", "cache-0")
	if p.Node < 0 || p.Affinity < 0 {
		t.Fatalf("cache-0: node %d affinity %d, want bound with an affinity set", p.Node, p.Affinity)
	}
	set := c.NodeSets[p.Affinity]
	zone := c.Nodes[p.Node].Zone
	if set.Key != VolumeZonePrefix+zone {
		t.Errorf("cache-0's set %q, want %q", set.Key, VolumeZonePrefix+zone)
	}
	var want []int
	for i, n := range c.Nodes {
		if n.Zone == zone {
			want = append(want, i)
		}
	}
	if !slices.Equal(set.Nodes, want) || len(want) == len(c.Nodes) {
		t.Errorf("cache-0's set holds nodes %v, want the nodes of zone %s %v (not every node)", set.Nodes, zone, want)
	}
	for _, u := range p.Unhonoured {
		if strings.HasPrefix(u, UnhonouredVolume) {
			t.Errorf("cache-0's claim still unhonoured: %q", u)
		}
	}
	if q := findPod(t, c, "ns1", "api-6b7f9c8d4-aaaaa"); q.Affinity >= 0 && strings.Contains(c.NodeSets[q.Affinity].Key, VolumeZonePrefix) {
		t.Errorf("a pod without a claim is held to a zone: %q", c.NodeSets[q.Affinity].Key)
	}
}
