package k8s

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
)

// Node label keys Load reads.
const (
	labelHostname          = "kubernetes.io/hostname"
	labelZone              = "topology.kubernetes.io/zone"
	labelZoneBeta          = "failure-domain.beta.kubernetes.io/zone"
	labelRegion            = "topology.kubernetes.io/region"
	labelRegionBeta        = "failure-domain.beta.kubernetes.io/region"
	labelInstanceType      = "node.kubernetes.io/instance-type"
	labelInstanceTypeBeta  = "beta.kubernetes.io/instance-type"
	annotationMirror       = "kubernetes.io/config.mirror"
	labelPodTemplateHash   = "pod-template-hash"
	ownerKindNode          = "Node"
	ownerKindBarePod       = "Pod"
	namespaceMetadataLabel = "kubernetes.io/metadata.name"
)

// buildNodes converts the nodes read, drops duplicates and collects the
// distinct NoSchedule/NoExecute taints.
func (l *loader) buildNodes() error {
	objs, k8s := l.nodeObjs, l.nodeK8s
	l.nodeK8s = nil
	for i, n := range k8s {
		o := objs[i]
		if j, ok := l.nodeByName[n.Name]; ok {
			first := l.nodeK8s[j]
			if first.UID != n.UID {
				return o.fail("metadata.uid", fmt.Errorf("%w: node %s is also in %s with UID %q, here %q",
					ErrDuplicate, n.Name, l.nodes[j].Source, first.UID, n.UID))
			}
			l.warn.add(WarnDuplicate, o.source(), "Node "+n.Name,
				"same node (UID "+string(n.UID)+") as in "+l.nodes[j].Source+"; kept the first")
			continue
		}
		l.nodeByName[n.Name] = len(l.nodes)
		l.nodes = append(l.nodes, l.convertNode(o, n))
		l.nodeK8s = append(l.nodeK8s, n)
	}
	l.nodeObjs = nil
	seen := map[string]bool{}
	for _, n := range l.nodeK8s {
		for _, t := range placementTaints(n) {
			if !placementTaint(&t) {
				continue
			}
			if k := taintString(t); !seen[k] {
				seen[k] = true
				l.taints = append(l.taints, t)
			}
		}
	}
	l.report.Nodes = len(l.nodes)
	return nil
}

// convertNode converts one node and warns of a missing or too large
// allocatable.
func (l *loader) convertNode(o *rawObject, n *corev1.Node) Node {
	labels := n.Labels
	node := Node{
		Object:        n,
		Name:          n.Name,
		Source:        o.source(),
		Zone:          firstLabel(labels, labelZone, labelZoneBeta),
		Region:        firstLabel(labels, labelRegion, labelRegionBeta),
		Pool:          firstLabel(labels, PoolLabels...),
		InstanceType:  firstLabel(labels, labelInstanceType, labelInstanceTypeBeta),
		Labels:        labels,
		Capacity:      toResources(n.Status.Capacity),
		Taints:        n.Spec.Taints,
		Unschedulable: n.Spec.Unschedulable,
		Ready:         nodeReady(n),
	}
	object := "Node " + n.Name
	if len(n.Status.Allocatable) == 0 {
		node.Allocatable = toResources(n.Status.Capacity)
		l.warn.add(WarnNoAllocatable, o.source(), object, "no status.allocatable; using status.capacity")
	} else {
		node.Allocatable = toResources(n.Status.Allocatable)
		if over := exceedsCapacity(n.Status.Allocatable, n.Status.Capacity); over != "" {
			l.warn.add(WarnAllocatableExceedsCapacity, o.source(), object,
				"allocatable exceeds capacity: "+over+"; kept allocatable as stated")
		}
	}
	if node.Unschedulable {
		l.report.NodesUnschedulable++
	}
	if !node.Ready {
		l.report.NodesNotReady++
	}
	return node
}

// nodeReady is false only when the node has a Ready condition that is not
// True: a manifest without conditions counts as Ready.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

// firstLabel is the value of the first of keys that labels holds, or "".
func firstLabel(labels map[string]string, keys ...string) string {
	for _, k := range keys {
		if v, ok := labels[k]; ok {
			return v
		}
	}
	return ""
}

// unschedulableTaint is the taint kube-scheduler's NodeUnschedulable filter
// reads a cordoned node (spec.unschedulable) as: a pod that does not
// tolerate it stays off.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// placementTaints are the taints that decide which pods a node takes: its
// own and, on a cordoned node, unschedulableTaint (the API server adds it
// too; a hand-written manifest may not have it). A not-Ready node keeps
// pods off through the node.kubernetes.io/not-ready taint its controller
// sets, as kube-scheduler sees it; the Ready condition itself decides
// nothing there.
func placementTaints(n *corev1.Node) []corev1.Taint {
	if !n.Spec.Unschedulable {
		return n.Spec.Taints
	}
	for _, t := range n.Spec.Taints {
		if t.Key == unschedulableTaint.Key && t.Effect == unschedulableTaint.Effect {
			return n.Spec.Taints
		}
	}
	return append(slices.Clone(n.Spec.Taints), unschedulableTaint)
}

// placementTaint reports whether a taint keeps pods off its node: effect
// NoSchedule or NoExecute (PreferNoSchedule only scores).
func placementTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// taintString is key=value:Effect, or key:Effect without a value.
func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// UntoleratedTaint is the first taint of node that keeps a pod with
// tolerations off it — a NoSchedule or NoExecute taint none of them
// tolerates, the cordon's node.kubernetes.io/unschedulable included — as
// ingest decides its "tolerated" node sets (kube-scheduler's
// TaintToleration, through component-helpers).
func UntoleratedTaint(node *corev1.Node, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return schedcorev1.FindMatchingUntoleratedTaint(discardLogger, placementTaints(node), tolerations, placementTaint, enableTaintComparison)
}
