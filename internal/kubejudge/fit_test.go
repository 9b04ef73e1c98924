package kubejudge_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestFitUpperBound counts by hand on two nodes:
//
//	a: 4 cpu, 8Gi, 10 pods; runs run/a1 (1 cpu, 1Gi)      free 3 cpu, 7Gi, 9 pods
//	b: 2.5 cpu, 4Gi, 3 pods; runs run/b1 (500m, 3Gi)      free 2 cpu, 1Gi, 2 pods
//
// plus a tainted node, a cordoned one and a GPU one that only some pods may
// use, and a finished Job on a whose requests no longer count.
func TestFitUpperBound(t *testing.T) {
	nodes := []*corev1.Node{
		node("a", "z1", "4", "8Gi", "10", nodeLabel("disk", "hdd")),
		node("b", "z1", "2.5", "4Gi", "3", nodeLabel("disk", "ssd")),
		node("t", "z1", "64", "256Gi", "100", taint("dedicated", corev1.TaintEffectNoSchedule)),
		node("c", "z1", "64", "256Gi", "100", cordoned()),
		node("g", "z2", "4", "8Gi", "10", alloc(gpu, "2"), taint(string(gpu), corev1.TaintEffectNoExecute)),
	}
	pods := []*corev1.Pod{
		pod("run/a1", "a", "1", "1Gi"),
		pod("run/b1", "b", "500m", "3Gi"),
		pod("run/done", "a", "3", "7Gi", phase(corev1.PodFailed)),
		pod("want/t", "", "500m", "1Gi"),                                                  // a: min(6, 7, 9)=6; b: min(4, 1, 2)=1
		pod("want/huge", "", "8", "1Gi"),                                                  // fits nowhere
		pod("want/ssd", "", "500m", "1Gi", nodeSelector("disk", "ssd")),                   // b only: 1
		pod("want/zone", "", "500m", "", requiredIn(corev1.LabelTopologyZone, "z1")),      // a and b, cpu and pods only
		pod("want/none", "", "", ""),                                                      // only pod slots: 9 + 2
		pod("want/gpu", "", "1", "1Gi", request(gpu, "1")),                                // no node offers gpu it may use
		pod("want/gpu-tol", "", "1", "1Gi", request(gpu, "1"), tolerate(string(gpu))),     // g: min(4, 8, 10, 2)=2
		pod("want/tol", "", "500m", "1Gi", tolerate("dedicated")),                         // 6 + 1 + t: min(128, 256, 100)=100
		pod("want/storage", "", "", "", request(corev1.ResourceEphemeralStorage, "40Gi")), // a, b: 100Gi/40Gi = 2 each
		pod("want/milli", "", "1.5", "", request(corev1.ResourceMemory, "1.5Gi")),         // a: min(2, 4)=2; b: min(1, 0)=0
	}
	c := writeCluster(t, nodes, pods)
	cases := []struct {
		pod  string
		want int
	}{
		{"want/t", 7},
		{"want/huge", 0},
		{"want/ssd", 1},
		{"want/zone", 6 + 2}, // a: min(6, 9); b: min(4, 2)
		{"want/none", 9 + 2},
		{"want/gpu", 0},
		{"want/gpu-tol", 2},
		{"want/tol", 7 + 100},
		{"want/storage", 2 + 2},
		{"want/milli", 2},
		{"run/a1", 3 + 1}, // a running pod: a: min(3, 7, 9)=3; b: min(2, 1, 2)=1
	}
	for _, tc := range cases {
		got, err := c.FitUpperBound(tc.pod)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("FitUpperBound(%s) = %d, want %d", tc.pod, got, tc.want)
		}
	}
	if _, err := c.FitUpperBound("want/nope"); err == nil {
		t.Error("FitUpperBound of an unknown pod: no error")
	}
}

// TestQuantities checks the notations the fixtures use parse to what the
// hand counts above assume.
func TestQuantities(t *testing.T) {
	for _, tc := range []struct {
		s     string
		milli int64
	}{
		{"500m", 500}, {"1.5", 1500}, {"2.5", 2500}, {"4", 4000},
		{"4Gi", 4 << 30 * 1000}, {"1.5Gi", 3 << 29 * 1000}, {"512Mi", 512 << 20 * 1000},
	} {
		q := resource.MustParse(tc.s)
		if got := q.MilliValue(); got != tc.milli {
			t.Errorf("%s = %d milli, want %d", tc.s, got, tc.milli)
		}
	}
}
