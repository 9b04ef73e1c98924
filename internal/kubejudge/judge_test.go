package kubejudge_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"placelab/internal/kubejudge"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

// baseNodes and basePods are a small cluster with one of everything Judge
// looks at. Snapshot usage (cpu / memory / pods):
//
//	n1 (a)  1.9 / 3.625Gi / 5 of 4 / 8Gi / 10   web-a, pg-0 + DaemonSet + 2 static
//	n2 (a)  2.6 / 3.125Gi / 3                   web-b, big + DaemonSet
//	n3 (b)  0.45 / 256Mi / 3                    other/web-x, zonal/z, scratch/s
//	m1 (a)  1.5 / 4.5Gi / 3 of 2 / 32Gi         redis (pool=memory), web-c + web-d
//	g1 g2   1 / 2Gi / 1, nvidia.com/gpu 1 of 1  GPU pool, tainted
//	g3      empty GPU node
//	s1 (a)  0.5 / 512Mi / 1 of 1.5 / 2Gi / 2, ephemeral-storage 512Mi of 1Gi
//	c1 cordoned, ne1 NoExecute taint, pref1 PreferNoSchedule taint: empty
func baseNodes() []*corev1.Node {
	gpuNode := func(name, zone string) *corev1.Node {
		return node(name, zone, "4", "8Gi", "10", nodeLabel(labelPool, "gpu"), alloc(gpu, "1"), taint(string(gpu), corev1.TaintEffectNoSchedule))
	}
	general := nodeLabel(labelPool, "general")
	return []*corev1.Node{
		node("n1", "a", "4", "8Gi", "10", general),
		node("n2", "a", "4", "8Gi", "10", general),
		node("n3", "b", "4", "8Gi", "10", general),
		node("m1", "a", "2", "32Gi", "10", nodeLabel(labelPool, "memory")),
		gpuNode("g1", "a"),
		gpuNode("g2", "b"),
		gpuNode("g3", "a"),
		node("c1", "a", "4", "8Gi", "10", general, cordoned()),
		node("ne1", "a", "4", "8Gi", "10", general, taint("maintenance", corev1.TaintEffectNoExecute)),
		node("pref1", "a", "4", "8Gi", "10", general, taint("spot", corev1.TaintEffectPreferNoSchedule)),
		node("s1", "a", "1.5", "2Gi", "2", general, alloc(corev1.ResourceEphemeralStorage, "1Gi")),
	}
}

func basePods() []*corev1.Pod {
	web := []podOpt{podLabel(labelApp, "web"), antiAffinity("web")}
	return []*corev1.Pod{
		pod("web/web-a", "n1", "500m", "1Gi", web...),
		pod("web/web-b", "n2", "500m", "1Gi", web...),
		pod("web/web-c", "m1", "250m", "256Mi", web...), // web-c and web-d already
		pod("web/web-d", "m1", "250m", "256Mi", web...), // break their anti-affinity
		pod("other/web-x", "n3", "250m", "256Mi", podLabel(labelApp, "web")),
		pod("kube-system/agent-n1", "n1", "100m", "128Mi", owner("DaemonSet")),
		pod("kube-system/agent-n2", "n2", "100m", "128Mi", owner("DaemonSet")),
		pod("kube-system/etcd-n1", "n1", "250m", "512Mi", mirror(), owner("Node")),
		pod("kube-system/proxy-n1", "n1", "50m", "", owner("Node")),
		pod("db/pg-0", "n1", "1", "2Gi", owner("StatefulSet"), claim("data-pg-0")),
		pod("cache/redis", "m1", "1", "4Gi", nodeSelector(labelPool, "memory")),
		pod("zonal/z", "n3", "100m", "", requiredIn(corev1.LabelTopologyZone, "b")),
		pod("batch/big", "n2", "2", "2Gi"),
		pod("ml/train", "g1", "1", "2Gi", request(gpu, "1"), tolerate(string(gpu)), nodeSelector(labelPool, "gpu")),
		pod("ml/train2", "g2", "1", "2Gi", request(gpu, "1"), tolerate(string(gpu))),
		pod("small/x", "s1", "500m", "512Mi", request(corev1.ResourceEphemeralStorage, "512Mi")),
		pod("scratch/s", "n3", "100m", "", request(corev1.ResourceEphemeralStorage, "1Gi")),
		pod("jobs/done", "s1", "4", "16Gi", owner("Job"), phase(corev1.PodSucceeded)), // terminal: not counted
		pod("pending/p", "", "1", "1Gi"),
	}
}

