package k8s

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
)

// podEntry keeps, beside a Pod of the cluster, what its constraints are
// computed from.
type podEntry struct {
	obj      *rawObject
	specPath string // JSON path of the pod spec in obj: "spec", or "spec.template.spec" for a replica
	pod      *corev1.Pod
	pinNode  string // the node a Pinned pod stays on; "" when unknown
}

// seenPod is the first pod of a namespace/name read.
type seenPod struct {
	uid    types.UID
	source string
}

// buildPods converts the pods of the input: drops duplicates, counts the
// finished ones, resolves owners and nodes, and records which workloads
// have pods (those are not expanded).
func (l *loader) buildPods() error {
	l.withPods = map[objKey]bool{}
	for i, p := range l.podK8s {
		o := l.podObjs[i]
		key := objKey{kindPod, p.Namespace, p.Name}
		if first, ok := l.seenPods[key]; ok {
			if first.uid != p.UID {
				return o.fail("metadata.uid", fmt.Errorf("%w: pod %s is also in %s with UID %q, here %q",
					ErrDuplicate, objectName(p.Namespace, p.Name), first.source, first.uid, p.UID))
			}
			l.warn.add(WarnDuplicate, o.source(), "Pod "+objectName(p.Namespace, p.Name),
				"same pod (UID "+string(p.UID)+") as in "+first.source+"; kept the first")
			continue
		}
		l.seenPods[key] = seenPod{p.UID, o.source()}
		phase := p.Status.Phase
		if phase == "" {
			phase = corev1.PodPending // a manifest
		}
		ownerKind, ownerName, direct := l.podOwner(p, l.withPods)
		switch phase {
		case corev1.PodSucceeded:
			l.report.PodsSucceeded++
			continue
		case corev1.PodFailed:
			l.report.PodsFailed++
			continue
		case corev1.PodRunning, corev1.PodPending:
		default:
			l.warn.count(string(phase), WarnSkippedPhase, o.source(), "Pod "+objectName(p.Namespace, p.Name),
				"", " pod(s) of phase "+string(phase)+" left out")
			continue
		}
		pod, e := l.newPod(o, "spec", p, phase)
		pod.OwnerKind, pod.OwnerName = ownerKind, ownerName
		pod.Tenant = tenant(p.Namespace, ownerKind, ownerName, p.Name)
		switch {
		case ownerKind == ownerKindNode:
			pod.Pinned, e.pinNode = true, ownerName
		case direct == kindDaemonSet:
			pod.Pinned = true
			if e.pinNode = p.Spec.NodeName; e.pinNode == "" {
				e.pinNode = matchFieldsNode(p)
			}
		}
		pod.NodeName = p.Spec.NodeName
		pod.Created = p.CreationTimestamp.Time
		if !pod.Created.IsZero() {
			pod.Created = pod.Created.UTC() // metav1.Time reads into local time
		}
		if pod.NodeName != "" {
			if j, ok := l.nodeByName[pod.NodeName]; ok {
				pod.Node = j
			} else {
				l.warn.count(pod.NodeName, WarnUnknownNode, o.source(), "Node "+pod.NodeName,
					"", " pod(s) bound to node "+pod.NodeName+", which is not in the input; treated as unbound")
			}
		}
		l.pods, l.entries = append(l.pods, pod), append(l.entries, e)
	}
	l.podObjs, l.podK8s = nil, nil
	return nil
}

// newPod converts what a pod of the input and a replica share; the caller
// sets owner, tenant, node and pin.
func (l *loader) newPod(o *rawObject, specPath string, p *corev1.Pod, phase corev1.PodPhase) (Pod, podEntry) {
	req := toResources(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	req.Pods = 1
	pod := Pod{
		Namespace:         p.Namespace,
		Name:              p.Name,
		UID:               string(p.UID),
		Source:            o.source(),
		Phase:             phase,
		Requests:          req,
		Priority:          deref(p.Spec.Priority, 0),
		PriorityClassName: p.Spec.PriorityClassName,
		Node:              -1,
		Affinity:          -1,
		Tolerated:         -1,
		Object:            p,
	}
	return pod, podEntry{obj: o, specPath: specPath, pod: p}
}

// podOwner is a pod's top-level owner (see Pod.OwnerKind) and the kind of
// its direct controller; it marks the workloads the pod belongs to in via.
func (l *loader) podOwner(p *corev1.Pod, via map[objKey]bool) (kind, name, direct string) {
	ref := controllerOf(p.OwnerReferences)
	if _, mirror := p.Annotations[annotationMirror]; mirror || (ref != nil && ref.Kind == ownerKindNode) {
		name = p.Spec.NodeName
		if ref != nil && ref.Kind == ownerKindNode {
			name = ref.Name
		}
		return ownerKindNode, name, ownerKindNode
	}
	if ref == nil {
		return "", "", ""
	}
	kind, name = l.topOwner(p.Namespace, ref.Kind, ref.Name, p.Labels, via)
	return kind, name, ref.Kind
}

// tenant is namespace/OwnerKind/OwnerName, or namespace/Pod/name for a bare pod.
func tenant(namespace, ownerKind, ownerName, podName string) string {
	if ownerKind == "" {
		return namespace + "/" + ownerKindBarePod + "/" + podName
	}
	return namespace + "/" + ownerKind + "/" + ownerName
}

// matchFieldsNode is the node a DaemonSet pod is pinned to by the required
// node affinity the DaemonSet controller gives it (one term, matchFields
// metadata.name In [node]); "" when the pod has no such pin.
func matchFieldsNode(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	node := ""
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key != fieldNodeName || r.Operator != corev1.NodeSelectorOpIn || len(r.Values) != 1 {
				continue
			}
			if node != "" && node != r.Values[0] {
				return "" // terms pin different nodes: not a DaemonSet pin
			}
			node = r.Values[0]
		}
	}
	return node
}

// fieldNodeName is the node field a node selector term can match.
const fieldNodeName = "metadata.name"
