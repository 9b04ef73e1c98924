package k8sgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/yaml"
	resourcehelper "k8s.io/component-helpers/resource"
	schedhelper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// This file is the independent placement checker: it reads only the printed
// JSON and judges it with Kubernetes' own helpers (component-helpers'
// PodRequests, required node affinity and taint matching), never with the
// package's scheduler code.

// decodeList reads a `kubectl get -o json` List and checks its envelope.
func decodeList(t *testing.T, b []byte, kind string) [][]byte {
	t.Helper()
	var l corev1.List
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096).Decode(&l); err != nil {
		t.Fatalf("decode List: %v", err)
	}
	if l.APIVersion != "v1" || l.Kind != "List" {
		t.Fatalf("List TypeMeta = %q %q", l.APIVersion, l.Kind)
	}
	out := make([][]byte, len(l.Items))
	for i, it := range l.Items {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(it.Raw, &tm); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if tm.APIVersion != "v1" || tm.Kind != kind {
			t.Fatalf("item %d TypeMeta = %q %q, want v1 %s", i, tm.APIVersion, tm.Kind, kind)
		}
		out[i] = it.Raw
	}
	return out
}

func decodeNodes(t *testing.T, b []byte) []*corev1.Node {
	t.Helper()
	var out []*corev1.Node
	for i, raw := range decodeList(t, b, "Node") {
		n := &corev1.Node{}
		if err := json.Unmarshal(raw, n); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		out = append(out, n)
	}
	return out
}

func decodePods(t *testing.T, b []byte) []*corev1.Pod {
	t.Helper()
	var out []*corev1.Pod
	for i, raw := range decodeList(t, b, "Pod") {
		p := &corev1.Pod{}
		if err := json.Unmarshal(raw, p); err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		out = append(out, p)
	}
	return out
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func isMirror(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// checkPlacement returns every broken rule of the placement:
//
//   - capacity: per node, the effective requests of its live (Running or
//     Pending-but-bound) pods, pod count included, ≤ allocatable, for every
//     resource;
//   - taints: every bound pod tolerates its node's NoSchedule and NoExecute
//     taints (mirror pods excepted: the kubelet admits them);
//   - node affinity: every bound pod matches its nodeSelector and required
//     node affinity;
//   - hostname anti-affinity: no live pod shares its node with a pod one of
//     its required terms selects;
//   - zone spread: for every DoNotSchedule constraint, max − min of the
//     matching live pods over the eligible domains ≤ maxSkew;
//   - GPU devices: the shares the alibabacloud.com/gpu-index annotation puts
//     on one device add up to at most 1000;
//   - Pending pods have no node; bound pods name a node that exists.
func checkPlacement(nodes []*corev1.Node, pods []*corev1.Pod) []string {
	var bad []string
	add := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	byName := map[string]*corev1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	used := map[string]corev1.ResourceList{}
	onNode := map[string][]*corev1.Pod{}
	devices := map[string]map[string]int64{}
	logger := logr.Discard()
	noSchedOrExec := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	for _, p := range pods {
		id := p.Namespace + "/" + p.Name
		if p.Status.Phase == corev1.PodPending {
			if p.Spec.NodeName != "" {
				add("%s: Pending but bound to %s", id, p.Spec.NodeName)
			}
			continue
		}
		n, ok := byName[p.Spec.NodeName]
		if !ok {
			add("%s: phase %s on unknown node %q", id, p.Status.Phase, p.Spec.NodeName)
			continue
		}
		if !isMirror(p) {
			if taint, bad := schedhelper.FindMatchingUntoleratedTaint(logger, n.Spec.Taints, p.Spec.Tolerations, noSchedOrExec, false); bad {
				add("%s: untolerated taint %s on %s", id, taint.ToString(), n.Name)
			}
			if match, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n); err != nil || !match {
				add("%s: node affinity does not match %s (%v)", id, n.Name, err)
			}
		}
		if terminal(p) {
			continue
		}
		req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		req[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI)
		sum := used[n.Name]
		if sum == nil {
			sum = corev1.ResourceList{}
			used[n.Name] = sum
		}
		for r, q := range req {
			s := sum[r]
			s.Add(q)
			sum[r] = s
		}
		onNode[n.Name] = append(onNode[n.Name], p)
		if idx, ok := p.Annotations[annotationGPUIndex]; ok {
			share, _ := strconv.ParseInt(p.Annotations[annotationGPUMilli], 10, 64)
			if devices[n.Name] == nil {
				devices[n.Name] = map[string]int64{}
			}
			for _, d := range strings.Split(idx, ",") {
				devices[n.Name][d] += share
			}
		}
	}
	for _, n := range nodes {
		for r, q := range used[n.Name] {
			if q.IsZero() {
				continue
			}
			a, ok := n.Status.Allocatable[r]
			if !ok || q.Cmp(a) > 0 {
				add("node %s: %s requested %s > allocatable %s", n.Name, r, q.String(), a.String())
			}
		}
		for d, milli := range devices[n.Name] {
			if milli > 1000 {
				add("node %s: GPU %s shared to %d/1000", n.Name, d, milli)
			}
		}
	}
	bad = append(bad, checkAntiAffinity(onNode)...)
	bad = append(bad, checkSpread(nodes, byName, pods)...)
	sort.Strings(bad)
	return bad
}

// selectorOf compiles a selector; a nil one selects nothing, as in affinity
// terms. The generator writes only valid selectors: an invalid one panics.
func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Nothing()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		panic(err)
	}
	return s
}

