package k8s

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// samplesDir is the shared folder of real Kubernetes objects (see
// ../shared/data/README.md, "Kubernetes samples").
const samplesDir = "../../../shared/data/k8s-samples"

// floatTol: the values below are exact decimal conversions, compared
// after one float division.
const floatTol = 1e-9

// sample returns the path of a shared sample, skipping the test when the
// samples folder is absent.
func sample(t *testing.T, name string) string {
	t.Helper()
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("samples folder absent: %v", err)
	}
	return filepath.Join(samplesDir, name)
}

func load(t *testing.T, paths ...string) *Cluster {
	t.Helper()
	c, err := Load(paths...)
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= floatTol*math.Max(1, math.Abs(b)) }

func checkFloat(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

func findNode(t *testing.T, c *Cluster, name string) *Node {
	t.Helper()
	for i := range c.Nodes {
		if c.Nodes[i].Name == name {
			return &c.Nodes[i]
		}
	}
	t.Fatalf("node %s not found", name)
	return nil
}

func findPod(t *testing.T, c *Cluster, namespace, name string) *Pod {
	t.Helper()
	for i := range c.Pods {
		if c.Pods[i].Namespace == namespace && c.Pods[i].Name == name {
			return &c.Pods[i]
		}
	}
	t.Fatalf("pod %s/%s not found", namespace, name)
	return nil
}

// warningsOf returns the warnings with a code.
func warningsOf(c *Cluster, code string) []Warning {
	var ws []Warning
	for _, w := range c.Report.Warnings {
		if w.Code == code {
			ws = append(ws, w)
		}
	}
	return ws
}

// setKey is the Kind and Key of NodeSet i, or "" for -1.
func setKey(c *Cluster, i int) string {
	if i < 0 {
		return ""
	}
	return c.NodeSets[i].Kind + ": " + c.NodeSets[i].Key
}
