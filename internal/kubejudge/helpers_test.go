package kubejudge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"placelab/internal/kubejudge"
)

// Builders for tiny handcrafted clusters. Quantities are strings parsed by
// resource.MustParse, as kubectl prints them.

const (
	labelPool = "karpenter.sh/nodepool"
	labelApp  = "app"
)

type nodeOpt func(*corev1.Node)

// node is a Ready node with hostname and zone labels and allocatable cpu,
// memory, pods and 100Gi ephemeral-storage.
func node(name, zone, cpu, mem, pods string, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelHostname:     name,
			corev1.LabelTopologyZone: zone,
		}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:              resource.MustParse(cpu),
			corev1.ResourceMemory:           resource.MustParse(mem),
			corev1.ResourcePods:             resource.MustParse(pods),
			corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		}},
	}
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	for _, o := range opts {
		o(n)
	}
	return n
}

func nodeLabel(k, v string) nodeOpt { return func(n *corev1.Node) { n.Labels[k] = v } }

func taint(key string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: "true", Effect: effect})
	}
}

func alloc(r corev1.ResourceName, q string) nodeOpt {
	return func(n *corev1.Node) { n.Status.Allocatable[r] = resource.MustParse(q) }
}

func cordoned() nodeOpt { return func(n *corev1.Node) { n.Spec.Unschedulable = true } }

type podOpt func(*corev1.Pod)

// pod is "ns/name" with one container requesting cpu and memory (empty: no
// request), Running on nodeName, or Pending when nodeName is "".
func pod(key, nodeName, cpu, mem string, opts ...podOpt) *corev1.Pod {
	ns, name, _ := strings.Cut(key, "/")
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			NodeName:   nodeName,
			Containers: []corev1.Container{{Name: "c", Image: "img", Resources: corev1.ResourceRequirements{Requests: req}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if nodeName == "" {
		p.Status.Phase = corev1.PodPending
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func request(r corev1.ResourceName, q string) podOpt {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests[r] = resource.MustParse(q) }
}

func podLabel(k, v string) podOpt { return func(p *corev1.Pod) { p.Labels[k] = v } }

func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }

func nodeSelector(k, v string) podOpt {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[k] = v
	}
}

func tolerate(key string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

func owner(kind string) podOpt {
	return func(p *corev1.Pod) {
		p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: "owner", UID: "u"})
	}
}

func mirror() podOpt {
	return func(p *corev1.Pod) {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "abc"}
	}
}

func claim(name string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name},
		}})
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

// antiAffinity adds a required hostname anti-affinity term selecting
// app=value; edit lets a test change the term.
func antiAffinity(app string, edit ...func(*corev1.PodAffinityTerm)) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		t := corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: app}},
			TopologyKey:   corev1.LabelHostname,
		}
		for _, e := range edit {
			e(&t)
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	}
}

// requiredIn adds required node affinity: label key In values.
func requiredIn(key string, values ...string) podOpt {
	return func(p *corev1.Pod) {
		affinity(p).NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: key, Operator: corev1.NodeSelectorOpIn, Values: values,
			}}}},
		}}
	}
}

// list renders objects as a `kubectl get -o json` v1 List.
func list(t *testing.T, objs ...runtime.Object) []byte {
	t.Helper()
	l := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		l.Items = append(l.Items, runtime.RawExtension{Raw: b})
	}
	b, err := json.MarshalIndent(l, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeCluster writes nodes.json and pods.json, as `placelab generate k8s`
// does, and loads the directory back.
func writeCluster(t *testing.T, nodes []*corev1.Node, pods []*corev1.Pod) *kubejudge.Cluster {
	t.Helper()
	dir := t.TempDir()
	var ns, ps []runtime.Object
	for _, n := range nodes {
		ns = append(ns, n)
	}
	for _, p := range pods {
		ps = append(ps, p)
	}
	writeFile(t, dir, "nodes.json", list(t, ns...))
	writeFile(t, dir, "pods.json", list(t, ps...))
	c, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// triples renders violations as "kind pod node" for comparison.
func triples(vs []kubejudge.Violation) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Kind+" "+v.Pod+" "+v.Node)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func describe(vs []kubejudge.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("\n\t" + v.String())
	}
	return b.String()
}