func checkAntiAffinity(onNode map[string][]*corev1.Pod) []string {
	var bad []string
	for node, ps := range onNode {
		for _, p := range ps {
			a := p.Spec.Affinity
			if a == nil || a.PodAntiAffinity == nil {
				continue
			}
			for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				if term.TopologyKey != corev1.LabelHostname {
					bad = append(bad, fmt.Sprintf("%s/%s: anti-affinity on %s not checked", p.Namespace, p.Name, term.TopologyKey))
					continue
				}
				ns := term.Namespaces
				if len(ns) == 0 {
					ns = []string{p.Namespace}
				}
				sel := selectorOf(term.LabelSelector)
				for _, q := range ps {
					if q == p || !contains(ns, q.Namespace) || !sel.Matches(labels.Set(q.Labels)) {
						continue
					}
					bad = append(bad, fmt.Sprintf("%s/%s: shares node %s with %s/%s against its anti-affinity", p.Namespace, p.Name, node, q.Namespace, q.Name))
				}
			}
		}
	}
	return bad
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func checkSpread(nodes []*corev1.Node, byName map[string]*corev1.Node, pods []*corev1.Pod) []string {
	var bad []string
	done := map[string]bool{}
	for _, p := range pods {
		for _, c := range p.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			sel := selectorOf(c.LabelSelector)
			key := fmt.Sprintf("%s|%s|%s|%d", p.Namespace, sel.String(), c.TopologyKey, c.MaxSkew)
			if done[key] {
				continue
			}
			done[key] = true
			// Eligible domains: nodes passing the pod's required node affinity.
			aff := nodeaffinity.GetRequiredNodeAffinity(p)
			counts := map[string]int{}
			for _, n := range nodes {
				if ok, _ := aff.Match(n); !ok {
					continue
				}
				if d, ok := n.Labels[c.TopologyKey]; ok {
					counts[d] += 0
				}
			}
			for _, q := range pods {
				if q.Namespace != p.Namespace || q.Spec.NodeName == "" || terminal(q) || q.Status.Phase == corev1.PodPending || !sel.Matches(labels.Set(q.Labels)) {
					continue
				}
				if d, ok := byName[q.Spec.NodeName].Labels[c.TopologyKey]; ok {
					if _, eligible := counts[d]; eligible {
						counts[d]++
					}
				}
			}
			lo, hi := -1, 0
			for _, v := range counts {
				if lo < 0 || v < lo {
					lo = v
				}
				hi = max(hi, v)
			}
			if hi-lo > int(c.MaxSkew) {
				bad = append(bad, fmt.Sprintf("%s: skew %d > %d over %s (%v)", key, hi-lo, c.MaxSkew, c.TopologyKey, counts))
			}
		}
	}
	return bad
}

