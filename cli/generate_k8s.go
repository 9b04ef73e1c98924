package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"placelab/datasets/k8sgen"
)

// generateK8sCommand writes a synthetic Kubernetes cluster as kubectl
// prints it, for the demo, benchmarks and trying ingest k8s without a
// cluster at hand.
func generateK8sCommand() *cli.Command {
	def := k8sgen.DefaultOptions()
	return &cli.Command{
		Name:  "k8s",
		Usage: "write a synthetic Kubernetes cluster as kubectl get nodes/pods -o json print it",
		Description: `Writes DIR/nodes.json and DIR/pods.json — the output of "kubectl get nodes -o json" and
"kubectl get pods -A -o json" (List objects) — for a seeded synthetic cluster of --nodes
nodes in --zones zones: general, memory and GPU (tainted) pools with system
reservations (allocatable below capacity), control-plane nodes with static pods, a
cordoned and a not-Ready node, DaemonSets on every node, Deployments and StatefulSets
with node selectors, hostname anti-affinity and zone topology spread, GPU pods, Jobs
(Succeeded, Failed) and Pending pods. Bound pods were placed the way kube-scheduler's
default profile spreads them (least allocated first), so there is room to consolidate.
The same --seed writes the same bytes. Load it with placelab ingest k8s DIR.

With --alibaba DIR (the Alibaba GPU cluster trace: openb_node_list_all_node.csv and
openb_pod_list_default.csv), the trace's 1,523 nodes (GPU nodes tainted, labelled with
their GPU model) and its Running and Pending pods (qos LS/LSE/LSR high priority, BE low;
GPU-sharing pods' gpu-milli as an extended resource) are written instead, bound by the
same kube-scheduler-like simulation in scheduled_time order.

Examples:
   placelab generate k8s --nodes 1500 --pods 10000 --out cluster && placelab ingest k8s cluster --dataset big
   placelab generate k8s --alibaba ../shared/data/alibaba-gpu-v2023 --out alibaba`,
		Flags: []cli.Flag{
			intFlag("nodes", def.Nodes, k8sgen.MinNodes, 0, "nodes in the cluster (control plane included)"),
			intFlag("pods", def.Pods, 0, 0, "Running and Pending pods (DaemonSet and static pods included)"),
			intFlag("zones", def.Zones, 1, k8sgen.MaxZones, "availability zones"),
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random seed"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "folder `DIR` to write nodes.json and pods.json into"},
			&cli.StringFlag{Name: "alibaba", Usage: "write the Alibaba GPU trace in `DIR` as a cluster instead (--nodes, --pods and --zones do not apply)"},
		},
		Action: func(c *cli.Context) error {
			var nodes, pods []byte
			var err error
			if dir := c.String("alibaba"); dir != "" {
				for _, f := range []string{"nodes", "pods", "zones"} {
					if c.IsSet(f) {
						return fmt.Errorf("--%s does not apply to --alibaba (the trace gives the nodes and pods)", f)
					}
				}
				nodes, pods, err = k8sgen.FromAlibaba(filepath.Join(dir, "openb_node_list_all_node.csv"),
					filepath.Join(dir, "openb_pod_list_default.csv"), k8sgen.PhaseSnapshot, c.Uint64("seed"))
			} else {
				o := k8sgen.Options{Nodes: c.Int("nodes"), Pods: c.Int("pods"), Zones: c.Int("zones"), Seed: c.Uint64("seed")}
				nodes, pods, err = k8sgen.Generate(o)
			}
			if err != nil {
				return err
			}
			dir := c.String("out")
			if err := k8sgen.WriteDir(dir, nodes, pods); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (%d bytes) and %s (%d bytes): placelab ingest k8s %s\n",
				filepath.Join(dir, "nodes.json"), len(nodes), filepath.Join(dir, "pods.json"), len(pods), dir)
			return nil
		},
	}
}
