package k8s

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// enableTaintComparison is off: tolerations with the operators Gt and Lt
// belong to an alpha feature gate (TaintTolerationComparisonOperators) that
// a default scheduler does not honour, so they tolerate nothing.
const enableTaintComparison = false

// discardLogger receives the toleration helpers' log lines (a Gt/Lt value
// that is not an integer); Load reports through its Report instead.
var discardLogger = logr.Discard()

// nodeSet returns the index of the NodeSet of kind and key, creating it
// with the nodes in for which the first time; -1 when every node is in.
func (l *loader) nodeSet(kind, key string, in func(i int) (bool, error)) (int, error) {
	k := kind + "\x00" + key
	if i, ok := l.setByKey[k]; ok {
		return i, nil
	}
	nodes := []int{}
	for i := range l.nodes {
		ok, err := in(i)
		if err != nil {
			return 0, err
		}
		if ok {
			nodes = append(nodes, i)
		}
	}
	i := -1
	if len(nodes) < len(l.nodes) {
		i = len(l.sets)
		l.sets = append(l.sets, NodeSet{Kind: kind, Key: key, Nodes: nodes})
	}
	l.setByKey[k] = i
	return i, nil
}

// affinitySet is the pod's NodeSet of kind "affinity": its own node for a
// Pinned pod with a known node ("pinned to NODE"), else the nodes that
// nodeSelector and required node affinity allow
// (GetRequiredNodeAffinity(pod).Match).
func (l *loader) affinitySet(pod *Pod, e *podEntry) (int, error) {
	if pod.Pinned && e.pinNode != "" {
		return l.nodeSet(SetAffinity, "pinned to "+e.pinNode, func(i int) (bool, error) {
			return l.nodes[i].Name == e.pinNode, nil
		})
	}
	key := affinityKey(e.pod)
	zone, zoned := l.volumeZone(pod, e)
	if zoned {
		if key != "" {
			key += "; "
		}
		key += VolumeZonePrefix + zone
	}
	if key == "" {
		return -1, nil
	}
	required, err := requiredAffinity(e)
	if err != nil {
		return 0, err
	}
	return l.nodeSet(SetAffinity, key, func(i int) (bool, error) {
		if zoned && l.nodes[i].Zone != zone {
			return false, nil
		}
		ok, err := required.Match(l.nodeK8s[i])
		if err != nil {
			return false, e.obj.fail(e.specPath+".affinity.nodeAffinity", fmt.Errorf("%w: %v", ErrMalformed, err))
		}
		return ok, nil
	})
}

// VolumeZonePrefix starts the part of an affinity set's description that
// keeps a pod with a persistentVolumeClaim in its volume's zone.
const VolumeZonePrefix = "volume zone "

// volumeZone is the zone a pod's persistent volumes hold it to: a pod bound
// to a node of a zone (topology.kubernetes.io/zone) with a
// persistentVolumeClaim volume has its claims bound to volumes in that
// zone — a zonal disk (EBS, PD, Azure Disk) provisioned where the pod first
// ran (WaitForFirstConsumer) or whose PersistentVolume's node affinity names
// that zone — and kube-scheduler's VolumeBinding and VolumeZone filters keep
// it there. A pod not yet bound, or on a node without a zone label, is not
// held (its volume is provisioned where it lands, or the cluster has one
// zone).
func (l *loader) volumeZone(pod *Pod, e *podEntry) (string, bool) {
	if pod.Node < 0 || l.nodes[pod.Node].Zone == "" || !hasClaim(e.pod) {
		return "", false
	}
	return l.nodes[pod.Node].Zone, true
}