func mv(pod, from, to string) kubejudge.Move { return kubejudge.Move{Pod: pod, From: from, To: to} }

func TestJudge(t *testing.T) {
	c := writeCluster(t, baseNodes(), basePods())
	cases := []struct {
		name string
		plan kubejudge.Plan
		want []string // "kind pod node", in Judge's order
	}{
		{"empty plan: pre-existing anti-affinity pair on m1 is not the plan's", kubejudge.Plan{}, nil},
		{"clean drain of n1", kubejudge.Plan{
			Removed: []string{"n1"},
			Moves:   []kubejudge.Move{mv("web/web-a", "n1", "n3"), mv("db/pg-0", "n1", "n2")},
		}, nil},
		{"clean: tolerated GPU taint", kubejudge.Plan{Moves: []kubejudge.Move{mv("ml/train", "g1", "g3")}}, nil},
		{"clean: PreferNoSchedule taint is not a rule", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "pref1")}}, nil},
		{"clean: moves apply in order", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "n3"), mv("web/web-a", "n3", "n2"), mv("web/web-a", "n2", "n1")}}, []string{}},
		{"clean: a move to where the pod is is a no-op", kubejudge.Plan{Moves: []kubejudge.Move{mv("kube-system/agent-n1", "n1", "n1")}}, nil},
		{"clean: removing an empty node", kubejudge.Plan{Removed: []string{"c1", "g3"}}, nil},
		{"pinned_moved: DaemonSet, mirror and Node-owned pods", kubejudge.Plan{Moves: []kubejudge.Move{
			mv("kube-system/agent-n1", "n1", "n3"), mv("kube-system/etcd-n1", "n1", "n3"), mv("kube-system/proxy-n1", "n1", "n3"),
		}}, []string{
			"pinned_moved kube-system/agent-n1 n3", "pinned_moved kube-system/etcd-n1 n3", "pinned_moved kube-system/proxy-n1 n3",
		}},
		{"unknown: pod, From, To, not running, removed node", kubejudge.Plan{
			Removed: []string{"ghost2"},
			Moves: []kubejudge.Move{
				mv("web/nope", "n1", "n2"),
				mv("web/web-a", "n2", "n3"), // web-a is on n1
				mv("web/web-b", "n2", "ghost"),
				mv("pending/p", "", "n1"),
				mv("jobs/done", "s1", "n1"),
			},
		}, []string{
			"unknown  ghost2", "unknown jobs/done n1", "unknown pending/p n1", "unknown web/nope n2", "unknown web/web-a n3", "unknown web/web-b ghost",
		}},
		{"clean: a Pending pod bound where it fits", kubejudge.Plan{Binds: []kubejudge.Bind{{Pod: "pending/p", To: "n3"}}}, nil},
		{"binds: an untolerated taint, a cordoned node, over allocatable, not Pending, no node", kubejudge.Plan{Binds: []kubejudge.Bind{
			{Pod: "pending/p", To: "g3"}, {Pod: "web/web-a", To: "n3"}, {Pod: "jobs/done", To: "n3"}, {Pod: "web/nope", To: "n3"},
		}}, []string{"taint pending/p g3", "unknown jobs/done n3", "unknown web/nope n3", "unknown web/web-a n3"}},
		{"binds: cordoned, and over allocatable", kubejudge.Plan{Binds: []kubejudge.Bind{{Pod: "pending/p", To: "c1"}}}, []string{"unschedulable_target pending/p c1"}},
		{"binds: a bound pod overfills its node", kubejudge.Plan{Binds: []kubejudge.Bind{{Pod: "pending/p", To: "m1"}}}, []string{"over_allocatable  m1"}},
		{"binds: left on a removed node", kubejudge.Plan{Removed: []string{"n3"}, Binds: []kubejudge.Bind{{Pod: "pending/p", To: "n3"}},
			Moves: []kubejudge.Move{mv("other/web-x", "n3", "n2"), mv("zonal/z", "n3", "g2"), mv("scratch/s", "n3", "n2")}}, []string{
			"removed_node_pods pending/p n3", "taint zonal/z g2"}},
		{"affinity: nodeSelector", kubejudge.Plan{Moves: []kubejudge.Move{mv("cache/redis", "m1", "n1")}}, []string{"affinity cache/redis n1"}},
		{"affinity: required node affinity", kubejudge.Plan{Moves: []kubejudge.Move{mv("zonal/z", "n3", "n2")}}, []string{"affinity zonal/z n2"}},
		{"taint: NoSchedule", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "g1")}}, []string{"taint web/web-a g1"}},
		{"taint: NoExecute", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "ne1")}}, []string{"taint web/web-a ne1"}},
		{"volume_zone: claim leaves zone a", kubejudge.Plan{Moves: []kubejudge.Move{mv("db/pg-0", "n1", "n3")}}, []string{"volume_zone db/pg-0 n3"}},
		{"volume_zone: zone of the snapshot node, not of an earlier hop", kubejudge.Plan{Moves: []kubejudge.Move{
			mv("db/pg-0", "n1", "n3"), mv("db/pg-0", "n3", "n2"),
		}}, []string{"volume_zone db/pg-0 n3"}},
		{"unschedulable_target", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "c1")}}, []string{"unschedulable_target web/web-a c1"}},
		{"over_allocatable: cpu and memory", kubejudge.Plan{Moves: []kubejudge.Move{mv("batch/big", "n2", "s1")}}, []string{
			"over_allocatable  s1", "over_allocatable  s1",
		}},
		{"over_allocatable: pod count", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "s1"), mv("other/web-x", "n3", "s1")}}, []string{
			"over_allocatable  s1",
		}},
		{"over_allocatable: extended resource", kubejudge.Plan{Moves: []kubejudge.Move{mv("ml/train", "g1", "g2")}}, []string{"over_allocatable  g2"}},
		{"over_allocatable: extended resource the node lacks", kubejudge.Plan{Moves: []kubejudge.Move{mv("ml/train2", "g2", "n3")}}, []string{"over_allocatable  n3"}},
		{"over_allocatable: ephemeral-storage", kubejudge.Plan{Moves: []kubejudge.Move{mv("scratch/s", "n3", "s1")}}, []string{"over_allocatable  s1"}},
		{"over_allocatable: swap keeps the sum", kubejudge.Plan{Moves: []kubejudge.Move{mv("batch/big", "n2", "n3"), mv("other/web-x", "n3", "n2")}}, nil},
		{"removed_node_pods: drain without moves", kubejudge.Plan{Removed: []string{"n1"}}, []string{
			"removed_node_pods db/pg-0 n1", "removed_node_pods web/web-a n1",
		}},
		{"removed_node_pods: moved onto a removed node", kubejudge.Plan{Removed: []string{"g3"}, Moves: []kubejudge.Move{mv("ml/train", "g1", "g3")}}, []string{
			"removed_node_pods ml/train g3",
		}},
		{"anti_affinity: both pods of the pair", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "n2")}}, []string{
			"anti_affinity web/web-a n2", "anti_affinity web/web-b n2",
		}},
		{"anti_affinity: moving next to a pair already broken", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-b", "n2", "m1")}}, []string{
			"anti_affinity web/web-b m1", "anti_affinity web/web-b m1", "anti_affinity web/web-c m1", "anti_affinity web/web-d m1",
		}},
		{"several kinds at once, sorted", kubejudge.Plan{Removed: []string{"n2"}, Moves: []kubejudge.Move{
			mv("web/web-b", "n2", "c1"), mv("batch/big", "n2", "g1"), mv("kube-system/agent-n2", "n2", "n1"),
		}}, []string{
			"pinned_moved kube-system/agent-n2 n1", "taint batch/big g1", "unschedulable_target web/web-b c1",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Judge(tc.plan)
			if want := tc.want; !equal(triples(got), append([]string{}, want...)) {
				t.Errorf("Judge = %q, want %q%s", triples(got), want, describe(got))
			}
			for _, v := range got {
				if v.Detail == "" {
					t.Errorf("violation without detail: %v", v)
				}
			}
		})
	}
	// Judge must not modify the snapshot.
	for _, p := range c.Pods {
		if p.Namespace == "web" && p.Name == "web-a" && p.Spec.NodeName != "n1" {
			t.Errorf("Judge moved web-a in the snapshot to %q", p.Spec.NodeName)
		}
	}
}