// TestCheckerCatches breaks a valid placement in each way the checker looks
// for and expects it to say so: a checker that finds nothing wrong with
// anything proves nothing.
func TestCheckerCatches(t *testing.T) {
	nb, pb, err := Generate(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	type fixture struct {
		nodes []*corev1.Node
		pods  []*corev1.Pod
	}
	fresh := func() fixture { return fixture{decodeNodes(t, nb), decodePods(t, pb)} }
	if bad := checkPlacement(fresh().nodes, fresh().pods); len(bad) > 0 {
		t.Fatalf("valid placement reported: %v", bad[:min(5, len(bad))])
	}
	find := func(f fixture, ok func(*corev1.Pod) bool) *corev1.Pod {
		for _, p := range f.pods {
			if p.Spec.NodeName != "" && !terminal(p) && ok(p) {
				return p
			}
		}
		t.Fatal("no such pod")
		return nil
	}
	nodeOf := func(f fixture, name string) *corev1.Node {
		for _, n := range f.nodes {
			if n.Name == name {
				return n
			}
		}
		return nil
	}
	cases := []struct {
		name   string
		break_ func(f fixture)
		want   string
	}{
		{"cpu over allocatable", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool { return strings.HasPrefix(p.Name, "kube-proxy") })
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("64")
		}, "cpu requested"},
		{"pod count over allocatable", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool { return true })
			n := nodeOf(f, p.Spec.NodeName)
			n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("1")
		}, "pods requested"},
		{"untolerated control-plane taint", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool { return p.Namespace == "web" })
			for _, n := range f.nodes {
				if _, cp := n.Labels[labelControlPlane]; cp {
					p.Spec.NodeName = n.Name
					return
				}
			}
		}, "untolerated taint node-role.kubernetes.io/control-plane"},
		{"nodeSelector not matched", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool { return p.Spec.NodeSelector[labelNodePool] == poolMemory })
			p.Spec.NodeSelector[labelNodePool] = "elsewhere"
		}, "node affinity does not match"},
		{"anti-affinity pair on one node", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool {
				return p.Spec.Affinity != nil && p.Spec.Affinity.PodAntiAffinity != nil &&
					len(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 && p.Namespace != "monitoring"
			})
			for _, q := range f.pods {
				if q != p && q.Namespace == p.Namespace && q.Labels[labelApp] == p.Labels[labelApp] && q.Spec.NodeName != "" {
					q.Spec.NodeName = p.Spec.NodeName
					return
				}
			}
			t.Fatal("no sibling")
		}, "against its anti-affinity"},
		{"zone skew", func(f fixture) {
			p := find(f, func(p *corev1.Pod) bool { return len(p.Spec.TopologySpreadConstraints) > 0 })
			for _, q := range f.pods {
				if q.Namespace == p.Namespace && q.Labels[labelApp] == p.Labels[labelApp] && q.Spec.NodeName != "" {
					q.Spec.NodeName = p.Spec.NodeName // all in one zone
				}
			}
		}, "skew"},
		{"pending pod bound", func(f fixture) {
			for _, p := range f.pods {
				if p.Status.Phase == corev1.PodPending {
					p.Spec.NodeName = f.nodes[0].Name
					return
				}
			}
		}, "Pending but bound"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fresh()
			c.break_(f)
			bad := checkPlacement(f.nodes, f.pods)
			for _, b := range bad {
				if strings.Contains(b, c.want) {
					return
				}
			}
			t.Errorf("checker missed %q; said %v", c.want, bad)
		})
	}
}
