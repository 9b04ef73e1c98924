// Package kubejudge is an independent judge of placelab's plans for
// Kubernetes clusters. It reads the user's own files — the Lists that
// `kubectl get -o json` prints, as `placelab generate k8s --out DIR` writes
// them (nodes.json and pods.json) — and checks a plan (pod moves and removed
// nodes) or a capacity answer with Kubernetes' own helpers from
// k8s.io/component-helpers: resource.PodRequests for what a pod asks for,
// nodeaffinity.GetRequiredNodeAffinity for nodeSelector and required node
// affinity, and FindMatchingUntoleratedTaint for NoSchedule and NoExecute
// taints.
//
// It deliberately imports no placelab package, so tests of placelab's
// planners can use it as a referee that does not share their bugs.
package kubejudge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// Cluster is a snapshot of a cluster as read from its files. The fields are
// all Judge and FitUpperBound look at, so a Cluster may also be built in
// memory; they are never modified by this package.
type Cluster struct {
	Nodes []*corev1.Node
	Pods  []*corev1.Pod
	// Optional objects, used when the files contain them.
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	Namespaces             []*corev1.Namespace
	// Files lists the files Load read objects from, in the order read.
	Files []string
}

// Load reads every *.json, *.yaml and *.yml file directly in dir (not in
// subdirectories), in name order. A file may hold one or more documents
// (YAML "---" separated or concatenated JSON), each a v1 List (kind "List",
// or a typed list such as "NodeList") or a single object. Items of kind
// Node, Pod, PersistentVolume, PersistentVolumeClaim and Namespace are kept;
// other kinds, and documents that are not Kubernetes objects at all (no
// kind), are skipped. Syntax errors, items that do not decode, duplicate
// objects and a directory without any Node are errors.
func Load(dir string) (*Cluster, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("kubejudge: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".json", ".yaml", ".yml":
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	c := &Cluster{}
	seen := map[string]string{} // "Kind ns/name" -> file
	for _, name := range names {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("kubejudge: %w", err)
		}
		n, err := c.addFile(b, name, seen)
		if err != nil {
			return nil, fmt.Errorf("kubejudge: %s: %w", path, err)
		}
		if n > 0 {
			c.Files = append(c.Files, path)
		}
	}
	if len(c.Nodes) == 0 {
		return nil, fmt.Errorf("kubejudge: no Node objects in %s (read %d files: %v)", dir, len(names), names)
	}
	return c, nil
}

// addFile decodes every document of one file and returns how many objects it
// kept.
func (c *Cluster) addFile(b []byte, file string, seen map[string]string) (int, error) {
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	kept := 0
	for doc := 0; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return kept, nil
			}
			return kept, fmt.Errorf("document %d: %w", doc, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			continue // not an object (an array, a number...): not ours
		}
		if strings.HasSuffix(tm.Kind, "List") {
			var l struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(raw, &l); err != nil {
				return kept, fmt.Errorf("document %d: %s: %w", doc, tm.Kind, err)
			}
			itemKind := strings.TrimSuffix(tm.Kind, "List") // "" for a plain List
			for i, it := range l.Items {
				ok, err := c.addObject(it, itemKind, file, seen)
				if err != nil {
					return kept, fmt.Errorf("document %d item %d: %w", doc, i, err)
				}
				if ok {
					kept++
				}
			}
			continue
		}
		ok, err := c.addObject(raw, "", file, seen)
		if err != nil {
			return kept, fmt.Errorf("document %d: %w", doc, err)
		}
		if ok {
			kept++
		}
	}
}

// addObject decodes one object; defaultKind is the kind a typed list implies
// for items that omit their TypeMeta. It reports whether the object was kept.
func (c *Cluster) addObject(raw []byte, defaultKind, file string, seen map[string]string) (bool, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return false, err
	}
	kind := tm.Kind
	if kind == "" {
		kind = defaultKind
	}
	if tm.APIVersion != "" && tm.APIVersion != "v1" {
		return false, nil // not core/v1: a Deployment, a Lease...
	}
	var (
		obj  metav1.Object
		keep func()
	)
	switch kind {
	case "Node":
		n := &corev1.Node{}
		obj, keep = n, func() { c.Nodes = append(c.Nodes, n) }
	case "Pod":
		p := &corev1.Pod{}
		obj, keep = p, func() { c.Pods = append(c.Pods, p) }
	case "PersistentVolume":
		pv := &corev1.PersistentVolume{}
		obj, keep = pv, func() { c.PersistentVolumes = append(c.PersistentVolumes, pv) }
	case "PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		obj, keep = pvc, func() { c.PersistentVolumeClaims = append(c.PersistentVolumeClaims, pvc) }
	case "Namespace":
		ns := &corev1.Namespace{}
		obj, keep = ns, func() { c.Namespaces = append(c.Namespaces, ns) }
	default:
		return false, nil
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return false, fmt.Errorf("%s: %w", kind, err)
	}
	if obj.GetName() == "" {
		return false, fmt.Errorf("%s without metadata.name", kind)
	}
	id := kind + " " + obj.GetName()
	if kind == "Pod" || kind == "PersistentVolumeClaim" {
		id = kind + " " + nsOrDefault(obj.GetNamespace()) + "/" + obj.GetName()
	}
	if prev, dup := seen[id]; dup {
		return false, fmt.Errorf("duplicate %s (first in %s)", id, prev)
	}
	seen[id] = file
	keep()
	return true, nil
}
