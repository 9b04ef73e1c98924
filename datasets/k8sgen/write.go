package k8sgen

import (
	"fmt"
	"os"
	"path/filepath"
)

// Names of the files WriteDir writes.
const (
	NodesFile = "nodes.json"
	PodsFile  = "pods.json"
)

// WriteDir writes nodes.json and pods.json into dir, creating it if missing.
func WriteDir(dir string, nodes, pods []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("k8sgen: %w", err)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{NodesFile, nodes}, {PodsFile, pods}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.b, 0o644); err != nil {
			return fmt.Errorf("k8sgen: %w", err)
		}
	}
	return nil
}
