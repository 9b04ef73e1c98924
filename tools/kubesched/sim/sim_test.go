package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	zoneKey = v1.LabelTopologyZone
	hostKey = v1.LabelHostname
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func node(name, zone string, labels map[string]string, taints ...v1.Taint) *v1.Node {
	l := map[string]string{zoneKey: zone, hostKey: name}
	for k, v := range labels {
		l[k] = v
	}
	res := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("8Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Spec:       v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Capacity: res, Allocatable: res,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// pod is created at t0+i seconds; labels app=<app> when app is not empty.
func pod(name, app string, i int, cpu, mem string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "test",
			CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(i) * time.Second)),
		},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "c", Image: "registry.example/app:1",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem),
			}},
		}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	if app != "" {
		p.Labels = map[string]string{"app": app}
	}
	return p
}

var taint = v1.Taint{Key: "dedicated", Value: "special", Effect: v1.TaintEffectNoSchedule}

// testCluster: 7 nodes in 3 zones (a3 tainted and labelled dedicated=special,
// b2 labelled disktype=ssd), a DaemonSet-like pod bound to every node and a
// pinned 3.5-CPU pod on b1, then the pods to schedule.
func testCluster(mode string, seed uint64) *Input {
	in := &Input{Seed: seed, Mode: mode}
	in.Nodes = []*v1.Node{
		node("a1", "a", nil), node("a2", "a", nil),
		node("a3", "a", map[string]string{"dedicated": "special"}, taint),
		node("b1", "b", nil), node("b2", "b", map[string]string{"disktype": "ssd"}),
		node("c1", "c", nil), node("c2", "c", nil),
	}
	i := 0
	next := func() int { i++; return i }
	for _, n := range in.Nodes {
		ds := pod("ds-"+n.Name, "ds", next(), "100m", "64Mi")
		ds.Spec.NodeName = n.Name
		ds.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		ds.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds-uid", Controller: ptr.To(true)}}
		ds.Status.Phase = v1.PodRunning
		in.Pods = append(in.Pods, ds)
	}
	hog := pod("hog", "", next(), "3500m", "1Gi")
	hog.Spec.NodeName = "b1"
	hog.Status.Phase = v1.PodRunning
	in.Pods = append(in.Pods, hog)

	in.Pods = append(in.Pods, pod("big", "", next(), "64", "1Gi"))

	sel := pod("selector", "", next(), "500m", "512Mi")
	sel.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
	in.Pods = append(in.Pods, sel)

	tol := pod("tolerating", "", next(), "500m", "512Mi")
	tol.Spec.NodeSelector = map[string]string{"dedicated": "special"}
	tol.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "special", Effect: v1.TaintEffectNoSchedule}}
	in.Pods = append(in.Pods, tol)

	for r := range 3 {
		p := pod(fmt.Sprintf("web-%d", r), "web", next(), "250m", "256Mi")
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				TopologyKey:   hostKey,
			}},
		}}
		in.Pods = append(in.Pods, p)
	}
	for r := range 7 {
		p := pod(fmt.Sprintf("spread-%d", r), "spread", next(), "200m", "128Mi")
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
		}}
		in.Pods = append(in.Pods, p)
	}
	for r := range 6 {
		in.Pods = append(in.Pods, pod(fmt.Sprintf("filler-%d", r), "filler", next(), "1", "1Gi"))
	}
	// A pod with a PVC the input lacks: it is synthesized bound.
	vol := pod("with-pvc", "", next(), "100m", "64Mi")
	vol.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
	in.Pods = append(in.Pods, vol)
	// Created last, but first in the queue by priority.
	urgent := pod("urgent", "", next(), "100m", "64Mi")
	urgent.Spec.Priority = ptr.To[int32](1000)
	in.Pods = append(in.Pods, urgent)
	// Terminal pods are ignored.
	done := pod("done", "", next(), "100m", "64Mi")
	done.Status.Phase = v1.PodSucceeded
	in.Pods = append(in.Pods, done)
	return in
}

