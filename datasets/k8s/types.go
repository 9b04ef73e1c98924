package k8s

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Resources in placelab's units: cores (1 = 1000m), memory and ephemeral
// storage in GB (10^9 bytes; note Ki/Mi/Gi are binary: 1Gi = 1.073741824 GB),
// GPUs in devices, Pods in pod slots.
type Resources struct {
	Cores, MemoryGB, EphemeralGB, GPUs, Pods float64
	// Extended holds the other extended resources by name (e.g.
	// "alibabacloud.com/gpu-mem"), in their own unit
	// (Quantity.AsApproximateFloat64). Zero quantities are left out (a node
	// lists hugepages-2Mi: "0" on every machine); nil when there is none.
	// A GPU resource that is not the one counted in GPUs (see GPUResources)
	// is kept here too.
	Extended map[string]float64
}

// GPUResources are the extended resource names counted as GPUs, in order;
// the first name a resource list holds wins and the others stay in
// Resources.Extended:
//
//	nvidia.com/gpu             NVIDIA device plugin
//	amd.com/gpu                AMD device plugin
//	gpu.intel.com/i915         Intel device plugin, i915 driver
//	gpu.intel.com/xe           Intel device plugin, xe driver
//	alibabacloud.com/gpu-count Alibaba Cloud GPU sharing (open-simulator's nodes)
//	aliyun.com/gpu-count       Alibaba Cloud GPU sharing, older name
//
// Sliced devices (nvidia.com/mig-*, gpu-mem) are not whole GPUs and stay in
// Extended.
var GPUResources = []corev1.ResourceName{
	"nvidia.com/gpu",
	"amd.com/gpu",
	"gpu.intel.com/i915",
	"gpu.intel.com/xe",
	"alibabacloud.com/gpu-count",
	"aliyun.com/gpu-count",
}

// PoolLabels are the node labels that name a node's pool, in order; the
// first one a node carries gives Node.Pool:
//
//	karpenter.sh/nodepool                 Karpenter v1
//	karpenter.sh/provisioner-name         Karpenter before v0.32
//	eks.amazonaws.com/nodegroup           EKS managed node groups
//	alpha.eksctl.io/nodegroup-name        eksctl
//	cloud.google.com/gke-nodepool         GKE
//	kubernetes.azure.com/agentpool        AKS
//	agentpool                             AKS, older clusters
//	doks.digitalocean.com/node-pool       DigitalOcean (the troubleshoot sample)
//	node.kubernetes.io/pool               a common hand-written label
var PoolLabels = []string{
	"karpenter.sh/nodepool",
	"karpenter.sh/provisioner-name",
	"eks.amazonaws.com/nodegroup",
	"alpha.eksctl.io/nodegroup-name",
	"cloud.google.com/gke-nodepool",
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"doks.digitalocean.com/node-pool",
	"node.kubernetes.io/pool",
}

// Node is one node of the cluster.
type Node struct {
	// Object is the node as read.
	Object *corev1.Node
	Name   string
	Source string // "file" or "file#item" it came from
	// Zone is topology.kubernetes.io/zone (fallback
	// failure-domain.beta.kubernetes.io/zone); Region is
	// topology.kubernetes.io/region (fallback
	// failure-domain.beta.kubernetes.io/region); Pool is the first of
	// PoolLabels the node carries; InstanceType is
	// node.kubernetes.io/instance-type (fallback
	// beta.kubernetes.io/instance-type). Each is "" when absent.
	Zone, Region, Pool, InstanceType string
	Labels                           map[string]string
	// Allocatable falls back to Capacity when absent (warning
	// WarnNoAllocatable); an allocatable above capacity is kept as stated
	// (warning WarnAllocatableExceedsCapacity).
	Capacity, Allocatable Resources
	Taints                []corev1.Taint
	Unschedulable         bool // spec.unschedulable (cordoned)
	// Ready is false only when the node has a Ready condition whose status
	// is not True. A node with no conditions (a hand-written manifest such
	// as open-simulator's) or without a Ready condition counts as Ready.
	Ready bool
}