// TestJudgeOverAllocatableBefore overcommits s1's cpu in the snapshot: that
// is reported as over_allocatable_before unless the plan raises s1's cpu.
func TestJudgeOverAllocatableBefore(t *testing.T) {
	nodes := baseNodes()
	for _, n := range nodes {
		if n.Name == "s1" {
			alloc(corev1.ResourceCPU, "400m")(n) // small/x requests 500m
		}
	}
	c := writeCluster(t, nodes, basePods())
	cases := []struct {
		name string
		plan kubejudge.Plan
		want []string
	}{
		{"empty plan", kubejudge.Plan{}, []string{"over_allocatable_before  s1"}},
		{"plan elsewhere", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "n3")}}, []string{"over_allocatable_before  s1"}},
		{"plan raises cpu on s1", kubejudge.Plan{Moves: []kubejudge.Move{mv("web/web-a", "n1", "s1")}}, []string{"over_allocatable  s1"}},
		{"plan moves a pod in without cpu request", kubejudge.Plan{Moves: []kubejudge.Move{mv("kube-system/agent-n1", "n1", "n1"), mv("zonal/z", "n3", "n3")}}, []string{"over_allocatable_before  s1"}},
		{"plan relieves s1", kubejudge.Plan{Moves: []kubejudge.Move{mv("small/x", "s1", "n2")}}, nil},
		{"s1 removed", kubejudge.Plan{Removed: []string{"s1"}, Moves: []kubejudge.Move{mv("small/x", "s1", "n2")}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Judge(tc.plan)
			if !equal(triples(got), append([]string{}, tc.want...)) {
				t.Errorf("Judge = %q, want %q%s", triples(got), tc.want, describe(got))
			}
		})
	}
}

