package datasets

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/datasets/k8s"
	"placelab/internal/kunits"
	store "placelab/sql"
)

// ErrK8sInventory refuses --inventory for a Kubernetes cluster, whose nodes
// are its machines.
var ErrK8sInventory = errors.New("ingest k8s takes no --inventory: the cluster's nodes are its machines")

func init() {
	register(Format{
		Name:    "k8s",
		Summary: "a Kubernetes cluster: kubectl get nodes/pods -o json, YAML manifests, support-bundle folders",
		Help:    K8sHelp,
		Load:    loadK8s,
	})
}

// K8sHelp documents the Kubernetes format.
const K8sHelp = `Files and folders (walked recursively: .json, .yaml, .yml) holding Kubernetes objects:
the output of
  kubectl get nodes -o json > nodes.json
  kubectl get pods -A -o json > pods.json
(List objects), YAML manifests with one or many documents (Node, Pod, Deployment,
StatefulSet, ReplicaSet, DaemonSet, Job), or a support bundle's cluster-resources folder.
They are parsed with the Kubernetes API's own Go types.
  Nodes -> machines: allocatable (not capacity) cpu -> cores, memory -> memory_gb (GB,
    10^9 bytes), ephemeral-storage -> ssd_gb, nvidia.com/gpu (and other GPU resources)
    -> gpus, pods -> pod slots; SKU = instance type (node.kubernetes.io/instance-type,
    else node pool, else "node") with one allocatable: nodes of a type whose cpu, GPUs
    and pods agree and whose memory and ephemeral storage are within 1% share it, with
    the smallest of each (a kubelet's memory differs by KiB from node to node; warning
    node-over-sku when a node's bound pods exceed that); types with allocatables
    further apart get one SKU each, named by cpu and memory; cluster = the
    topology zone, rack = zone/pool; a cordoned node carries the taint
    node.kubernetes.io/unschedulable:NoSchedule and a not-Ready node its not-ready
    taint, so only the pods that tolerate them go there (kube-scheduler's
    NodeUnschedulable and TaintToleration).
  Pods -> VMs: Running and Pending pods (Succeeded and Failed are counted and left
    out); effective request (init and sidecar containers, overhead) as the demand, one
    pod slot each; tenant = namespace/owner (ReplicaSet -> Deployment, StatefulSet, Job,
    DaemonSet, Node for static pods); priority 1 (low) for spec.priority < 0, else 0;
    start = creationTimestamp (seconds after the earliest; pods from manifests last).
  Bound pods (spec.nodeName) -> an observed run, engine observed, policy kube-scheduler,
    printed as observed_run.
  Constraints kept and obeyed by every engine: DaemonSet and static pods pinned to their
    node (their requests are its overhead in lpbound and whatif drain), nodeSelector and
    required node affinity (NodeAffinity), taints and tolerations (TaintToleration),
    required pod anti-affinity on kubernetes.io/hostname over the pod's own tenant (at
    most one per node), DoNotSchedule topology spread on the zone key (PodTopologySpread).
    Anything else that decides placement (preferred affinity, other inter-pod affinity,
    volume topology, host ports) is listed per tenant in the report's warnings and in
    vm_constraint.unhonoured, never dropped silently.
Bad input is an error naming file, item, object and field (an unparseable quantity, a
malformed object, two different objects of one name); a node whose allocatable exceeds
its capacity, a pod bound to a node not in the input and duplicates are named warnings.`

// WarnExtendedResource names pods requesting an extended resource placelab
// does not count.
const WarnExtendedResource = "extended-resource-not-counted"

