package k8sgen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const alibabaDir = "../../../shared/data/alibaba-gpu-v2023"

func alibabaFiles(t *testing.T) (nodes, pods string) {
	nodes = filepath.Join(alibabaDir, "openb_node_list_all_node.csv")
	pods = filepath.Join(alibabaDir, "openb_pod_list_default.csv")
	for _, f := range []string{nodes, pods} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("trace not here: %v", err)
		}
	}
	return nodes, pods
}

// TestFromAlibabaTrace converts the real trace and checks the placement.
func TestFromAlibabaTrace(t *testing.T) {
	nf, pf := alibabaFiles(t)
	nb, pb, err := FromAlibaba(nf, pf, PhaseSnapshot, 1)
	if err != nil {
		t.Fatal(err)
	}
	nodes, pods := decodeNodes(t, nb), decodePods(t, pb)
	if len(nodes) != 1523 {
		t.Errorf("nodes = %d, want 1523", len(nodes))
	}
	gpuNodes := 0
	for _, n := range nodes {
		g, ok := n.Status.Allocatable[ResourceGPU]
		if !ok {
			continue
		}
		gpuNodes++
		if n.Labels[labelGPUProduct] == "" || len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != string(ResourceGPU) {
			t.Errorf("GPU node %s: labels %v taints %v", n.Name, n.Labels, n.Spec.Taints)
		}
		if m := n.Status.Allocatable[ResourceGPUMilli]; m.Value() != 1000*g.Value() {
			t.Errorf("GPU node %s: gpu-milli %s for %s GPUs", n.Name, m.String(), g.String())
		}
	}
	if gpuNodes != 1213 {
		t.Errorf("GPU nodes = %d, want 1213", gpuNodes)
	}
	bound, simulated, inTrace := 0, 0, 0
	for _, p := range pods {
		switch {
		case p.Spec.NodeName != "":
			bound++
		case p.Status.Conditions[0].Message == traceMessage:
			inTrace++
		default:
			simulated++
		}
	}
	if len(pods) != 6090 || inTrace != 897 || bound < 5000 {
		t.Errorf("pods %d: bound %d, Pending in the trace %d, Pending in the simulation %d", len(pods), bound, inTrace, simulated)
	}
	t.Logf("%d nodes (%d GPU), %d pods: %d bound, %d Pending (%d in the trace, %d found no room in the simulation)",
		len(nodes), gpuNodes, len(pods), bound, inTrace+simulated, inTrace, simulated)
	if bad := checkPlacement(nodes, pods); len(bad) > 0 {
		t.Errorf("%d placement violations, e.g. %v", len(bad), bad[:min(10, len(bad))])
	}

	// A time cut: the pods alive at t = 12,000,000 s.
	_, pb2, err := FromAlibaba(nf, pf, 12e6, 1)
	if err != nil {
		t.Fatal(err)
	}
	alive := decodePods(t, pb2)
	if len(alive) == 0 || len(alive) > 100 {
		t.Errorf("%d pods alive at 12e6 s", len(alive))
	}
	if bad := checkPlacement(nodes, alive); len(bad) > 0 {
		t.Errorf("time cut: %v", bad)
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	smallNodes = `sn,cpu_milli,memory_mib,gpu,model
cpu-0,8000,32768,0,nan
gpu-0,32000,131072,2,T4
`
	podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	// Scheduled in this order (scheduled_time), on one 2-GPU node:
	//   share-a 600 → GPU 0 (best fit, lowest number)
	//   share-b 600 → GPU 1 (GPU 0 has 400 left)
	//   share-c 500 → no device has 500, though 800 are free in all
	//   whole-d 1000 → 800 gpu-milli free: Insufficient
	//   share-e 300 → GPU 0 (400 left on both: lowest number)
	//   spec-f wants an A100: no node
	smallPods = podHeader + `share-a,2000,4096,1,600,,LS,Running,0,100,1
share-b,2000,4096,1,600,,BE,Running,0,100,2
share-c,2000,4096,1,500,,LS,Running,0,100,3
whole-d,2000,4096,1,1000,,LS,Running,0,100,4
share-e,2000,4096,1,300,,Burstable,Running,0,100,5
spec-f,2000,4096,1,1000,A100,LS,Running,0,100,6
cpu-g,4000,8192,0,0,,Guaranteed,Running,0,100,7
waiting-h,1000,1024,0,0,,LS,Pending,0,100,
failed-i,1000,1024,0,0,,BE,Failed,0,100,8
late-j,1000,1024,0,0,,BE,Running,50,100,50
`
)

func TestFromAlibabaSmall(t *testing.T) {
	dir := t.TempDir()
	nf, pf := writeFile(t, dir, "nodes.csv", smallNodes), writeFile(t, dir, "pods.csv", smallPods)
	nb, pb, err := FromAlibaba(nf, pf, PhaseSnapshot, 1)
	if err != nil {
		t.Fatal(err)
	}
	nodes, pods := decodeNodes(t, nb), decodePods(t, pb)
	if bad := checkPlacement(nodes, pods); len(bad) > 0 {
		t.Fatalf("violations: %v", bad)
	}
	got := map[string]*corev1.Pod{}
	for _, p := range pods {
		got[p.Name] = p
	}
	type want struct {
		node, gpuIndex, message string
		priority                int32
		class                   corev1.PodQOSClass
	}
	cases := map[string]want{
		"share-a":   {node: "gpu-0", gpuIndex: "0", priority: 1000000, class: corev1.PodQOSBurstable},
		"share-b":   {node: "gpu-0", gpuIndex: "1", priority: -100, class: corev1.PodQOSBurstable},
		"share-c":   {message: reasonGPUDevices},
		"whole-d":   {message: "Insufficient alibabacloud.com/gpu-milli"},
		"share-e":   {node: "gpu-0", gpuIndex: "0", priority: 0, class: corev1.PodQOSBurstable},
		"spec-f":    {message: "2 node(s) didn't match Pod's node affinity/selector"},
		"cpu-g":     {node: "cpu-0", priority: 0, class: corev1.PodQOSGuaranteed},
		"waiting-h": {message: traceMessage},
		"late-j":    {node: "cpu-0", priority: -100},
	}
	if len(pods) != len(cases) {
		t.Errorf("%d pods, want %d (failed-i left out)", len(pods), len(cases))
	}
	for name, w := range cases {
		p := got[name]
		if p == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if p.Spec.NodeName != w.node || p.Annotations[annotationGPUIndex] != w.gpuIndex {
			t.Errorf("%s on %q GPU %q, want %q GPU %q", name, p.Spec.NodeName, p.Annotations[annotationGPUIndex], w.node, w.gpuIndex)
		}
		if w.message != "" && (p.Status.Phase != corev1.PodPending || !strings.Contains(p.Status.Conditions[0].Message, w.message)) {
			t.Errorf("%s: %s %v, want Pending with %q", name, p.Status.Phase, p.Status.Conditions, w.message)
		}
		if w.node != "" && *p.Spec.Priority != w.priority {
			t.Errorf("%s: priority %d, want %d", name, *p.Spec.Priority, w.priority)
		}
		if w.class != "" && p.Status.QOSClass != w.class {
			t.Errorf("%s: qosClass %s, want %s", name, p.Status.QOSClass, w.class)
		}
	}

	// At t = 60 the trace had every pod but failed-i... which was alive too
	// (created 0, deleted 100): a time cut ignores the phase.
	_, pb2, err := FromAlibaba(nf, pf, 60, 1)
	if err != nil {
		t.Fatal(err)
	}
	if alive := decodePods(t, pb2); len(alive) != 10 {
		t.Errorf("%d pods alive at 60, want 10", len(alive))
	}
	_, pb3, _ := FromAlibaba(nf, pf, 10, 1)
	if alive := decodePods(t, pb3); len(alive) != 9 { // late-j is created at 50
		t.Errorf("%d pods alive at 10, want 9", len(alive))
	}
	_, pb4, _ := FromAlibaba(nf, pf, PhaseSnapshot, 1)
	if !bytes.Equal(pb, pb4) {
		t.Error("same seed, different bytes")
	}
}

func TestFromAlibabaErrors(t *testing.T) {
	okPod := "p,1000,1024,0,0,,LS,Running,0,10,0\n"
	cases := []struct {
		name        string
		nodes, pods string
		row         int
		field       string
		sentinel    error
	}{
		{"missing column", "sn,cpu_milli,memory_mib,gpu\nn,1000,1024,0\n", podHeader + okPod, 0, "model", ErrMalformed},
		{"cpu not a number", "sn,cpu_milli,memory_mib,gpu,model\nn,lots,1024,0,\n", podHeader + okPod, 2, "cpu_milli", ErrMalformed},
		{"zero memory node", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,0,0,\n", podHeader + okPod, 2, "memory_mib", ErrMalformed},
		{"duplicate node", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,0,\nn,1000,1024,0,\n", podHeader + okPod, 3, "sn", ErrDuplicate},
		{"unknown qos", smallNodes, podHeader + okPod + "q,1000,1024,0,0,,XL,Running,0,10,0\n", 3, "qos", ErrMalformed},
		{"unknown phase", smallNodes, podHeader + "q,1000,1024,0,0,,LS,Lost,0,10,0\n", 2, "pod_phase", ErrMalformed},
		{"deleted before created", smallNodes, podHeader + "q,1000,1024,0,0,,LS,Running,10,5,10\n", 2, "deletion_time", ErrMalformed},
		{"gpu share over one", smallNodes, podHeader + "q,1000,1024,1,1500,,LS,Running,0,10,0\n", 2, "gpu_milli", ErrMalformed},
		{"fractional gpus", smallNodes, podHeader + "q,1000,1024,1.5,0,,LS,Running,0,10,0\n", 2, "num_gpu", ErrMalformed},
		{"duplicate pod", smallNodes, podHeader + okPod + okPod, 3, "name", ErrDuplicate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			_, _, err := FromAlibaba(writeFile(t, dir, "n.csv", c.nodes), writeFile(t, dir, "p.csv", c.pods), PhaseSnapshot, 1)
			var re *RowError
			if !errors.As(err, &re) || re.Row != int64(c.row) || re.Field != c.field || !errors.Is(err, c.sentinel) {
				t.Fatalf("err = %v, want a RowError at row %d field %s wrapping %v", err, c.row, c.field, c.sentinel)
			}
		})
	}
	dir := t.TempDir()
	if _, _, err := FromAlibaba(writeFile(t, dir, "n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"), writeFile(t, dir, "p.csv", podHeader), -1, 1); !errors.Is(err, ErrNoNodes) {
		t.Errorf("empty node list: %v", err)
	}
	if _, _, err := FromAlibaba(filepath.Join(dir, "absent.csv"), "x", -1, 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}
