package kubejudge

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	schedhelper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// The rules below are Kubernetes' own, through component-helpers, wherever
// a helper exists; what is left (pod counting, zone labels, hostname
// anti-affinity) is written out here in a few lines each.

// LabelZone is the node label volume_zone compares.
const LabelZone = corev1.LabelTopologyZone // "topology.kubernetes.io/zone"

// PodKey is the "namespace/name" a Move names a pod by; an empty namespace
// is "default".
func PodKey(p *corev1.Pod) string { return nsOrDefault(p.Namespace) + "/" + p.Name }

func nsOrDefault(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// IsRunning reports whether the pod occupies its node: spec.nodeName is set
// and the phase is neither Succeeded nor Failed (Pending-but-bound counts).
func IsRunning(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// IsDaemonSetPod reports whether an owner reference has kind DaemonSet.
func IsDaemonSetPod(p *corev1.Pod) bool { return hasOwnerKind(p, "DaemonSet") }

// IsStaticPod reports whether the pod is a static (mirror) pod: it has the
// kubernetes.io/config.mirror annotation or is owned by its Node.
func IsStaticPod(p *corev1.Pod) bool {
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return true
	}
	return hasOwnerKind(p, "Node")
}

// IsPinned reports whether the pod may not be moved: a DaemonSet or static
// pod. Pinned pods stay on (and go away with) their node.
func IsPinned(p *corev1.Pod) bool { return IsDaemonSetPod(p) || IsStaticPod(p) }

func hasOwnerKind(p *corev1.Pod, kind string) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == kind {
			return true
		}
	}
	return false
}

// matchesNode is the NodeAffinity filter: nodeSelector and required node
// affinity, by component-helpers.
func matchesNode(p *corev1.Pod, n *corev1.Node) (bool, string) {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n)
	if err != nil {
		return false, fmt.Sprintf("node affinity error: %v", err)
	}
	if !ok {
		return false, fmt.Sprintf("node %s does not match nodeSelector %v / required node affinity", n.Name, p.Spec.NodeSelector)
	}
	return true, ""
}

var discard = logr.Discard()

func noScheduleOrExecute(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// untoleratedTaint returns a NoSchedule or NoExecute taint of n the pod does
// not tolerate, by component-helpers.
func untoleratedTaint(p *corev1.Pod, n *corev1.Node) (corev1.Taint, bool) {
	return schedhelper.FindMatchingUntoleratedTaint(discard, n.Spec.Taints, p.Spec.Tolerations, noScheduleOrExecute, false)
}

// requests is what the pod asks for, by component-helpers (init containers,
// sidecars, overhead and pod-level resources included), with zero entries
// dropped.
func requests(p *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for r, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
		if !q.IsZero() {
			out[r] = q.DeepCopy()
		}
	}
	return out
}

// usage sums requests and pod counts per node.
type usage map[string]corev1.ResourceList

func (u usage) add(node string, req corev1.ResourceList) {
	sum := u[node]
	if sum == nil {
		sum = corev1.ResourceList{corev1.ResourcePods: resource.Quantity{}}
		u[node] = sum
	}
	for r, q := range req {
		s := sum[r]
		s.Add(q)
		sum[r] = s
	}
	pods := sum[corev1.ResourcePods]
	pods.Add(*resource.NewQuantity(1, resource.DecimalSI))
	sum[corev1.ResourcePods] = pods
}

func get(l corev1.ResourceList, r corev1.ResourceName) resource.Quantity {
	if q, ok := l[r]; ok {
		return q.DeepCopy()
	}
	return resource.Quantity{}
}

// rat is the exact value of a quantity.
func rat(q resource.Quantity) *big.Rat {
	c := q.DeepCopy()
	r, ok := new(big.Rat).SetString(c.AsDec().String())
	if !ok {
		panic("kubejudge: quantity " + q.String() + " is not a decimal")
	}
	return r
}

