package k8sgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// census counts what a generated cluster holds.
type census struct {
	phases                                   map[corev1.PodPhase]int
	byOwner                                  map[string]int // owner kind → pods
	daemon                                   map[string]int // DaemonSet → pods
	bestEffort, withInit, memoryPool, gpu    int
	antiAffinity, spread, preferred, high    int
	controlPlane, notReady, cordoned, zones  int
	pendingDesigned, pendingWithMessage, all int
}

func (c census) String() string {
	return fmt.Sprintf("phases %v owners %v daemons %v bestEffort %d init %d memoryPool %d gpu %d anti %d spread %d preferred %d high %d",
		c.phases, c.byOwner, c.daemon, c.bestEffort, c.withInit, c.memoryPool, c.gpu, c.antiAffinity, c.spread, c.preferred, c.high)
}

// checkCluster checks the structure Generate promises and returns a census.
func checkCluster(t *testing.T, o Options, nodes []*corev1.Node, pods []*corev1.Pod) census {
	t.Helper()
	c := census{phases: map[corev1.PodPhase]int{}, byOwner: map[string]int{}, daemon: map[string]int{}}
	if len(nodes) != o.Nodes {
		t.Errorf("nodes = %d, want %d", len(nodes), o.Nodes)
	}
	zones := map[string]bool{}
	byName := map[string]*corev1.Node{}
	gpuNodes := 0
	for _, n := range nodes {
		byName[n.Name] = n
		for _, l := range []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion, corev1.LabelHostname, corev1.LabelInstanceTypeStable} {
			if n.Labels[l] == "" {
				t.Errorf("node %s: no label %s", n.Name, l)
			}
		}
		if n.Labels[corev1.LabelHostname] != n.Name {
			t.Errorf("node %s: hostname label %q", n.Name, n.Labels[corev1.LabelHostname])
		}
		zones[n.Labels[corev1.LabelTopologyZone]] = true
		if len(n.Status.Allocatable) != len(n.Status.Capacity) {
			t.Errorf("node %s: allocatable and capacity list different resources", n.Name)
		}
		for r, a := range n.Status.Allocatable {
			if cp, ok := n.Status.Capacity[r]; !ok || a.Cmp(cp) > 0 {
				t.Errorf("node %s: allocatable %s %s > capacity %s", n.Name, r, a.String(), cp.String())
			}
		}
		if m := n.Status.Capacity[corev1.ResourceMemory]; !strings.HasSuffix(m.String(), "Ki") {
			t.Errorf("node %s: memory capacity %s not in Ki", n.Name, m.String())
		}
		if cpu := n.Status.Capacity[corev1.ResourceCPU]; cpu.MilliValue()-n.Status.Allocatable.Cpu().MilliValue() < 60 {
			t.Errorf("node %s: no CPU reserved", n.Name)
		}
		if _, ok := n.Labels[labelControlPlane]; ok {
			c.controlPlane++
		} else if n.Labels[labelNodePool] == "" {
			t.Errorf("node %s: no node pool label", n.Name)
		}
		if n.Labels[labelNodePool] == poolGPU {
			gpuNodes++
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
				c.notReady++
			}
		}
		if n.Spec.Unschedulable {
			c.cordoned++
		}
		if n.CreationTimestamp.IsZero() {
			t.Errorf("node %s: no creationTimestamp", n.Name)
		}
	}
	c.zones = len(zones)
	if c.controlPlane != controlPlanes || c.notReady != 1 || c.cordoned != 1 {
		t.Errorf("control plane %d, NotReady %d, cordoned %d; want 3, 1, 1", c.controlPlane, c.notReady, c.cordoned)
	}
	if c.zones > o.Zones || c.zones < min(o.Zones, 3) {
		t.Errorf("zones = %d with Zones %d", c.zones, o.Zones)
	}

	created := map[time.Time]string{}
	live := 0
	for _, p := range pods {
		id := p.Namespace + "/" + p.Name
		c.all++
		c.phases[p.Status.Phase]++
		if !terminal(p) {
			live++
		}
		if prev, dup := created[p.CreationTimestamp.Time]; dup {
			t.Errorf("%s and %s created at the same second", prev, id)
		}
		created[p.CreationTimestamp.Time] = id
		if len(p.OwnerReferences) != 1 {
			t.Errorf("%s: %d owners", id, len(p.OwnerReferences))
			continue
		}
		own := p.OwnerReferences[0]
		c.byOwner[own.Kind]++
		switch own.Kind {
		case "DaemonSet":
			c.daemon[own.Name]++
			f := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0]
			if f.Key != "metadata.name" || f.Values[0] != p.Spec.NodeName {
				t.Errorf("%s: DaemonSet pod pinned to %v, bound to %s", id, f.Values, p.Spec.NodeName)
			}
			if *p.Spec.Priority != 2000001000 || p.Spec.PriorityClassName != PrioritySystemNodeCritical {
				t.Errorf("%s: priority %d %q", id, *p.Spec.Priority, p.Spec.PriorityClassName)
			}
			if n := byName[p.Spec.NodeName]; n != nil && !p.CreationTimestamp.After(n.CreationTimestamp.Time) {
				t.Errorf("%s: created before its node", id)
			}
		case "Node":
			if !isMirror(p) || p.Name != p.Labels["component"]+"-"+own.Name || own.Name != p.Spec.NodeName {
				t.Errorf("%s: not a mirror pod of node %s", id, own.Name)
			}
		case "ReplicaSet":
			hash := p.Labels[labelPodTemplateHash]
			if hash == "" || !strings.HasSuffix(own.Name, "-"+hash) || !strings.HasPrefix(p.Name, own.Name+"-") {
				t.Errorf("%s: ReplicaSet %s, pod-template-hash %q", id, own.Name, hash)
			}
		case "StatefulSet", "Job":
		default:
			t.Errorf("%s: owner kind %s", id, own.Kind)
		}
		if p.Status.Phase == corev1.PodPending {
			if p.Spec.NodeName != "" {
				t.Errorf("%s: Pending on %s", id, p.Spec.NodeName)
			}
			if len(p.Status.Conditions) == 1 && strings.HasPrefix(p.Status.Conditions[0].Message, fmt.Sprintf("0/%d nodes are available: ", len(nodes))) {
				c.pendingWithMessage++
			}
			switch base := p.Labels[labelApp]; {
			case strings.HasPrefix(base, "spark-driver-xl"), strings.HasPrefix(base, "edge-renderer-arm64"),
				strings.HasPrefix(base, "train-llm"), strings.HasPrefix(base, "olap-cache"):
				c.pendingDesigned++
			}
		} else if p.Spec.NodeName == "" {
			t.Errorf("%s: %s without a node", id, p.Status.Phase)
		}
		if p.Status.QOSClass == corev1.PodQOSBestEffort {
			c.bestEffort++
		}
		if len(p.Spec.InitContainers) > 0 {
			c.withInit++
		}
		if p.Spec.NodeSelector[labelNodePool] == poolMemory {
			c.memoryPool++
		}
		if _, ok := p.Spec.Containers[0].Resources.Limits[ResourceGPU]; ok && p.Spec.NodeName != "" {
			c.gpu++
		}
		if a := p.Spec.Affinity; a != nil {
			if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
				c.antiAffinity++
			}
			if (a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
				(a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) {
				c.preferred++
			}
		}
		if len(p.Spec.TopologySpreadConstraints) > 0 {
			c.spread++
		}
		if want := priorityValues[p.Spec.PriorityClassName]; p.Spec.Priority == nil || *p.Spec.Priority != want {
			t.Errorf("%s: priority %v for class %q, want %d", id, p.Spec.Priority, p.Spec.PriorityClassName, want)
		}
		if p.Spec.PriorityClassName == PriorityHigh {
			c.high++
		}
	}
	if live != o.Pods {
		t.Errorf("Running+Pending pods = %d, want %d", live, o.Pods)
	}
	if d := c.all - o.Pods; d < 0 || float64(d) > 0.02*float64(o.Pods) {
		t.Errorf("pods = %d, not within 2%% of %d", c.all, o.Pods)
	}
	if c.daemon["kube-proxy"] != o.Nodes || c.daemon["prometheus-node-exporter"] != o.Nodes || c.daemon["nvidia-device-plugin-daemonset"] != gpuNodes {
		t.Errorf("DaemonSet pods %v for %d nodes, %d GPU nodes", c.daemon, o.Nodes, gpuNodes)
	}
	if c.byOwner["Node"] != 4*controlPlanes {
		t.Errorf("mirror pods = %d", c.byOwner["Node"])
	}
	if c.pendingWithMessage != c.phases[corev1.PodPending] || c.pendingDesigned < 3 {
		t.Errorf("Pending %d, with a scheduler message %d, designed to be %d", c.phases[corev1.PodPending], c.pendingWithMessage, c.pendingDesigned)
	}
	if bad := checkPlacement(nodes, pods); len(bad) > 0 {
		t.Errorf("%d placement violations, e.g. %v", len(bad), bad[:min(10, len(bad))])
	}
	return c
}