// roundTrip sends the input through JSON, as the program reads it.
func roundTrip(t *testing.T, in *Input) *Input {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Input
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func run(t *testing.T, in *Input) *Output {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := Run(ctx, roundTrip(t, in))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func encode(t *testing.T, out *Output) []byte {
	t.Helper()
	o := *out
	o.Seconds = 0
	data, err := json.Marshal(&o)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSchedule(t *testing.T) {
	in := testCluster(ModeSchedule, 1)
	out := run(t, in)
	t.Logf("%s", encode(t, out))

	byName := map[string]PodResult{}
	for _, r := range out.Pods {
		byName[r.Pod] = r
	}
	zoneOf := map[string]string{}
	for _, n := range in.Nodes {
		zoneOf[n.Name] = n.Labels[zoneKey]
	}

	if out.Scheduler == "" || out.Profile != "default-scheduler" || out.PercentageOfNodesToScore != 100 || out.Seed != 1 {
		t.Errorf("header: %+v", out)
	}
	// 8 pinned and 1 terminal pod are not listed.
	if got, want := len(out.Pods), len(in.Pods)-9; got != want {
		t.Errorf("listed %d pods, want %d", got, want)
	}
	if out.Placed+out.Unschedulable != len(out.Pods) {
		t.Errorf("placed %d + unschedulable %d != %d", out.Placed, out.Unschedulable, len(out.Pods))
	}
	if out.Pods[0].Pod != "test/urgent" {
		t.Errorf("first scheduled pod is %s, want test/urgent (highest priority)", out.Pods[0].Pod)
	}

	big := byName["test/big"]
	if big.Node != "" || big.Reasons["NodeResourcesFit"] == 0 {
		t.Errorf("big pod: %+v, want unschedulable with NodeResourcesFit", big)
	}
	total := 0
	for _, n := range big.Reasons {
		total += n
	}
	if total != len(in.Nodes) {
		t.Errorf("big pod reasons %v cover %d nodes, want %d", big.Reasons, total, len(in.Nodes))
	}
	if out.Unschedulable != 1 {
		t.Errorf("unschedulable = %d, want 1 (only the big pod)", out.Unschedulable)
	}

	if got := byName["test/selector"].Node; got != "b2" {
		t.Errorf("selector pod on %q, want b2", got)
	}

	if got := byName["test/tolerating"].Node; got != "a3" {
		t.Errorf("tolerating pod on %q, want a3", got)
	}
	for _, r := range out.Pods {
		if r.Node == "a3" && r.Pod != "test/tolerating" {
			t.Errorf("%s placed on the tainted node a3", r.Pod)
		}
		// b1 has 4 - 0.1 - 3.5 = 0.4 CPU left: no 1-CPU filler fits.
		if r.Node == "b1" && slices.Contains([]string{"test/filler-0", "test/filler-1", "test/filler-2", "test/filler-3", "test/filler-4", "test/filler-5"}, r.Pod) {
			t.Errorf("%s placed on b1, which the pinned hog fills", r.Pod)
		}
	}

	webNodes := map[string]bool{}
	for r := range 3 {
		n := byName[fmt.Sprintf("test/web-%d", r)].Node
		if n == "" {
			t.Errorf("web-%d unschedulable", r)
		}
		if webNodes[n] {
			t.Errorf("two web replicas on %s despite required anti-affinity", n)
		}
		webNodes[n] = true
	}

	perZone := map[string]int{"a": 0, "b": 0, "c": 0}
	for r := range 7 {
		n := byName[fmt.Sprintf("test/spread-%d", r)].Node
		if n == "" {
			t.Errorf("spread-%d unschedulable", r)
			continue
		}
		perZone[zoneOf[n]]++
	}
	lo, hi := 1<<30, 0
	for _, c := range perZone {
		lo, hi = min(lo, c), max(hi, c)
	}
	if hi-lo > 1 {
		t.Errorf("spread pods per zone %v: skew %d > maxSkew 1", perZone, hi-lo)
	}

	if got := byName["test/with-pvc"].Node; got == "" {
		t.Errorf("pod with a synthesized PVC is unschedulable: %+v", byName["test/with-pvc"])
	}
	if _, ok := byName["test/done"]; ok {
		t.Errorf("a Succeeded pod was scheduled")
	}
}

func TestDeterministic(t *testing.T) {
	a := encode(t, run(t, testCluster(ModeFilter, 7)))
	b := encode(t, run(t, testCluster(ModeFilter, 7)))
	if !bytes.Equal(a, b) {
		t.Fatalf("same seed, different output:\n%s\n%s", a, b)
	}
}

func TestFilterModeFeasible(t *testing.T) {
	in := testCluster(ModeFilter, 3)
	out := run(t, in)
	for _, r := range out.Pods {
		if r.Feasible == nil {
			t.Errorf("%s: no feasible list in filter mode", r.Pod)
			continue
		}
		f := *r.Feasible
		if !slices.IsSorted(f) {
			t.Errorf("%s: feasible %v not sorted", r.Pod, f)
		}
		if r.Node != "" && !slices.Contains(f, r.Node) {
			t.Errorf("%s: placed on %s, not in its feasible list %v", r.Pod, r.Node, f)
		}
		if r.Node == "" && len(f) != 0 {
			t.Errorf("%s: unschedulable with feasible nodes %v", r.Pod, f)
		}
		// Feasible and the keys of Rejected partition the nodes.
		if got := len(f) + len(r.Rejected); got != len(in.Nodes) {
			t.Errorf("%s: %d feasible + %d rejected nodes, want %d", r.Pod, len(f), len(r.Rejected), len(in.Nodes))
		}
		for _, n := range f {
			if _, ok := r.Rejected[n]; ok {
				t.Errorf("%s: %s both feasible and rejected", r.Pod, n)
			}
		}
		if r.Node == "" && r.Reasons == nil {
			t.Errorf("%s: unschedulable without reasons", r.Pod)
		}
		if r.Node != "" && r.Reasons != nil {
			t.Errorf("%s: placed but has reasons %v", r.Pod, r.Reasons)
		}
		switch r.Pod {
		case "test/selector":
			if !slices.Equal(f, []string{"b2"}) {
				t.Errorf("selector feasible %v, want [b2]", f)
			}
		case "test/big":
			if r.Rejected["a3"] != "TaintToleration" || r.Rejected["a1"] != "NodeResourcesFit" {
				t.Errorf("big: rejected %v, want a3 by TaintToleration, a1 by NodeResourcesFit", r.Rejected)
			}
		case "test/tolerating":
			if !slices.Equal(f, []string{"a3"}) {
				t.Errorf("tolerating feasible %v, want [a3]", f)
			}
		case "test/filler-0", "test/urgent":
			if slices.Contains(f, "a3") {
				t.Errorf("%s: tainted a3 feasible", r.Pod)
			}
		}
		if r.Pod == "test/filler-0" && slices.Contains(f, "b1") {
			t.Errorf("filler-0: b1 feasible although the pinned hog leaves 0.4 CPU")
		}
	}
	// Schedule mode places the same pods at the same nodes.
	in.Mode = ModeSchedule
	sched := run(t, in)
	for i, r := range sched.Pods {
		if r.Feasible != nil || r.Rejected != nil {
			t.Errorf("%s: feasible or rejected list in schedule mode", r.Pod)
		}
		if r.Node != out.Pods[i].Node || r.Pod != out.Pods[i].Pod {
			t.Errorf("schedule mode %s->%s, filter mode %s->%s", r.Pod, r.Node, out.Pods[i].Pod, out.Pods[i].Node)
		}
	}
}

// A claim first used by a pod bound in zone c gets a PV in zone c, so a
// pending pod sharing it is kept in zone c by VolumeZone.
func TestSynthesizedPVCZone(t *testing.T) {
	in := testCluster(ModeFilter, 1)
	claim := v1.Volume{Name: "shared", VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "shared"}}}
	owner := pod("owner", "", 100, "100m", "64Mi")
	owner.Spec.NodeName = "c1"
	owner.Spec.Volumes = []v1.Volume{claim}
	user := pod("user", "", 101, "100m", "64Mi")
	user.Spec.Volumes = []v1.Volume{claim}
	in.Pods = append([]*v1.Pod{owner}, append(in.Pods, user)...)
	out := run(t, in)
	for _, r := range out.Pods {
		if r.Pod != "test/user" {
			continue
		}
		if !slices.Equal(*r.Feasible, []string{"c1", "c2"}) {
			t.Errorf("user of a zone-c claim: feasible %v, want [c1 c2]", *r.Feasible)
		}
		return
	}
	t.Fatal("test/user not scheduled")
}

func TestBadMode(t *testing.T) {
	if _, err := Run(context.Background(), &Input{Mode: "nope"}); err == nil {
		t.Fatal("want an error for an unknown mode")
	}
}

// Run stops every goroutine it started (informers, the DRA tracker, the
// framework's metrics recorder, the cache's metrics loop) before returning,
// or shortly after for loops that only poll their stop channel.
func TestNoGoroutineLeft(t *testing.T) {
	run(t, testCluster(ModeSchedule, 1)) // process-wide one-time goroutines start here
	time.Sleep(100 * time.Millisecond)
	base := runtime.NumGoroutine()
	run(t, testCluster(ModeFilter, 2))
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			var buf bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
			t.Fatalf("%d goroutines after Run, %d before:\n%s", runtime.NumGoroutine(), base, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A PVC the input supplies unbound (no class, no PV) is not replaced by a
// synthesized one: VolumeBinding rejects its pod at PreFilter.
func TestUnboundInputPVC(t *testing.T) {
	in := testCluster(ModeSchedule, 1)
	p := pod("unbound", "", 200, "100m", "64Mi")
	p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "pending-claim"}}}}
	in.Pods = append(in.Pods, p)
	in.PersistentVolumeClaims = []*v1.PersistentVolumeClaim{{
		ObjectMeta: metav1.ObjectMeta{Name: "pending-claim", Namespace: "test"},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: ptr.To(""),
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}}
	out := run(t, in)
	last := out.Pods[len(out.Pods)-1]
	if last.Pod != "test/unbound" || last.Node != "" || last.Reasons["VolumeBinding"] != len(in.Nodes) {
		t.Fatalf("got %+v, want test/unbound rejected by VolumeBinding on all %d nodes", last, len(in.Nodes))
	}
}

