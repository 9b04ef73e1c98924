package k8s

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// sniffBytes is how far NewYAMLOrJSONDecoder looks to tell JSON from YAML
// (a JSON stream starts with "{" after whitespace).
const sniffBytes = 4096

// Kinds Load decodes; every other kind is counted and skipped.
const (
	kindNode        = "Node"
	kindPod         = "Pod"
	kindDeployment  = "Deployment"
	kindStatefulSet = "StatefulSet"
	kindDaemonSet   = "DaemonSet"
	kindReplicaSet  = "ReplicaSet"
	kindJob         = "Job"
)

// kindGroups are the API groups each decoded kind is accepted from ("" is
// the core group; extensions is the old home of the apps kinds).
var kindGroups = map[string][]string{
	kindNode:        {""},
	kindPod:         {""},
	kindDeployment:  {"apps", "extensions"},
	kindStatefulSet: {"apps"},
	kindDaemonSet:   {"apps", "extensions"},
	kindReplicaSet:  {"apps", "extensions"},
	kindJob:         {"batch"},
}

// objectHead is what Load reads of a document or item before decoding it
// into its type.
type objectHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// rawObject is one object of the input, located but not yet decoded.
type rawObject struct {
	file            string
	item            int    // position in the file; -1 when the file holds one object
	kind            string // the kind Load decodes it as, or "" when skipped
	key             string // its Report.Objects key
	namespace, name string
	raw             []byte
}

// source is "file" or "file#item".
func (o *rawObject) source() string {
	if o.item < 0 {
		return o.file
	}
	return fmt.Sprintf("%s#%d", o.file, o.item)
}

// fail is an *ObjectError at o.
func (o *rawObject) fail(field string, err error) *ObjectError {
	return &ObjectError{File: o.file, Item: o.item, Kind: o.kind, Namespace: o.namespace, Name: o.name, Field: field, Err: err}
}

// inputFiles lists the files to read: each path that is a file, and the
// .json, .yaml and .yml files under each folder (walked recursively, in
// lexical order).
func inputFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, ErrNoInput
	}
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && isManifestName(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// isManifestName reports whether a file in a walked folder is read.
func isManifestName(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// readFile splits a file into its objects: each YAML or JSON document, and
// each item of a document whose kind ends in "List" (kubectl's List, a
// NodeList, a PodList…) or that is an array. Items of a typed list take
// its kind when they carry none.
func readFile(path string) ([]rawObject, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(f), sniffBytes)
	var objs []rawObject
	inList := false
	for {
		var doc runtime.RawExtension
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, &ObjectError{File: path, Item: len(objs), Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
		raw := bytes.TrimSpace(doc.Raw)
		if len(raw) == 0 || string(raw) == "null" {
			continue // an empty document, e.g. a trailing "---"
		}
		var items []json.RawMessage
		itemKind, listVersion := "", ""
		if h, ok := readHead(raw); ok && strings.HasSuffix(h.Kind, "List") {
			items, itemKind, listVersion = h.Items, strings.TrimSuffix(h.Kind, "List"), h.APIVersion
		} else if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
			objs = append(objs, newRawObject(path, raw, h, ok))
			continue
		}
		// A list: a List/NodeList/PodList's items, or a bare array of
		// objects (how troubleshoot writes custom resources).
		inList = true
		for _, item := range items {
			item = bytes.TrimSpace(item)
			ih, ok := readHead(item)
			if ok && ih.Kind == "" && itemKind != "" {
				ih.Kind, ih.APIVersion = itemKind, listVersion
			}
			objs = append(objs, newRawObject(path, item, ih, ok))
		}
	}
	for i := range objs {
		objs[i].item = i
	}
	if len(objs) == 1 && !inList {
		objs[0].item = -1
	}
	return objs, nil
}

// readHead reads a document's kind and name; ok is false when the document
// is not a JSON object (a list of strings, a scalar).
func readHead(raw []byte) (objectHead, bool) {
	var h objectHead
	if len(raw) == 0 || raw[0] != '{' {
		return h, false
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		// A metadata of the wrong shape: let the typed decode name the field.
		var loose struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if json.Unmarshal(raw, &loose) != nil {
			return h, false
		}
		h = objectHead{APIVersion: loose.APIVersion, Kind: loose.Kind}
	}
	return h, true
}

// newRawObject classifies a document by its apiVersion and kind.
func newRawObject(path string, raw []byte, h objectHead, isObject bool) rawObject {
	o := rawObject{file: path, raw: raw, key: NoKind, namespace: h.Metadata.Namespace, name: h.Metadata.Name}
	if !isObject || h.Kind == "" {
		return o
	}
	group := ""
	if g, _, ok := strings.Cut(h.APIVersion, "/"); ok {
		group = g
	}
	o.key = h.Kind
	if groups, ok := kindGroups[h.Kind]; ok && (h.APIVersion == "" || slices.Contains(groups, group)) {
		o.kind = h.Kind
		if h.Kind != kindNode && o.namespace == "" {
			o.namespace = metadataDefaultNamespace
		}
		return o
	}
	if strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io") {
		o.key = h.Kind + "." + group // a custom resource, e.g. Node.longhorn.io
	}
	return o
}

// metadataDefaultNamespace is the namespace of a namespaced object whose
// manifest omits it.
const metadataDefaultNamespace = "default"
