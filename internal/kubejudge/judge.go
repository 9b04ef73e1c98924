package kubejudge

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// Move moves one running pod, named "namespace/name", from node From (its
// node in the snapshot, or where an earlier move of the same plan put it) to
// node To.
type Move struct{ Pod, From, To string }

// Plan is what `whatif drain` and `whatif migrate` propose: pod moves,
// applied in order, and the nodes the plan deletes.
type Plan struct {
	Moves   []Move
	Removed []string
	// Binds are the Pending pods the plan places (spec.nodeName empty,
	// phase neither Succeeded nor Failed), each on node To where the plan
	// leaves it.
	Binds []Bind
}

// Bind places one Pending pod, "namespace/name", on node To.
type Bind struct{ Pod, To string }

// Violation is one broken rule. Pod is "namespace/name" or "" for a rule
// about a node; Node is the node concerned (a move's destination, an
// over-full or removed node) or "".
type Violation struct{ Kind, Pod, Node, Detail string }

func (v Violation) String() string {
	return fmt.Sprintf("%s pod=%q node=%q: %s", v.Kind, v.Pod, v.Node, v.Detail)
}

// Violation kinds.
const (
	KindPinnedMoved           = "pinned_moved"
	KindUnknown               = "unknown"
	KindAffinity              = "affinity"
	KindTaint                 = "taint"
	KindVolumeZone            = "volume_zone"
	KindOverAllocatable       = "over_allocatable"
	KindOverAllocatableBefore = "over_allocatable_before"
	KindRemovedNodePods       = "removed_node_pods"
	KindUnschedulableTarget   = "unschedulable_target"
	KindAntiAffinity          = "anti_affinity"
)

