package kubejudge_test

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/internal/kubejudge"
)

// TestLoadGenerateLayout: nodes.json and pods.json, each a v1 List, as
// `placelab generate k8s --out DIR` writes them.
func TestLoadGenerateLayout(t *testing.T) {
	c := writeCluster(t, baseNodes(), basePods())
	if len(c.Nodes) != len(baseNodes()) || len(c.Pods) != len(basePods()) {
		t.Fatalf("loaded %d nodes, %d pods; want %d, %d", len(c.Nodes), len(c.Pods), len(baseNodes()), len(basePods()))
	}
	if len(c.Files) != 2 || filepath.Base(c.Files[0]) != "nodes.json" || filepath.Base(c.Files[1]) != "pods.json" {
		t.Errorf("Files = %v", c.Files)
	}
	var s1 *corev1.Node
	for _, n := range c.Nodes {
		if n.Name == "s1" {
			s1 = n
		}
	}
	if s1 == nil {
		t.Fatal("no node s1")
	}
	if q := s1.Status.Allocatable[corev1.ResourceCPU]; q.MilliValue() != 1500 {
		t.Errorf("s1 cpu = %s, want 1.5", q.String())
	}
}

// TestLoadMixedListsAndYAML: one List of Nodes, Pods, PVs, PVCs and
// Namespaces mixed, a multi-document YAML file with a typed NodeList whose
// items omit their kind and a lone Pod, and files Load must skip.
func TestLoadMixedListsAndYAML(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "all.json", list(t,
		node("m1", "a", "2", "4Gi", "10"),
		pod("x/p1", "m1", "100m", "", claim("data")),
		&corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv1"}},
		&corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}, ObjectMeta: metav1.ObjectMeta{Name: "pv1"}},
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}},
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "svc"}},
	))
	writeFile(t, dir, "more.yaml", []byte(`apiVersion: v1
kind: NodeList
items:
- metadata:
    name: y1
  status:
    allocatable: {cpu: "1.5", memory: 4Gi, pods: "10"}
---
apiVersion: v1
kind: Pod
metadata: {namespace: x, name: p2}
spec:
  nodeName: y1
  containers:
  - name: c
    resources: {requests: {cpu: 500m}}
status: {phase: Running}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
`))
	writeFile(t, dir, "plan.json", []byte(`[{"Pod": "x/p1"}]`)) // not a Kubernetes object
	writeFile(t, dir, "notes.txt", []byte(`not read`))
	c, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, n := range c.Nodes {
		got = append(got, "node "+n.Name)
	}
	for _, p := range c.Pods {
		got = append(got, "pod "+kubejudge.PodKey(p))
	}
	for _, pv := range c.PersistentVolumes {
		got = append(got, "pv "+pv.Name)
	}
	for _, pvc := range c.PersistentVolumeClaims {
		got = append(got, "pvc "+pvc.Namespace+"/"+pvc.Name)
	}
	for _, ns := range c.Namespaces {
		got = append(got, "ns "+ns.Name)
	}
	want := []string{"node m1", "node y1", "pod x/p1", "pod x/p2", "pv pv1", "pvc x/data", "ns x"}
	if !equal(got, want) {
		t.Errorf("loaded %q, want %q", got, want)
	}
	if len(c.Files) != 2 {
		t.Errorf("Files = %v, want all.json and more.yaml", c.Files)
	}
	// The YAML pod counts against the YAML node.
	if n, err := c.FitUpperBound("x/p2"); err != nil || n != 2+3 { // y1: (1.5 - 0.5) / 0.5, m1: (2 - 0.1) / 0.5
		t.Errorf("FitUpperBound(x/p2) = %d, %v; want 5", n, err)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"missing directory", nil, "no such file"},
		{"no nodes", map[string]string{"pods.json": `{"apiVersion": "v1", "kind": "List", "items": []}`}, "no Node objects"},
		{"syntax error", map[string]string{"nodes.json": `{"apiVersion": "v1", "kind": "List", "items": [`}, "nodes.json"},
		{"item does not decode", map[string]string{"nodes.json": `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": 3}}]}`}, "Node"},
		{"duplicate pod", map[string]string{
			"a.json": `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "x", "name": "p"}}]}`,
			"b.json": `{"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "x", "name": "p"}}`,
		}, "duplicate Pod x/p"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.files == nil {
				dir = filepath.Join(dir, "absent")
			}
			for name, body := range tc.files {
				writeFile(t, dir, name, []byte(body))
			}
			_, err := kubejudge.Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