// Pod is one pod to place: a Running or Pending pod of the input, or a
// replica expanded from a workload manifest.
type Pod struct {
	Namespace, Name, UID string
	Source               string
	// Phase is Running or Pending: only those pods are in Cluster.Pods
	// (Succeeded and Failed are only counted). A pod with no status (a
	// manifest) and an expanded replica are Pending.
	Phase corev1.PodPhase
	// OwnerKind and OwnerName name the top-level owner, followed through the
	// owner objects of the input (a ReplicaSet owned by a Deployment
	// resolves to the Deployment; a Job owned by a CronJob to the CronJob).
	// A ReplicaSet that is not in the input resolves to its Deployment by
	// the pod-template-hash label (the ReplicaSet's name minus
	// "-"+hash). A static (mirror) pod is owned by "Node" (its node's name).
	// Both are "" for a bare pod.
	OwnerKind, OwnerName string
	// Tenant is namespace/OwnerKind/OwnerName; namespace/Pod/name for a bare pod.
	Tenant string
	// Requests is the effective request (component-helpers' PodRequests:
	// init containers, restartable sidecars, overhead, pod-level
	// resources), with Pods = 1.
	Requests          Resources
	Priority          int32 // spec.priority (0 when unset)
	PriorityClassName string
	Created           time.Time // metadata.creationTimestamp; zero for manifests
	NodeName          string    // spec.nodeName ("" unbound)
	// Object is the pod as read (a manifest's replica: as expanded from
	// its template), for a consumer that needs the user's own object (the
	// real kube-scheduler, tools/kubesched).
	Object *corev1.Pod
	// Node indexes Cluster.Nodes; -1 when unbound or when NodeName names a
	// node not in the input (warning WarnUnknownNode). Node, not NodeName,
	// says whether the pod is bound.
	Node int
	// Pinned marks a DaemonSet pod or a static/mirror pod: it stays on its
	// node (its node's overhead).
	Pinned bool
	// Affinity indexes a NodeSet of kind "affinity": the nodes allowed by
	// nodeSelector + required node affinity, and for a Pinned pod with a
	// node only that node. -1 when every node is allowed.
	Affinity int
	// Tolerated indexes a NodeSet of kind "tolerated": the nodes none of
	// whose NoSchedule/NoExecute taints the pod leaves untolerated. -1 when
	// every node is allowed, and always for a Pinned pod (the DaemonSet
	// controller chose its node by its taints; a static pod skips them).
	Tolerated int
	// MaxPerNode is 1 when a required pod anti-affinity term with
	// topologyKey kubernetes.io/hostname selects the pod itself (in its
	// namespaces), honoured as "at most one pod of this tenant per node".
	MaxPerNode int
	// MaxSkew is the smallest maxSkew of the whenUnsatisfiable
	// DoNotSchedule topology spread constraints on the zone key whose
	// selector matches the pod itself, honoured over the pod's tenant; 0
	// when there is none.
	MaxSkew int
	// Unhonoured lists every placement constraint that the fields above do
	// not capture, one short phrase each (see the Unhonoured* phrases).
	Unhonoured []string
}

// NodeSet kinds.
const (
	SetAffinity  = "affinity"
	SetTolerated = "tolerated"
)

// NodeSet is a set of nodes, deduplicated by Key (equal constraints share one set).
type NodeSet struct {
	Kind string // SetAffinity or SetTolerated
	// Key is a canonical human description, e.g. "nodeSelector
	// disktype=ssd", "tolerates nvidia.com/gpu=present:NoSchedule" or
	// "pinned to node-3"; used in explanations.
	Key   string
	Nodes []int // sorted indices into Cluster.Nodes
}

