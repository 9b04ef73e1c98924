// Package k8sgen writes Kubernetes clusters as `kubectl get nodes -o json`
// and `kubectl get pods -A -o json` print them, built from the Kubernetes
// API's own Go types: a seeded synthetic cluster of any size (Generate) and
// a fixture from the Alibaba GPU cluster trace (FromAlibaba). Both bind pods
// with a small simulation of kube-scheduler, so every placement they print
// is feasible: capacity in every resource, taints, node affinity, hostname
// anti-affinity and zone spread hold, and a pod that fits nowhere is Pending
// with the scheduler's message.
//
//	Options ─► plan nodes ─► nodes, DaemonSet and static pods ─► plan workloads
//	                                                                   │
//	FromAlibaba: CSV rows ─► nodes, pods ──┐                           ▼
//	                                       ├──► scheduler (creation order):
//	                                       │      static filters (cached per template)
//	                                       │      dynamic filters (resources, devices,
//	                                       │        spread, anti-affinity)
//	                                       │      LeastAllocated, seeded tie-break
//	                                       ▼
//	                        status (phase, IPs, conditions) ─► kubectl-style List JSON
//
// The output is a List {"apiVersion": "v1", "items": [...], "kind": "List",
// "metadata": {"resourceVersion": ""}} with items of apiVersion v1 and kind
// Node or Pod, keys sorted and indented by four spaces as kubectl prints
// them; nodes sorted by name, pods by namespace and name. One seed gives the
// same bytes.
//
// # What Generate's cluster holds
//
// Nodes in Options.Zones zones of region eu-west-1, labelled as an EKS/kOps
// node is (topology.kubernetes.io/zone and region, kubernetes.io/hostname,
// node.kubernetes.io/instance-type, karpenter.sh/nodepool): 3 control-plane
// m5.large nodes (taint node-role.kubernetes.io/control-plane:NoSchedule);
// of the workers 5% g5.xlarge in pool "gpu" (nvidia.com/gpu: 1, taint
// nvidia.com/gpu=present:NoSchedule), 20% r5.2xlarge in pool "memory", the
// rest m5.xlarge/2xlarge/4xlarge in pool "general". Allocatable is capacity
// less the EKS AMI's reservations; memory is in Ki as kubelets report it.
// One general node is NotReady (tainted node.kubernetes.io/not-ready) and
// one cordoned (spec.unschedulable and node.kubernetes.io/unschedulable);
// both did so minutes after joining, so they hold only DaemonSet pods.
//
// Pods, in creation order: the control plane's mirror pods (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler per control-plane
// node; owner kind Node, annotation kubernetes.io/config.mirror); DaemonSet
// pods (kube-proxy and prometheus-node-exporter on every node, the NVIDIA
// device plugin on GPU nodes; pinned by the matchFields node affinity the
// DaemonSet controller writes, priority system-node-critical 2000001000);
// infrastructure (coredns, metrics-server, ingress-nginx with a zone spread,
// kube-state-metrics, cert-manager, a prometheus StatefulSet); then, in
// random order, the teams' Deployments (ReplicaSet <name>-<hash>, label
// pod-template-hash; requests 50m–4 CPU and 64Mi–16Gi, some BestEffort, some
// with init containers or a sidecar, some with nodeSelector
// karpenter.sh/nodepool=memory, required hostname anti-affinity or a
// DoNotSchedule zone spread (maxSkew 1) on their own app label, preferred
// affinity that the simulation does not honour, priority class "high"
// 1000000 or the default 0), datastore StatefulSets with self
// anti-affinity, running backfill Jobs, GPU inference Deployments and
// fine-tuning Jobs (nvidia.com/gpu 1, tolerating the GPU taint, nodeSelector
// on the GPU pool) and completed CronJob runs (Succeeded and Failed pods);
// last a few pods no node can take (too large, an arm64 selector, 4 GPUs,
// 96Gi on the memory pool), which stay Pending.
package k8sgen
