package kubejudge_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"placelab/internal/kubejudge"
)

// testdata/gen-n12-p60-s3 holds, gzipped, what
//
//	placelab generate k8s --nodes 12 --pods 60 --seed 3 --out DIR
//
// wrote. It is a fixture rather than a call to the generator so this
// package's tests share no code with placelab.
const generated = "testdata/gen-n12-p60-s3"

func loadGenerated(t *testing.T) *kubejudge.Cluster {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"nodes.json", "pods.json"} {
		f, err := os.Open(filepath.Join(generated, name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, b)
	}
	c, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGeneratedCluster(t *testing.T) {
	c := loadGenerated(t)
	if len(c.Nodes) != 12 || len(c.Pods) != 61 {
		t.Fatalf("loaded %d nodes, %d pods; want 12, 61", len(c.Nodes), len(c.Pods))
	}
	h := func(ip string) string { return ip + ".eu-west-1.compute.internal" }
	cases := []struct {
		name string
		plan kubejudge.Plan
		want []string
	}{
		{"snapshot is clean", kubejudge.Plan{}, nil},
		{"clean drain of a general node", kubejudge.Plan{
			Removed: []string{h("ip-10-0-0-15")}, // gateway pod + two DaemonSet pods
			Moves:   []kubejudge.Move{mv("default/gateway-grpc-tz8v5488cc-hf7zc", h("ip-10-0-0-15"), h("ip-10-16-0-15"))},
		}, nil},
		{"clean: a control-plane node holds only static and DaemonSet pods", kubejudge.Plan{Removed: []string{h("ip-10-0-0-11")}}, nil},
		{"drain without moves", kubejudge.Plan{Removed: []string{h("ip-10-32-0-18")}}, []string{
			"removed_node_pods cert-manager/cert-manager-nr7mb2h9fs-fjtsm " + h("ip-10-32-0-18"),
			"removed_node_pods kube-system/coredns-q45tk4rhgq-jss94 " + h("ip-10-32-0-18"),
			"removed_node_pods kube-system/metrics-server-hb78tb46gd-g7mwl " + h("ip-10-32-0-18"),
			"removed_node_pods monitoring/prometheus-k8s-1 " + h("ip-10-32-0-18"),
			"removed_node_pods orders/reports-grpc-qbhzl9lctz-n8fl8 " + h("ip-10-32-0-18"),
			"removed_node_pods orders/reports-grpc-qbhzl9lctz-psv9m " + h("ip-10-32-0-18"),
		}},
		{"every kind of bad move", kubejudge.Plan{Moves: []kubejudge.Move{
			// StatefulSet pod with a claim, to the other replica's node in another zone.
			mv("monitoring/prometheus-k8s-0", h("ip-10-16-0-13"), h("ip-10-32-0-18")),
			mv("kube-system/kube-proxy-n9nx8", h("ip-10-0-0-15"), h("ip-10-16-0-15")),
			mv("kube-system/etcd-"+h("ip-10-0-0-11"), h("ip-10-0-0-11"), h("ip-10-16-0-15")),
			// To the cordoned node (which also has the unschedulable taint).
			mv("default/gateway-grpc-tz8v5488cc-hf7zc", h("ip-10-0-0-15"), h("ip-10-0-0-12")),
			mv("default/gateway-grpc-tz8v5488cc-rkmlr", h("ip-10-16-0-15"), h("ip-10-32-0-17")), // GPU taint
			mv("orders/reports-grpc-qbhzl9lctz-rgzw6", h("ip-10-16-0-13"), h("ip-10-32-0-16")),  // memory pool selector
		}}, []string{
			"affinity orders/reports-grpc-qbhzl9lctz-rgzw6 " + h("ip-10-32-0-16"),
			"anti_affinity monitoring/prometheus-k8s-0 " + h("ip-10-32-0-18"),
			"anti_affinity monitoring/prometheus-k8s-1 " + h("ip-10-32-0-18"),
			"pinned_moved kube-system/etcd-" + h("ip-10-0-0-11") + " " + h("ip-10-16-0-15"),
			"pinned_moved kube-system/kube-proxy-n9nx8 " + h("ip-10-16-0-15"),
			"taint default/gateway-grpc-tz8v5488cc-hf7zc " + h("ip-10-0-0-12"),
			"taint default/gateway-grpc-tz8v5488cc-rkmlr " + h("ip-10-32-0-17"),
			"unschedulable_target default/gateway-grpc-tz8v5488cc-hf7zc " + h("ip-10-0-0-12"),
			"volume_zone monitoring/prometheus-k8s-0 " + h("ip-10-32-0-18"),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Judge(tc.plan)
			if !equal(triples(got), append([]string{}, tc.want...)) {
				t.Errorf("Judge = %q, want %q%s", triples(got), tc.want, describe(got))
			}
		})
	}
	// The generator leaves pods Pending because nothing fits them: the
	// bound must agree.
	for _, k := range []string{
		"analytics/spark-driver-xl-6zg8k86cgh-92b7t", // too big
		"ml/train-llm-312-gcmjr",                     // wants 4 GPUs, a node has 1
		"web/edge-renderer-arm64-l42t59b96m-bvd5d",   // no arm64 node
	} {
		if n, err := c.FitUpperBound(k); err != nil || n != 0 {
			t.Errorf("FitUpperBound(%s) = %d, %v; want 0", k, n, err)
		}
	}
	if n, err := c.FitUpperBound("default/gateway-grpc-tz8v5488cc-hf7zc"); err != nil || n <= 0 {
		t.Errorf("FitUpperBound(gateway) = %d, %v; want > 0", n, err)
	}
}