// sortedNames are a map's keys in order.
func sortedNames(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// K8sReport is what ingest k8s prints beside its counts (the "report" of
// ingest --format json).
type K8sReport struct {
	Files              int            `json:"files"`
	Objects            map[string]int `json:"objects"`
	Nodes              int            `json:"nodes"`
	NodesUnschedulable int            `json:"nodes_unschedulable"`
	NodesNotReady      int            `json:"nodes_not_ready"`
	SKUs               int            `json:"skus"`
	PodsRunning        int            `json:"pods_running"`
	PodsPending        int            `json:"pods_pending"`
	PodsSucceeded      int            `json:"pods_succeeded"`
	PodsFailed         int            `json:"pods_failed"`
	PodsBound          int            `json:"pods_bound"`
	PodsPinned         int            `json:"pods_pinned"`
	ManifestReplicas   int            `json:"manifest_replicas"`
	NodeSets           int            `json:"node_sets"`
	Warnings           []K8sWarning   `json:"warnings"`
}

// K8sWarning is one named warning of a Kubernetes ingest.
type K8sWarning struct {
	Source  string `json:"source"`
	Object  string `json:"object"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func newK8sReport(r k8s.Report, skus, sets int) K8sReport {
	out := K8sReport{Files: r.Files, Objects: r.Objects, Nodes: r.Nodes, NodesUnschedulable: r.NodesUnschedulable,
		NodesNotReady: r.NodesNotReady, SKUs: skus, PodsRunning: r.PodsRunning, PodsPending: r.PodsPending,
		PodsSucceeded: r.PodsSucceeded, PodsFailed: r.PodsFailed, PodsBound: r.PodsBound, PodsPinned: r.PodsPinned,
		ManifestReplicas: r.ManifestReplicas, NodeSets: sets, Warnings: []K8sWarning{}}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, K8sWarning(w))
	}
	return out
}

// Lines is the report as text.
func (r K8sReport) Lines() []string {
	out := []string{
		fmt.Sprintf("kubernetes: %d files; %d nodes (%d cordoned, %d not ready) of %d SKUs", r.Files, r.Nodes, r.NodesUnschedulable, r.NodesNotReady, r.SKUs),
		fmt.Sprintf("  pods: %d running, %d pending (%d from manifests), %d bound, %d pinned (DaemonSet/static); left out: %d succeeded, %d failed",
			r.PodsRunning, r.PodsPending, r.ManifestReplicas, r.PodsBound, r.PodsPinned, r.PodsSucceeded, r.PodsFailed),
	}
	kinds := make([]string, 0, len(r.Objects))
	for k := range r.Objects {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var ks []string
	for _, k := range kinds {
		ks = append(ks, fmt.Sprintf("%s %d", k, r.Objects[k]))
	}
	out = append(out, "  objects: "+strings.Join(ks, ", "))
	for _, w := range r.Warnings {
		out = append(out, fmt.Sprintf("  warning %s: %s: %s", w.Code, w.Object, w.Message))
	}
	return out
}

func loadK8s(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	if opts.Inventory != "" {
		return ErrK8sInventory
	}
	if opts.MaxRejects > 0 {
		return fmt.Errorf("%w: ingest k8s loads a cluster whole (a bad object is an error; what it tolerates is a named warning)", ErrNoSkipping)
	}
	c, err := k8s.Load(paths...)
	if err != nil {
		return err
	}
	return writeK8s(ctx, w, c, opts.Version, observedAs{engine: ObservedEngine, policy: ObservedKubeScheduler})
}

// observedAs names the run of a cluster's bound pods: what the source
// recorded (engine observed, policy kube-scheduler), or a plan's placement
// written as a cluster (IngestK8sPlan).
type observedAs struct {
	engine, policy string
	params         map[string]any
}

// k8sSKU is a node shape under a name.
type k8sSKU struct {
	cores, mem, eph, gpus, pods float64
}

// skuTolerance is how far apart, as a share of the smaller, the memory
// and ephemeral storage of nodes of one instance type may be and still be
// one SKU: a kubelet reports memory a few KiB apart from node to node
// (what the kernel keeps), below anything a user sizes pods by.
const skuTolerance = 0.01

// skuGroups names each node's SKU: its instance type
// (node.kubernetes.io/instance-type; else its node pool; else "node") with
// one allocatable. Nodes of one type whose cpu, GPUs and pod slots agree
// and whose memory and ephemeral storage lie within skuTolerance of each
// other share a SKU with the smallest of each (so every node holds what
// its SKU says); a type with allocatables further apart gets one SKU per
// group, named by what tells them apart ("m5.4xlarge (15.89 cpu, 57.4Gi)").
func skuGroups(c *k8s.Cluster) (skuOf []string, shapes map[string]k8sSKU, order []string, err error) {
	type group struct {
		base    string
		min     k8sSKU
		maxMem  float64
		maxEph  float64
		members []int
	}
	byBase := map[string][]*group{}
	var bases []string
	close := func(lo, hi float64) bool { return hi <= lo*(1+skuTolerance)+1e-12 }
	for i, n := range c.Nodes {
		a := n.Allocatable
		if !(a.Cores > 0) || !(a.MemoryGB > 0) {
			return nil, nil, nil, &RowError{File: n.Source, Field: "status.allocatable", Value: n.Name,
				Err: fmt.Errorf("%w: node %s has allocatable cpu %g, memory %g GB: a node with no cpu or memory can hold no pod", ErrNonPositive, n.Name, a.Cores, a.MemoryGB)}
		}
		base := cmp.Or(n.InstanceType, n.Pool, "node")
		if _, ok := byBase[base]; !ok {
			bases = append(bases, base)
		}
		var into *group
		for _, g := range byBase[base] {
			if g.min.cores != a.Cores || g.min.gpus != a.GPUs || g.min.pods != a.Pods {
				continue
			}
			lo, hi := math.Min(g.min.mem, a.MemoryGB), math.Max(g.maxMem, a.MemoryGB)
			le, he := math.Min(g.min.eph, a.EphemeralGB), math.Max(g.maxEph, a.EphemeralGB)
			if close(lo, hi) && (he == 0 || close(le, he)) {
				into = g
				g.min.mem, g.maxMem, g.min.eph, g.maxEph = lo, hi, le, he
				break
			}
		}
		if into == nil {
			into = &group{base: base, min: k8sSKU{a.Cores, a.MemoryGB, a.EphemeralGB, a.GPUs, a.Pods}, maxMem: a.MemoryGB, maxEph: a.EphemeralGB}
			byBase[base] = append(byBase[base], into)
		}
		into.members = append(into.members, i)
	}
	skuOf = make([]string, len(c.Nodes))
	shapes = map[string]k8sSKU{}
	for _, base := range bases {
		gs := byBase[base]
		for _, g := range gs {
			name := base
			if len(gs) > 1 {
				name = fmt.Sprintf("%s (%s cpu, %s)", base, strconv.FormatFloat(g.min.cores, 'f', -1, 64), kunits.Bytes(g.min.mem))
			}
			if _, dup := shapes[name]; dup {
				name = fmt.Sprintf("%s (%s cpu, %s, %s pods, %s GPUs)", base, strconv.FormatFloat(g.min.cores, 'f', -1, 64), kunits.Bytes(g.min.mem),
					strconv.FormatFloat(g.min.pods, 'f', -1, 64), strconv.FormatFloat(g.min.gpus, 'f', -1, 64))
			}
			for k := 2; ; k++ {
				if _, dup := shapes[name]; !dup {
					break
				}
				name = fmt.Sprintf("%s #%d", name, k)
			}
			shapes[name] = g.min
			order = append(order, name)
			for _, i := range g.members {
				skuOf[i] = name
			}
		}
	}
	return skuOf, shapes, order, nil
}

// WarnNodeOverSKU: the pods bound to a node request more memory or
// ephemeral storage than its SKU, the smallest allocatable of its instance
// type (skuGroups), though no more than the node's own.
const WarnNodeOverSKU = "node-over-sku"

// skuOverWarnings adds one warning naming the nodes whose bound pods fit
// their own allocatable but not their SKU's, which is a little smaller.
func skuOverWarnings(c *k8s.Cluster, skuOf []string, shapes map[string]k8sSKU) {
	mem := make([]float64, len(c.Nodes))
	eph := make([]float64, len(c.Nodes))
	for _, p := range c.Pods {
		if p.Node >= 0 {
			mem[p.Node] += p.Requests.MemoryGB
			eph[p.Node] += p.Requests.EphemeralGB
		}
	}
	var over []string
	for i, n := range c.Nodes {
		k := shapes[skuOf[i]]
		if (mem[i] > k.mem+1e-12 && mem[i] <= n.Allocatable.MemoryGB+1e-12) || (eph[i] > k.eph+1e-12 && eph[i] <= n.Allocatable.EphemeralGB+1e-12) {
			over = append(over, fmt.Sprintf("%s (%s, pods request %s of its %s; SKU %s)", n.Name, skuOf[i], kunits.Bytes(mem[i]), kunits.Bytes(n.Allocatable.MemoryGB), kunits.Bytes(k.mem)))
		}
	}
	if len(over) == 0 {
		return
	}
	shown := over
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("… %d more", len(over)-3))
	}
	c.Report.Warnings = append(c.Report.Warnings, k8s.Warning{Object: fmt.Sprintf("%d node(s)", len(over)), Code: WarnNodeOverSKU,
		Message: fmt.Sprintf("bound pods request more than the node's SKU, the smallest allocatable of its instance type within %g%%, though no more than the node's own: %s; placelab check will count the excess",
			100*skuTolerance, strings.Join(shown, "; "))})
}

// writeK8s writes a loaded cluster into an ingest (see K8sHelp).
func writeK8s(ctx context.Context, w *store.Writer, c *k8s.Cluster, version string, as observedAs) error {
	if len(c.Nodes) == 0 {
		return fmt.Errorf("%w: no nodes: give the nodes too (kubectl get nodes -o json > nodes.json)", ErrNoInventory)
	}
	// SKUs: one per instance type and allocatable (skuGroups).
	skuOf, shapes, skuOrder, err := skuGroups(c)
	if err != nil {
		return err
	}
	skuOverWarnings(c, skuOf, shapes)
	for _, name := range skuOrder {
		s := shapes[name]
		var pods any
		if s.pods > 0 {
			pods = s.pods
		}
		if err := w.Append("sku", name, nil, s.cores, s.mem, s.eph, 0.0, 0.0, s.gpus, nil, pods); err != nil {
			return err
		}
	}
	for i, n := range c.Nodes {
		zone, dc := n.Region, n.Zone
		if zone == "" {
			zone = "k8s"
		}
		if dc == "" {
			dc = "default"
		}
		pool := n.Pool
		if pool == "" {
			pool = n.InstanceType
		}
		if pool == "" {
			pool = "nodes"
		}
		// A cordoned or not-Ready node keeps pods off by its taints (the
		// cordon's node.kubernetes.io/unschedulable, the controller's
		// not-ready), as kube-scheduler decides: only the pods that
		// tolerate them (a DaemonSet's) go there. It is no machine out of
		// service.
		health := "healthy"
		if err := w.Append("machine", int32(i), n.Name, zone, dc, dc, dc+"/"+pool, int16(0), skuOf[i], health); err != nil {
			return err
		}
		if err := appendObject(w, "Node", n.Name, nil, int32(i), n.Object); err != nil {
			return err
		}
	}
	// Node sets.
	for k, s := range c.NodeSets {
		if err := w.Append("node_set", int32(k), s.Kind, s.Key); err != nil {
			return err
		}
		for _, m := range s.Nodes {
			if err := w.Append("node_set_member", int32(k), int32(m)); err != nil {
				return err
			}
		}
	}
	// Pods: start times from the earliest creation; manifests' replicas last.
	var t0, tMax time.Time
	for _, p := range c.Pods {
		if p.Created.IsZero() {
			continue
		}
		if t0.IsZero() || p.Created.Before(t0) {
			t0 = p.Created
		}
		if p.Created.After(tMax) {
			tMax = p.Created
		}
	}
	if !t0.IsZero() {
		w.SetTimeOrigin(t0)
	}
	last := tMax.Sub(t0).Seconds()
	// Extended resources other than the GPU count (e.g. a GPU-sharing
	// scheduler's gpu-milli) are not resource dimensions of placelab: a pod
	// requesting one is placed as if it did not, so it is listed with its
	// unhonoured constraints and warned about, per resource.
	extPods := map[string]int{}
	var extOrder []string
	types := map[k8sSKU]string{}
	var obs []observedPlacement
	for i, p := range c.Pods {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := p.Requests
		shape := k8sSKU{r.Cores, r.MemoryGB, r.EphemeralGB, r.GPUs, 1}
		typ, ok := types[shape]
		if !ok {
			typ = "pod-c" + fnum(r.Cores) + "m" + fnum(round9(r.MemoryGB))
			if r.EphemeralGB > 0 {
				typ += "e" + fnum(round9(r.EphemeralGB))
			}
			if r.GPUs > 0 {
				typ += "g" + fnum(r.GPUs)
			}
			types[shape] = typ
			if err := w.Append("vm_type", typ, "pod", r.Cores, r.MemoryGB, r.EphemeralGB, 0.0, 0.0, r.GPUs, 1.0); err != nil {
				return err
			}
		}
		start := last
		if !p.Created.IsZero() {
			start = p.Created.Sub(t0).Seconds()
		}
		prio := int16(0)
		if p.Priority < 0 {
			prio = 1
		}
		vm := int64(i)
		if err := w.Append("vm", vm, p.Namespace+"/"+p.Name, p.Tenant, nil, typ, prio, start, nil, nil, nil, nil, nil, nil); err != nil {
			return err
		}
		w.Counts.RowsLoaded++
		unhonoured := p.Unhonoured
		for _, name := range sortedNames(r.Extended) {
			if r.Extended[name] <= 0 {
				continue
			}
			if extPods[name] == 0 {
				extOrder = append(extOrder, name)
			}
			extPods[name]++
			unhonoured = append(unhonoured, "extended resource "+name+" (not counted)")
		}
		if p.Affinity >= 0 || p.Tolerated >= 0 || p.Pinned || p.MaxPerNode > 0 || p.MaxSkew > 0 || len(unhonoured) > 0 {
			var unh any
			if len(unhonoured) > 0 {
				unh = strings.Join(unhonoured, "; ")
			}
			if err := w.Append("vm_constraint", vm, nullSet(p.Affinity), nullSet(p.Tolerated), p.Pinned,
				nullPositive(p.MaxPerNode), nullPositive(p.MaxSkew), unh); err != nil {
				return err
			}
		}
		var node any
		if p.Node >= 0 {
			node = c.Nodes[p.Node].Name
			obs = append(obs, observedPlacement{vm: vm, t: start, machine: int32(p.Node)})
		} else if p.NodeName != "" {
			node = p.NodeName
		}
		if err := w.Append("k8s_pod", vm, p.Namespace, p.Name, nullStr(p.OwnerKind), nullStr(p.OwnerName), string(p.Phase),
			node, int32(p.Priority), nullStr(p.PriorityClassName)); err != nil {
			return err
		}
		if err := appendObject(w, "Pod", p.Namespace+"/"+p.Name, vm, nil, p.Object); err != nil {
			return err
		}
	}
	for _, name := range extOrder {
		c.Report.Warnings = append(c.Report.Warnings, k8s.Warning{Object: "resource " + name, Code: WarnExtendedResource,
			Message: fmt.Sprintf("%d pod(s) request %s, which placelab does not count (only cpu, memory, ephemeral storage, GPUs and pod slots): they are placed as if they did not", extPods[name], name)})
	}
	rep := &c.Report
	w.Counts.RowsRead = int64(rep.PodsRunning + rep.PodsPending + rep.PodsSucceeded + rep.PodsFailed)
	for _, wa := range rep.Warnings {
		if err := w.Append("ingest_warning", nullStr(wa.Source), nullStr(wa.Object), wa.Code, wa.Message); err != nil {
			return err
		}
	}
	w.Counts.Report = newK8sReport(c.Report, len(skuOrder), len(c.NodeSets))
	if err := deriveDemand(w); err != nil {
		return err
	}
	params := map[string]any{"pods": len(c.Pods), "nodes": len(c.Nodes)}
	for k, v := range as.params {
		params[k] = v
	}
	return writeObservedRun(w, as.engine, as.policy, version, params, obs)
}

// appendObject keeps one object as read (k8s_object), its managed fields
// left out (bookkeeping of the API server's, no part of scheduling).
func appendObject(w *store.Writer, kind, name string, vm, machine any, obj interface {
	SetManagedFields([]metav1.ManagedFieldsEntry)
	GetManagedFields() []metav1.ManagedFieldsEntry
}) error {
	if reflect.ValueOf(obj).IsNil() {
		return nil
	}
	mf := obj.GetManagedFields()
	obj.SetManagedFields(nil)
	b, err := json.Marshal(obj)
	obj.SetManagedFields(mf)
	if err != nil {
		return fmt.Errorf("datasets: k8s: %s %s: %w", kind, name, err)
	}
	return w.Append("k8s_object", kind, name, vm, machine, string(b))
}

// round9 rounds to 9 decimals for a type name (binary quantities in GB
// carry float noise).
func round9(v float64) float64 { return math.Round(v*1e9) / 1e9 }

func nullSet(k int) any {
	if k < 0 {
		return nil
	}
	return int32(k)
}

func nullPositive(n int) any {
	if n <= 0 {
		return nil
	}
	return int32(n)
}
