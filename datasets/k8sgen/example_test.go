package k8sgen_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"placelab/datasets/k8sgen"
)

func ExampleGenerate() {
	nodes, pods, err := k8sgen.Generate(k8sgen.DefaultOptions())
	if err != nil {
		panic(err)
	}
	var nl, pl struct{ Items []json.RawMessage }
	if err := json.Unmarshal(nodes, &nl); err != nil {
		panic(err)
	}
	if err := json.Unmarshal(pods, &pl); err != nil {
		panic(err)
	}
	phases := map[corev1.PodPhase]int{}
	for _, raw := range pl.Items {
		var p corev1.Pod
		if err := json.Unmarshal(raw, &p); err != nil {
			panic(err)
		}
		phases[p.Status.Phase]++
	}
	fmt.Printf("%d nodes, %d pods: %d Running, %d Pending, %d Succeeded, %d Failed\n", len(nl.Items), len(pl.Items),
		phases[corev1.PodRunning], phases[corev1.PodPending], phases[corev1.PodSucceeded], phases[corev1.PodFailed])
	// Output: 60 nodes, 404 pods: 397 Running, 3 Pending, 3 Succeeded, 1 Failed
}

func ExampleWriteDir() {
	nodes, pods, err := k8sgen.Generate(k8sgen.Options{Nodes: 12, Pods: 100, Seed: 7})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "k8sgen")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := k8sgen.WriteDir(filepath.Join(dir, "cluster"), nodes, pods); err != nil {
		panic(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "cluster"))
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// nodes.json
	// pods.json
}
