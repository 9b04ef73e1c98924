package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestGeneratedCluster schedules a cluster written by
//
//	cd /work/main && go run ./cli generate k8s --nodes 60 --pods 400 --seed 3 --out /tmp/ks-c3
//
// when KUBESCHED_CLUSTER names that directory (nodes.json and pods.json,
// kubectl List objects). DaemonSet and static (mirror) pods keep their node;
// every other pod is unbound first and scheduled.
func TestGeneratedCluster(t *testing.T) {
	dir := os.Getenv("KUBESCHED_CLUSTER")
	if dir == "" {
		t.Skip("KUBESCHED_CLUSTER not set")
	}
	var nodes struct{ Items []*v1.Node }
	var pods struct{ Items []*v1.Pod }
	for name, into := range map[string]any{"nodes.json": &nodes, "pods.json": &pods} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	pinned := 0
	for _, p := range pods.Items {
		if isNodeBoundKind(p) {
			if p.Spec.NodeName != "" {
				pinned++
			}
			continue
		}
		p.Spec.NodeName = ""
	}
	in := &Input{Seed: 3, Mode: ModeSchedule, Nodes: nodes.Items, Pods: pods.Items}
	out := run(t, in)
	t.Logf("%d nodes, %d pods (%d pinned): placed %d, unschedulable %d, %.3fs (%.3f ms/pod)",
		len(nodes.Items), len(pods.Items), pinned, out.Placed, out.Unschedulable, out.Seconds,
		1000*out.Seconds/float64(max(1, len(out.Pods))))
	reasons := map[string]int{}
	for _, r := range out.Pods {
		for k, n := range r.Reasons {
			reasons[k] += n
		}
		if r.Error != "" {
			t.Errorf("%s: %s", r.Pod, r.Error)
		}
	}
	if len(reasons) > 0 {
		t.Logf("rejections by plugin (node count, summed over unschedulable pods): %v", reasons)
	}
	if out.Placed == 0 {
		t.Error("nothing placed")
	}
}

// isNodeBoundKind: DaemonSet pods and static pods (mirror annotation or a
// Node owner) stay on their node.
func isNodeBoundKind(p *v1.Pod) bool {
	if _, ok := p.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return true
	}
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller && (o.Kind == "DaemonSet" || o.Kind == "Node") {
			return true
		}
	}
	return false
}