// hasClaim reports whether a pod mounts a persistentVolumeClaim.
func hasClaim(p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// requiredAffinity is the pod's nodeSelector and required node affinity,
// its terms checked first so that an error names the field.
func requiredAffinity(e *podEntry) (nodeaffinity.RequiredNodeAffinity, error) {
	if ns := requiredNodeSelector(e.pod); ns != nil {
		path := jsonPath(e.specPath).Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
		if _, err := nodeaffinity.NewNodeSelector(ns, field.WithPath(path)); err != nil {
			if agg, ok := err.(interface{ Errors() []error }); ok && len(agg.Errors()) > 0 {
				err = agg.Errors()[0]
			}
			var fe *field.Error
			if errors.As(err, &fe) {
				return nodeaffinity.RequiredNodeAffinity{}, e.obj.fail(fe.Field, fmt.Errorf("%w: %s", ErrMalformed, fe.ErrorBody()))
			}
			return nodeaffinity.RequiredNodeAffinity{}, e.obj.fail(path.String(), fmt.Errorf("%w: %v", ErrMalformed, err))
		}
	}
	return nodeaffinity.GetRequiredNodeAffinity(e.pod), nil
}

func requiredNodeSelector(p *corev1.Pod) *corev1.NodeSelector {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// jsonPath turns "spec.template.spec" into a field.Path.
func jsonPath(s string) *field.Path {
	parts := strings.Split(s, ".")
	return field.NewPath(parts[0], parts[1:]...)
}

// affinityKey describes nodeSelector and required node affinity
// canonically (pairs, values, requirements and terms sorted), e.g.
// "nodeSelector disktype=ssd; nodeAffinity zone in (a,b)"; "" when the pod
// has neither.
func affinityKey(p *corev1.Pod) string {
	var parts []string
	if len(p.Spec.NodeSelector) > 0 {
		var pairs []string
		for _, k := range sortedKeys(p.Spec.NodeSelector) {
			pairs = append(pairs, k+"="+p.Spec.NodeSelector[k])
		}
		parts = append(parts, "nodeSelector "+strings.Join(pairs, ","))
	}
	if ns := requiredNodeSelector(p); ns != nil {
		var terms []string
		for _, t := range ns.NodeSelectorTerms {
			var reqs []string
			for _, r := range t.MatchExpressions {
				reqs = append(reqs, requirementString(r))
			}
			for _, r := range t.MatchFields {
				reqs = append(reqs, "field "+requirementString(r))
			}
			slices.Sort(reqs)
			if len(reqs) == 0 {
				reqs = []string{"(empty term: no node)"}
			}
			terms = append(terms, strings.Join(reqs, " AND "))
		}
		slices.Sort(terms)
		terms = slices.Compact(terms)
		if len(terms) > 1 {
			for i := range terms {
				terms[i] = "(" + terms[i] + ")"
			}
		}
		if len(terms) == 0 {
			terms = []string{"(no terms: no node)"}
		}
		parts = append(parts, "nodeAffinity "+strings.Join(terms, " OR "))
	}
	return strings.Join(parts, "; ")
}

// requirementString writes a node selector requirement as a label
// selector would: "k in (a,b)", "k notin (a)", "k", "!k", "k>3", "k<3".
func requirementString(r corev1.NodeSelectorRequirement) string {
	values := slices.Clone(r.Values)
	slices.Sort(values)
	list := "(" + strings.Join(values, ",") + ")"
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return r.Key + " in " + list
	case corev1.NodeSelectorOpNotIn:
		return r.Key + " notin " + list
	case corev1.NodeSelectorOpExists:
		return r.Key
	case corev1.NodeSelectorOpDoesNotExist:
		return "!" + r.Key
	case corev1.NodeSelectorOpGt:
		return r.Key + ">" + strings.Join(values, ",")
	case corev1.NodeSelectorOpLt:
		return r.Key + "<" + strings.Join(values, ",")
	}
	return r.Key + " " + string(r.Operator) + " " + list
}

// toleratedSet is the pod's NodeSet of kind "tolerated": the nodes where
// FindMatchingUntoleratedTaint finds no NoSchedule/NoExecute taint the pod
// leaves untolerated. Its key names the cluster's taints the pod tolerates,
// e.g. "tolerates nvidia.com/gpu=present:NoSchedule", so pods tolerating
// the same taints share a set. -1 for a Pinned pod (see Pod.Tolerated).
func (l *loader) toleratedSet(pod *Pod, e *podEntry) (int, error) {
	if pod.Pinned || len(l.taints) == 0 {
		return -1, nil
	}
	tolerations := e.pod.Spec.Tolerations
	var names []string
	for i := range l.taints {
		if schedcorev1.TolerationsTolerateTaint(discardLogger, tolerations, &l.taints[i], enableTaintComparison) {
			names = append(names, taintString(l.taints[i]))
		}
	}
	slices.Sort(names)
	key := "tolerates no taints"
	if len(names) > 0 {
		key = "tolerates " + strings.Join(names, ", ")
	}
	return l.nodeSet(SetTolerated, key, func(i int) (bool, error) {
		_, untolerated := schedcorev1.FindMatchingUntoleratedTaint(discardLogger, placementTaints(l.nodeK8s[i]), tolerations,
			placementTaint, enableTaintComparison)
		return !untolerated, nil
	})
}