// Cluster is what Load read.
type Cluster struct {
	Nodes    []Node
	Pods     []Pod // Running and Pending, in input order, manifests' replicas last
	NodeSets []NodeSet
	Report   Report
}

// Report counts what Load read.
type Report struct {
	Files int
	// Objects counts the documents and list items read per kind, skipped
	// kinds included. A kind of an unexpected API group is counted as
	// Kind.group (e.g. "Node.longhorn.io"); a document without a kind as
	// NoKind.
	Objects                                  map[string]int
	Nodes, NodesUnschedulable, NodesNotReady int
	// PodsRunning and PodsPending count the pods in Cluster.Pods (so
	// PodsPending includes ManifestReplicas); PodsSucceeded and PodsFailed
	// the pods read and left out.
	PodsRunning, PodsPending, PodsSucceeded, PodsFailed int
	PodsBound, PodsPinned                               int
	// ManifestReplicas counts the pods expanded from Deployment,
	// StatefulSet, ReplicaSet, Job and DaemonSet manifests.
	ManifestReplicas int
	Warnings         []Warning
}

// NoKind is the Report.Objects key of documents without a kind (or that are
// not objects, such as a support bundle's list of collection errors).
const NoKind = "(no kind)"

// Warning is a condition of the input that Load tolerated.
type Warning struct {
	Source  string // file (and item)
	Object  string // kind namespace/name
	Code    string // one of the Warn* codes
	Message string
}

// Warning codes. Warnings repeated per object are aggregated: one per
// missing node name, per skipped kind, per skipped phase and per tenant and
// unhonoured phrase, each with a count in its message.
const (
	// WarnAllocatableExceedsCapacity: a node's allocatable is above its
	// capacity in some resource; the node keeps its allocatable as stated.
	WarnAllocatableExceedsCapacity = "allocatable-exceeds-capacity"
	// WarnNoAllocatable: a node has no status.allocatable; Capacity is used.
	WarnNoAllocatable = "no-allocatable"
	// WarnUnknownNode: pods name a node that is not in the input; they are
	// treated as unbound.
	WarnUnknownNode = "unknown-node"
	// WarnDuplicate: the same object (same UID) was read twice; the first is kept.
	WarnDuplicate = "duplicate"
	// WarnNotHonoured: a tenant's pods carry a placement constraint that
	// Pod's fields do not capture (Pod.Unhonoured).
	WarnNotHonoured = "not-honoured"
	// WarnSkippedKind: objects of a kind Load does not use were counted and
	// skipped.
	WarnSkippedKind = "skipped-kind"
	// WarnSkippedPhase: pods of phase Unknown (their node lost contact)
	// were counted in Objects and left out.
	WarnSkippedPhase = "skipped-phase"
)

// Phrases of Pod.Unhonoured. Those ending in a space are followed by a name.
const (
	UnhonouredPreferredNodeAffinity    = "preferred node affinity"
	UnhonouredPreferredPodAffinity     = "preferred pod affinity"
	UnhonouredPreferredPodAntiAffinity = "preferred pod anti-affinity"
	UnhonouredRequiredPodAffinity      = "required pod affinity"
	UnhonouredAntiAffinityKey          = "required pod anti-affinity on topologyKey "
	UnhonouredAntiAffinityOthers       = "required pod anti-affinity matching pods other than its own tenant's (honoured within the tenant only)"
	UnhonouredAntiAffinityNotSelf      = "required pod anti-affinity not matching the pod itself"
	UnhonouredSpreadScheduleAnyway     = "topology spread ScheduleAnyway"
	UnhonouredSpreadKey                = "topology spread on key "
	UnhonouredSpreadOthers             = "topology spread matching pods other than its own tenant's (honoured within the tenant only)"
	UnhonouredSpreadNotSelf            = "topology spread not matching the pod itself"
	UnhonouredVolume                   = "volume topology "
	UnhonouredHostPort                 = "hostPort "
)