// TestJudgeAntiAffinityNamespaces: a term applies to the pod's own
// namespace unless it lists namespaces or has a namespaceSelector.
func TestJudgeAntiAffinityNamespaces(t *testing.T) {
	namespaces := func(ns ...string) func(*corev1.PodAffinityTerm) {
		return func(t *corev1.PodAffinityTerm) { t.Namespaces = ns }
	}
	nsSelector := func(ls map[string]string) func(*corev1.PodAffinityTerm) {
		return func(t *corev1.PodAffinityTerm) { t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: ls} }
	}
	noSelector := func(t *corev1.PodAffinityTerm) { t.LabelSelector = nil }
	cases := []struct {
		name string
		term []func(*corev1.PodAffinityTerm)
		want []string
	}{
		{"own namespace only", nil, nil},
		{"namespaces listed", []func(*corev1.PodAffinityTerm){namespaces("web")}, []string{"anti_affinity guard/g h2"}},
		{"namespaces listed, other", []func(*corev1.PodAffinityTerm){namespaces("elsewhere")}, nil},
		{"empty namespaceSelector: all", []func(*corev1.PodAffinityTerm){nsSelector(nil)}, []string{"anti_affinity guard/g h2"}},
		{"namespaceSelector on Namespace labels", []func(*corev1.PodAffinityTerm){nsSelector(map[string]string{"team": "x"})}, []string{"anti_affinity guard/g h2"}},
		{"namespaceSelector on metadata.name", []func(*corev1.PodAffinityTerm){nsSelector(map[string]string{corev1.LabelMetadataName: "web"})}, []string{"anti_affinity guard/g h2"}},
		{"namespaceSelector not matching", []func(*corev1.PodAffinityTerm){nsSelector(map[string]string{"team": "y"})}, nil},
		{"nil labelSelector selects nothing", []func(*corev1.PodAffinityTerm){nsSelector(nil), noSelector}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "cluster.json", list(t,
				node("h1", "a", "4", "8Gi", "10"), node("h2", "a", "4", "8Gi", "10"),
				pod("web/a", "h1", "100m", "", podLabel(labelApp, "web")),
				pod("guard/g", "h2", "100m", "", antiAffinity("web", tc.term...)),
				&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
					ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"team": "x"}}},
			))
			c, err := kubejudge.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Judge(kubejudge.Plan{Moves: []kubejudge.Move{mv("web/a", "h1", "h2")}})
			if !equal(triples(got), append([]string{}, tc.want...)) {
				t.Errorf("Judge = %q, want %q%s", triples(got), tc.want, describe(got))
			}
		})
	}
}