func TestGenerate(t *testing.T) {
	cases := []struct {
		name    string
		o       Options
		variety bool // every kind of pod the brief lists is there
		large   bool
	}{
		{"default", DefaultOptions(), true, false},
		{"smallest", Options{Nodes: MinNodes, Pods: 60, Seed: 5}, false, false},
		{"two zones", Options{Nodes: 100, Pods: 900, Seed: 7, Zones: 2}, true, false},
		{"six zones", Options{Nodes: 90, Pods: 700, Seed: 8, Zones: 6}, true, false},
		// More pods than the nodes hold: many Pending, every node full.
		{"crowded", Options{Nodes: 20, Pods: 1500, Seed: 3}, false, false},
		{"benchmark size", Options{Nodes: 1500, Pods: 10000, Seed: 1}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.large && testing.Short() {
				t.Skip("large")
			}
			start := time.Now()
			nb, pb, err := Generate(c.o)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			o, _ := c.o.normalized()
			cs := checkCluster(t, o, decodeNodes(t, nb), decodePods(t, pb))
			t.Logf("%v: %d nodes, %d pods, %.1f MB; %v", took, c.o.Nodes, cs.all, float64(len(nb)+len(pb))/1e6, cs)
			if !c.variety {
				return
			}
			for what, n := range map[string]int{
				"BestEffort": cs.bestEffort, "init containers": cs.withInit, "memory pool selector": cs.memoryPool,
				"bound GPU": cs.gpu, "anti-affinity": cs.antiAffinity, "zone spread": cs.spread, "preferred affinity": cs.preferred,
				"high priority": cs.high, "StatefulSet": cs.byOwner["StatefulSet"], "Job": cs.byOwner["Job"],
				"Succeeded": cs.phases[corev1.PodSucceeded], "Failed": cs.phases[corev1.PodFailed],
			} {
				if n == 0 {
					t.Errorf("no %s pods", what)
				}
			}
			if c.large && took > 10*time.Second {
				t.Errorf("Generate took %v", took)
			}
		})
	}
}