// A pod with a scheduling gate stays in the queue: SchedulingGates
// (PreEnqueue) refuses it on every node.
func TestSchedulingGate(t *testing.T) {
	in := testCluster(ModeFilter, 1)
	p := pod("gated", "", 300, "100m", "64Mi")
	p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/wait"}}
	in.Pods = append(in.Pods, p)
	out := run(t, in)
	last := out.Pods[len(out.Pods)-1]
	if last.Pod != "test/gated" || last.Node != "" || last.Reasons["SchedulingGates"] != len(in.Nodes) || len(last.Rejected) != len(in.Nodes) {
		t.Fatalf("got %+v, want test/gated refused by SchedulingGates on all %d nodes", last, len(in.Nodes))
	}
}

// A claim given as placelab gives it (spec.volumeName, phase Bound, no
// bind-completed annotation) to a volume with zone-b node affinity is
// completed as the PV controller would: the pod may go to zone b only, and
// VolumeBinding's Filter names the other nodes.
func TestInputClaimCompleted(t *testing.T) {
	in := testCluster(ModeFilter, 1)
	p := pod("zonal", "", 400, "100m", "64Mi")
	p.Spec.Volumes = []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "zonal-data"}}}}
	in.Pods = append(in.Pods, p)
	in.PersistentVolumeClaims = []*v1.PersistentVolumeClaim{{
		ObjectMeta: metav1.ObjectMeta{Name: "zonal-data", Namespace: "test"},
		Spec:       v1.PersistentVolumeClaimSpec{VolumeName: "pv-zonal", AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}},
		Status:     v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound},
	}}
	in.PersistentVolumes = []*v1.PersistentVolume{{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-zonal"},
		Spec: v1.PersistentVolumeSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:    &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "test", Name: "zonal-data"},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: zoneKey, Operator: v1.NodeSelectorOpIn, Values: []string{"b"}}}}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}}
	out := run(t, in)
	last := out.Pods[len(out.Pods)-1]
	if last.Pod != "test/zonal" || (last.Node != "b1" && last.Node != "b2") || !slices.Equal(*last.Feasible, []string{"b2"}) && !slices.Equal(*last.Feasible, []string{"b1", "b2"}) {
		t.Fatalf("got %+v, want test/zonal in zone b", last)
	}
	if last.Rejected["a1"] != "VolumeBinding" || last.Rejected["c1"] != "VolumeBinding" {
		t.Errorf("rejected %v, want zones a and c by VolumeBinding", last.Rejected)
	}
}