// TestJudgePersistentVolumeAffinity: a bound PV's node affinity, when the
// files have one, decides volume_zone instead of the zone labels.
func TestJudgePersistentVolumeAffinity(t *testing.T) {
	pv := func(name string, claimRef *corev1.ObjectReference, key string, values ...string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PersistentVolumeSpec{
				ClaimRef: claimRef,
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}},
				}}}},
			},
		}
	}
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "data-local"},
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: "local-pv"},
	}
	objs := []runtime.Object{
		node("p1", "a", "4", "8Gi", "10"), node("p2", "a", "4", "8Gi", "10"), node("p3", "b", "4", "8Gi", "10"),
		pod("app/local", "p1", "100m", "", claim("data-local")),
		pod("app/zonal", "p1", "100m", "", claim("data-zonal")),
		pod("app/nopv", "p1", "100m", "", claim("data-nopv")),
		pvc, // bound by spec.volumeName
		pv("local-pv", nil, corev1.LabelHostname, "p1"),
		pv("zonal-pv", &corev1.ObjectReference{Namespace: "app", Name: "data-zonal"}, corev1.LabelTopologyZone, "a", "b"), // bound by claimRef
	}
	dir := t.TempDir()
	writeFile(t, dir, "everything.json", list(t, objs...))
	c, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		move kubejudge.Move
		want []string
	}{
		{mv("app/local", "p1", "p2"), []string{"volume_zone app/local p2"}}, // same zone, but a local PV
		{mv("app/zonal", "p1", "p3"), nil},                                  // PV spans both zones
		{mv("app/nopv", "p1", "p2"), nil},                                   // no PV: same zone label
		{mv("app/nopv", "p1", "p3"), []string{"volume_zone app/nopv p3"}},   // no PV: zone a -> b
	}
	for _, tc := range cases {
		got := c.Judge(kubejudge.Plan{Moves: []kubejudge.Move{tc.move}})
		if !equal(triples(got), append([]string{}, tc.want...)) {
			t.Errorf("%v: Judge = %q, want %q%s", tc.move, triples(got), tc.want, describe(got))
		}
	}
}