func TestGenerateReproducible(t *testing.T) {
	o := DefaultOptions()
	n1, p1, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	n2, p2, _ := Generate(o)
	if !bytes.Equal(n1, n2) || !bytes.Equal(p1, p2) {
		t.Fatal("same seed, different bytes")
	}
	o.Seed = 2
	n3, p3, _ := Generate(o)
	if bytes.Equal(n1, n3) || bytes.Equal(p1, p3) {
		t.Fatal("different seeds, same bytes")
	}
}

// TestGenerateCacheTransparent: caching the static filters per template must
// not change a single placement.
func TestGenerateCacheTransparent(t *testing.T) {
	o := Options{Nodes: 120, Pods: 1000, Seed: 4}
	on, err := generate(o, true)
	if err != nil {
		t.Fatal(err)
	}
	off, _ := generate(o, false)
	n1, p1, _ := on.marshal()
	n2, p2, _ := off.marshal()
	if !bytes.Equal(n1, n2) || !bytes.Equal(p1, p2) {
		t.Fatal("cache changed the output")
	}
}

func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"too few nodes", Options{Nodes: 7, Pods: 100}, "Nodes 7"},
		{"too many zones", Options{Nodes: 60, Pods: 400, Zones: 27}, "Zones 27"},
		{"negative zones", Options{Nodes: 60, Pods: 400, Zones: -1}, "Zones -1"},
		{"negative pods", Options{Nodes: 60, Pods: -1}, "Pods -1"},
		{"fewer pods than DaemonSets", Options{Nodes: 60, Pods: 100}, "Pods 100 <"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Generate(c.o)
			if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrOptions with %q", err, c.want)
			}
		})
	}
}

// TestKubectlShape pins the envelope and key order of `kubectl get -o json`.
func TestKubectlShape(t *testing.T) {
	nb, pb, err := Generate(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{nb, pb} {
		if !bytes.HasPrefix(b, []byte("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": ")) {
			t.Errorf("head: %q", b[:120])
		}
		if !bytes.HasSuffix(b, []byte("    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")) {
			t.Errorf("tail: %q", b[len(b)-120:])
		}
	}
	empty, err := marshalList(nil)
	if err != nil || string(empty) != "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n" {
		t.Errorf("empty list %q, %v", empty, err)
	}
}

// TestGenerateSeeds runs the placement checker over many small clusters:
// seeds, zone counts and crowding the table above does not reach.
func TestGenerateSeeds(t *testing.T) {
	for seed := uint64(1); seed <= 24; seed++ {
		o := Options{Nodes: 8 + int(seed*7%40), Pods: 0, Seed: seed, Zones: 1 + int(seed%5)}
		o.Pods = o.Nodes*(4+int(seed%9)) + 60
		t.Run(fmt.Sprintf("seed=%d/nodes=%d/pods=%d/zones=%d", seed, o.Nodes, o.Pods, o.Zones), func(t *testing.T) {
			nb, pb, err := Generate(o)
			if err != nil {
				t.Fatal(err)
			}
			nodes, pods := decodeNodes(t, nb), decodePods(t, pb)
			if bad := checkPlacement(nodes, pods); len(bad) > 0 {
				t.Errorf("%d violations, e.g. %v", len(bad), bad[:min(5, len(bad))])
			}
			live := 0
			for _, p := range pods {
				if !terminal(p) {
					live++
				}
			}
			if live != o.Pods {
				t.Errorf("Running+Pending %d, want %d", live, o.Pods)
			}
		})
	}
}

// TestNamesUniqueAtScale: at 1,500 nodes a DaemonSet has 1,500 pods whose
// five-letter generateName suffixes once clashed (ingest k8s then refused
// the duplicate pod); every namespace/name must be unique, as the API server
// makes it.
func TestNamesUniqueAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	_, pods, err := Generate(Options{Nodes: 1500, Pods: 10000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Namespace, Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(pods, &list); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range list.Items {
		k := p.Metadata.Namespace + "/" + p.Metadata.Name
		if seen[k] {
			t.Fatalf("pod %s generated twice", k)
		}
		seen[k] = true
	}
}
