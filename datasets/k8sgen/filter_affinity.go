package k8sgen

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// nodeSelector is a pod's nodeSelector and required node affinity: a node
// matches when it has every nodeSelector label and matches at least one
// term; a term matches when all its expressions and fields do.
type nodeSelector struct {
	labels map[string]string
	terms  []corev1.NodeSelectorTerm // nil: no required affinity
}

func compileNodeSelector(p *corev1.Pod) nodeSelector {
	s := nodeSelector{labels: p.Spec.NodeSelector}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		s.terms = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if s.terms == nil {
			s.terms = []corev1.NodeSelectorTerm{} // present but empty: matches nothing
		}
	}
	return s
}

// pinnedNode returns the node a DaemonSet pod's single matchFields term
// names (metadata.name In [node]), or "".
func (s nodeSelector) pinnedNode() string {
	if len(s.terms) != 1 || len(s.terms[0].MatchExpressions) != 0 || len(s.terms[0].MatchFields) != 1 {
		return ""
	}
	f := s.terms[0].MatchFields[0]
	if f.Key != metadataName || f.Operator != corev1.NodeSelectorOpIn || len(f.Values) != 1 {
		return ""
	}
	return f.Values[0]
}

const metadataName = "metadata.name"

func (s nodeSelector) matches(n *corev1.Node) bool {
	for k, v := range s.labels {
		if got, ok := n.Labels[k]; !ok || got != v {
			return false
		}
	}
	if s.terms == nil {
		return true
	}
	for _, t := range s.terms {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue // an empty term matches no node
		}
		if termMatches(t, n) {
			return true
		}
	}
	return false
}

func termMatches(t corev1.NodeSelectorTerm, n *corev1.Node) bool {
	for _, r := range t.MatchExpressions {
		v, ok := n.Labels[r.Key]
		if !requirementMatches(r, v, ok) {
			return false
		}
	}
	for _, r := range t.MatchFields {
		if r.Key != metadataName || !requirementMatches(r, n.Name, true) {
			return false
		}
	}
	return true
}

// requirementMatches applies one operator to a node's value (ok: present).
func requirementMatches(r corev1.NodeSelectorRequirement, v string, ok bool) bool {
	in := func() bool {
		for _, x := range r.Values {
			if x == v {
				return true
			}
		}
		return false
	}
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return ok && in()
	case corev1.NodeSelectorOpNotIn:
		return !ok || !in()
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return a > b
		}
		return a < b
	}
	return false
}