// Judge applies the plan to the running pods of the snapshot (spec.nodeName
// set, phase neither Succeeded nor Failed) and returns every violation,
// sorted by Kind, Pod, Node, then Detail. A clean plan returns nil.
//
// Binds are applied first, each checked at its node as a move is (the
// volume rule by the bound PV's node affinity only: the pod has no node of
// its own); a bind of a pod that is not Pending is "unknown".
//
// Moves are applied in order. A move is not applied when it is "unknown"
// (no such pod, the pod is not running, From or To is not a node, or From
// is not the pod's current node) or "pinned_moved" (DaemonSet or static
// pod); a move with To equal to From is a no-op. Every applied move is
// checked at its destination: "affinity" (nodeSelector and required node
// affinity), "taint" (an untolerated NoSchedule/NoExecute taint),
// "unschedulable_target" (spec.unschedulable) and "volume_zone" (a
// persistentVolumeClaim volume whose bound PV's node affinity rejects the
// destination, or, without such a PV in the files, a destination whose
// topology.kubernetes.io/zone label differs from the pod's node in the
// snapshot).
//
// After all moves: "removed_node_pods" for each non-DaemonSet, non-static
// running pod left on a removed node (a removed name that is not a node is
// "unknown"); "over_allocatable" for each node not removed and each
// resource (cpu, memory, ephemeral-storage, extended resources, the pod
// count against allocatable pods) whose summed PodRequests exceed
// status.allocatable (a resource the node does not list counts as 0) and
// that the plan raised above its snapshot sum, "over_allocatable_before"
// when such a node is over but the plan did not raise that resource;
// "anti_affinity" for each pod with a required podAntiAffinity term on
// kubernetes.io/hostname that shares its node with a pod the term selects,
// where at least one of the two moved.
func (c *Cluster) Judge(p Plan) []Violation {
	ix := c.index()
	var out []Violation
	add := func(kind, pod, node, format string, a ...any) {
		out = append(out, Violation{Kind: kind, Pod: pod, Node: node, Detail: fmt.Sprintf(format, a...)})
	}

	removed := map[string]bool{}
	for _, name := range p.Removed {
		if _, ok := ix.nodes[name]; !ok {
			if !removed[name] {
				add(KindUnknown, "", name, "removed node %q does not exist", name)
			}
		}
		removed[name] = true
	}

	place := make(map[string]string, len(ix.placed))
	for k, n := range ix.placed {
		place[k] = n
	}
	moved := map[string]bool{}
	// atTarget checks pod at its destination to, its volumes where they
	// are (orig): the rules a move and a bind both keep.
	atTarget := func(key string, pod *corev1.Pod, orig, to *corev1.Node) {
		if ok, why := matchesNode(pod, to); !ok {
			add(KindAffinity, key, to.Name, "%s", why)
		}
		if t, bad := untoleratedTaint(pod, to); bad {
			add(KindTaint, key, to.Name, "untolerated taint %s", t.ToString())
		}
		if to.Spec.Unschedulable {
			add(KindUnschedulableTarget, key, to.Name, "node %s is cordoned (spec.unschedulable)", to.Name)
		}
		if why := ix.volumeProblem(pod, orig, to); why != "" {
			add(KindVolumeZone, key, to.Name, "%s", why)
		}
	}
	// Binds: each checked at its node as a move is.
	for i, b := range p.Binds {
		pod := ix.pods[b.Pod]
		if pod == nil {
			add(KindUnknown, b.Pod, b.To, "bind %d: no pod %q", i, b.Pod)
			continue
		}
		if _, running := place[b.Pod]; running || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			add(KindUnknown, b.Pod, b.To, "bind %d: pod is not Pending (phase %q, nodeName %q)", i, pod.Status.Phase, pod.Spec.NodeName)
			continue
		}
		to := ix.nodes[b.To]
		if to == nil {
			add(KindUnknown, b.Pod, b.To, "bind %d: node %q does not exist", i, b.To)
			continue
		}
		atTarget(b.Pod, pod, to, to)
		place[b.Pod] = b.To
		moved[b.Pod] = true
	}
	for i, m := range p.Moves {
		pod := ix.pods[m.Pod]
		if pod == nil {
			add(KindUnknown, m.Pod, m.To, "move %d: no pod %q", i, m.Pod)
			continue
		}
		cur, running := place[m.Pod]
		if !running {
			add(KindUnknown, m.Pod, m.To, "move %d: pod is not running (phase %q, nodeName %q)", i, pod.Status.Phase, pod.Spec.NodeName)
			continue
		}
		if m.From != cur {
			add(KindUnknown, m.Pod, m.To, "move %d: From %q but the pod is on %q", i, m.From, cur)
			continue
		}
		from := ix.nodes[m.From]
		if from == nil {
			add(KindUnknown, m.Pod, m.To, "move %d: From node %q does not exist", i, m.From)
			continue
		}
		to := ix.nodes[m.To]
		if to == nil {
			add(KindUnknown, m.Pod, m.To, "move %d: To node %q does not exist", i, m.To)
			continue
		}
		if m.To == m.From {
			continue
		}
		if IsPinned(pod) {
			add(KindPinnedMoved, m.Pod, m.To, "move %d: %s pod moved from %s", i, pinnedWhat(pod), m.From)
			continue
		}
		orig := ix.nodes[ix.placed[m.Pod]] // where the pod's volumes are
		if orig == nil {
			orig = from
		}
		atTarget(m.Pod, pod, orig, to)
		place[m.Pod] = m.To
		moved[m.Pod] = true
	}

	// Pods left on removed nodes.
	for _, k := range ix.podKeys {
		if n, ok := place[k]; ok && removed[n] && !IsPinned(ix.pods[k]) {
			add(KindRemovedNodePods, k, n, "pod still on removed node %s", n)
		}
	}

	// Capacity, node by node.
	before, after := ix.usage(ix.placed), ix.usage(place)
	for _, name := range ix.nodeOrder {
		if removed[name] {
			continue
		}
		alloc := ix.nodes[name].Status.Allocatable
		for _, r := range sortedResources(after[name]) {
			used := after[name][r]
			if used.IsZero() {
				continue
			}
			a := get(alloc, r)
			if used.Cmp(a) <= 0 {
				continue
			}
			was := get(before[name], r)
			kind := KindOverAllocatable
			if used.Cmp(was) <= 0 {
				kind = KindOverAllocatableBefore
			}
			_, listed := alloc[r]
			add(kind, "", name, "%s requested %s > allocatable %s%s (snapshot %s)", r, used.String(), a.String(), unlisted(listed), was.String())
		}
	}

	// Hostname anti-affinity after the plan, for pairs with a moved pod.
	onNode := map[string][]string{}
	for _, k := range ix.podKeys {
		if n, ok := place[k]; ok {
			onNode[n] = append(onNode[n], k)
		}
	}
	for _, name := range sortedKeys(onNode) {
		ks := onNode[name]
		for _, pk := range ks {
			pod := ix.pods[pk]
			terms := hostnameAntiAffinity(pod)
			for _, qk := range ks {
				if qk == pk || !(moved[pk] || moved[qk]) {
					continue
				}
				q := ix.pods[qk]
				for ti := range terms {
					t := &terms[ti]
					if ix.namespaceMatcher(pod, t)(nsOrDefault(q.Namespace)) && selectorOf(t.LabelSelector).Matches(labelsOf(q)) {
						add(KindAntiAffinity, pk, name, "shares node %s with %s, which its required anti-affinity term %d selects", name, qk, ti)
						break
					}
				}
			}
		}
	}

	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Pod != b.Pod {
			return a.Pod < b.Pod
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		return a.Detail < b.Detail
	})
	return out
}

func pinnedWhat(p *corev1.Pod) string {
	if IsDaemonSetPod(p) {
		return "DaemonSet"
	}
	return "static"
}

func unlisted(listed bool) string {
	if listed {
		return ""
	}
	return " (not in allocatable)"
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
