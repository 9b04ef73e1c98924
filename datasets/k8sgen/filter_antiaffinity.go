package k8sgen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// podSelector is a label selector over pods of some namespaces, with an index
// key when it is a single matchLabels pair (the common case, answered from a
// node's label counts instead of a scan of its pods).
type podSelector struct {
	namespaces []string
	sel        labels.Selector
	key, value string   // set when single
	indexKeys  []string // labelKey(ns, key, value) per namespace, when single
	single     bool
}

func compilePodSelector(ls *metav1.LabelSelector, namespaces []string) (podSelector, error) {
	ps := podSelector{namespaces: namespaces}
	if ls == nil {
		ps.sel = labels.Nothing()
		return ps, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return ps, err
	}
	ps.sel = sel
	if len(ls.MatchLabels) == 1 && len(ls.MatchExpressions) == 0 {
		for k, v := range ls.MatchLabels {
			ps.key, ps.value, ps.single = k, v, true
			for _, ns := range namespaces {
				ps.indexKeys = append(ps.indexKeys, labelKey(ns, k, v))
			}
		}
	}
	return ps, nil
}

// count returns how many bound pods of the node the selector matches.
func (ps *podSelector) count(n *simNode) int {
	c := 0
	if ps.single {
		for _, k := range ps.indexKeys {
			c += n.podLabels[k]
		}
		return c
	}
	for _, ns := range ps.namespaces {
		for _, q := range n.pods {
			if q.pod.Namespace == ns && ps.sel.Matches(labels.Set(q.pod.Labels)) {
				c++
			}
		}
	}
	return c
}

// matchesPod reports whether the selector selects the pod.
func (ps *podSelector) matchesPod(p *corev1.Pod) bool {
	for _, ns := range ps.namespaces {
		if ns != p.Namespace {
			continue
		}
		if ps.single {
			v, ok := p.Labels[ps.key]
			return ok && v == ps.value
		}
		return ps.sel.Matches(labels.Set(p.Labels))
	}
	return false
}

// antiTerm is a required pod anti-affinity term on kubernetes.io/hostname:
// no two pods on one node where one's term selects the other.
type antiTerm struct{ podSelector }

func compileAntiAffinity(p *corev1.Pod) ([]*antiTerm, error) {
	a := p.Spec.Affinity
	if a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		return nil, fmt.Errorf("pod %s/%s: required pod affinity is not simulated", p.Namespace, p.Name)
	}
	if a == nil || a.PodAntiAffinity == nil {
		return nil, nil
	}
	var out []*antiTerm
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey != corev1.LabelHostname || t.NamespaceSelector != nil {
			return nil, fmt.Errorf("pod %s/%s: only hostname anti-affinity without a namespace selector is simulated", p.Namespace, p.Name)
		}
		ns := t.Namespaces
		if len(ns) == 0 {
			ns = []string{p.Namespace}
		}
		ps, err := compilePodSelector(t.LabelSelector, ns)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		out = append(out, &antiTerm{ps})
	}
	return out, nil
}

// blockNodes finds the nodes where a single-label term forbids the pod: a
// node holding a pod the pod's own term selects, or holding a pod whose term
// selects the pod (kube-scheduler checks both directions).
func (s *scheduler) blockNodes(p *simPod) {
	p.blocked = nil
	add := func(nodes map[int32]int) {
		for i, c := range nodes {
			if c > 0 {
				if p.blocked == nil {
					p.blocked = map[int32]bool{}
				}
				p.blocked[i] = true
			}
		}
	}
	for _, t := range p.anti {
		for _, k := range t.indexKeys {
			add(s.labelNodes[k])
		}
	}
	for k, v := range p.pod.Labels {
		add(s.termNodes[labelKey(p.pod.Namespace, k, v)])
	}
}

// antiAffinityConflict reports whether placing the pod on the node breaks a
// required anti-affinity term that is not single-label (blockNodes covers
// those): the pod's own, or a bound pod's that selects it.
func (s *scheduler) antiAffinityConflict(n *simNode, p *simPod) bool {
	for _, t := range p.anti {
		if !t.single && t.count(n) > 0 {
			return true
		}
	}
	if s.complexTerms > 0 {
		for _, t := range n.antiTerms {
			if t.matchesPod(p.pod) {
				return true
			}
		}
	}
	return false
}