func sortedResources(l corev1.ResourceList) []corev1.ResourceName {
	rs := make([]corev1.ResourceName, 0, len(l))
	for r := range l {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	return rs
}

// index is the lookup tables both Judge and FitUpperBound need, rebuilt
// from the exported fields on every call.
type index struct {
	nodes     map[string]*corev1.Node
	pods      map[string]*corev1.Pod
	podKeys   []string          // sorted keys of pods
	placed    map[string]string // running pod -> node, as in the snapshot
	pvcs      map[string]*corev1.PersistentVolumeClaim
	pvs       map[string]*corev1.PersistentVolume
	pvByClaim map[string]*corev1.PersistentVolume
	nsLabels  map[string]map[string]string
	reqs      map[string]corev1.ResourceList
	nodeOrder []string // sorted node names
}

func (c *Cluster) index() *index {
	ix := &index{
		nodes:     map[string]*corev1.Node{},
		pods:      map[string]*corev1.Pod{},
		placed:    map[string]string{},
		pvcs:      map[string]*corev1.PersistentVolumeClaim{},
		pvs:       map[string]*corev1.PersistentVolume{},
		pvByClaim: map[string]*corev1.PersistentVolume{},
		nsLabels:  map[string]map[string]string{},
		reqs:      map[string]corev1.ResourceList{},
	}
	for _, n := range c.Nodes {
		ix.nodes[n.Name] = n
		ix.nodeOrder = append(ix.nodeOrder, n.Name)
	}
	sort.Strings(ix.nodeOrder)
	for _, p := range c.Pods {
		k := PodKey(p)
		ix.pods[k] = p
		ix.podKeys = append(ix.podKeys, k)
		if IsRunning(p) {
			ix.placed[k] = p.Spec.NodeName
		}
	}
	sort.Strings(ix.podKeys)
	for _, pvc := range c.PersistentVolumeClaims {
		ix.pvcs[nsOrDefault(pvc.Namespace)+"/"+pvc.Name] = pvc
	}
	for _, pv := range c.PersistentVolumes {
		ix.pvs[pv.Name] = pv
		if r := pv.Spec.ClaimRef; r != nil {
			ix.pvByClaim[nsOrDefault(r.Namespace)+"/"+r.Name] = pv
		}
	}
	for _, ns := range c.Namespaces {
		ix.nsLabels[ns.Name] = ns.Labels
	}
	return ix
}

func (ix *index) requests(key string) corev1.ResourceList {
	if r, ok := ix.reqs[key]; ok {
		return r
	}
	r := requests(ix.pods[key])
	ix.reqs[key] = r
	return r
}

// usage sums the requests of the running pods at their nodes in place.
// Pods on nodes that do not exist are left out.
func (ix *index) usage(place map[string]string) usage {
	u := usage{}
	for k, node := range place {
		if _, ok := ix.nodes[node]; ok {
			u.add(node, ix.requests(k))
		}
	}
	return u
}

// boundPV is the PersistentVolume bound to the claim, if the files have it.
func (ix *index) boundPV(ns, claim string) *corev1.PersistentVolume {
	key := ns + "/" + claim
	if pvc := ix.pvcs[key]; pvc != nil && pvc.Spec.VolumeName != "" {
		if pv := ix.pvs[pvc.Spec.VolumeName]; pv != nil {
			return pv
		}
	}
	return ix.pvByClaim[key]
}

// volumeProblem returns why the pod's persistent volumes cannot follow it
// from node `from` to node `to`, or "".
func (ix *index) volumeProblem(p *corev1.Pod, from, to *corev1.Node) string {
	var why []string
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		claim := v.PersistentVolumeClaim.ClaimName
		if pv := ix.boundPV(nsOrDefault(p.Namespace), claim); pv != nil && pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required != nil {
			ok, err := nodeaffinity.NewLazyErrorNodeSelector(pv.Spec.NodeAffinity.Required).Match(to)
			if err != nil || !ok {
				why = append(why, fmt.Sprintf("claim %s: PV %s node affinity does not match %s", claim, pv.Name, to.Name))
			}
			continue
		}
		fz, fok := from.Labels[LabelZone]
		tz, tok := to.Labels[LabelZone]
		if fz != tz || fok != tok {
			why = append(why, fmt.Sprintf("claim %s: zone %q (%s) -> %q (%s)", claim, fz, from.Name, tz, to.Name))
		}
	}
	return strings.Join(why, "; ")
}

// namespaceMatcher is the set of namespaces a pod affinity term applies to:
// its namespaces plus those its namespaceSelector selects (an empty selector
// selects all), or the pod's own namespace when both are unset. Namespace
// labels come from Namespace objects in the files, plus the
// kubernetes.io/metadata.name label every namespace has.
func (ix *index) namespaceMatcher(p *corev1.Pod, term *corev1.PodAffinityTerm) func(string) bool {
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		own := nsOrDefault(p.Namespace)
		return func(ns string) bool { return ns == own }
	}
	names := map[string]bool{}
	for _, n := range term.Namespaces {
		names[n] = true
	}
	var sel labels.Selector = labels.Nothing()
	if term.NamespaceSelector != nil {
		if s, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector); err == nil {
			sel = s
		}
	}
	return func(ns string) bool {
		if names[ns] {
			return true
		}
		set := labels.Set{corev1.LabelMetadataName: ns}
		for k, v := range ix.nsLabels[ns] {
			set[k] = v
		}
		return sel.Matches(set)
	}
}

// selectorOf compiles an affinity term's label selector; nil or invalid
// selects nothing, as the scheduler does.
func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Nothing()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return s
}

// hostnameAntiAffinity returns the pod's required anti-affinity terms on
// topologyKey kubernetes.io/hostname.
func hostnameAntiAffinity(p *corev1.Pod) []corev1.PodAffinityTerm {
	a := p.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	var out []corev1.PodAffinityTerm
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey == corev1.LabelHostname {
			out = append(out, t)
		}
	}
	return out
}

func labelsOf(p *corev1.Pod) labels.Set { return labels.Set(p.Labels) }
