package k8sgen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// spreadRule is a DoNotSchedule topology spread constraint (PodTopologySpread
// filter, default policies: nodeAffinityPolicy Honor, nodeTaintsPolicy
// Ignore, no minDomains). The domains are the values of the topology key on
// the nodes that pass the pod's node affinity; a node is allowed when
//
//	count(domain of node) + self − min_{eligible domains} count ≤ maxSkew
//
// where count is the number of bound pods of the pod's namespace the
// selector matches on eligible nodes and self is 1 if it matches the pod.
type spreadRule struct {
	podSelector
	topologyKey string
	maxSkew     int
	self        int
	counts      map[string]int // per domain, set by prepare
	zoneCounts  []int          // per zone index instead, when the key is the zone
	min         int
}

func compileSpread(p *corev1.Pod) ([]*spreadRule, error) {
	var out []*spreadRule
	for _, c := range p.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue // ScheduleAnyway only scores
		}
		if c.MinDomains != nil || c.NodeTaintsPolicy != nil || c.NodeAffinityPolicy != nil || len(c.MatchLabelKeys) > 0 {
			return nil, fmt.Errorf("pod %s/%s: only default spread policies are simulated", p.Namespace, p.Name)
		}
		ps, err := compilePodSelector(c.LabelSelector, []string{p.Namespace})
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		r := &spreadRule{podSelector: ps, topologyKey: c.TopologyKey, maxSkew: int(c.MaxSkew)}
		if ps.sel.Matches(labels.Set(p.Labels)) {
			r.self = 1
		}
		out = append(out, r)
	}
	return out, nil
}

// prepare counts the matching pods per domain over the eligible nodes:
// from the cluster-wide zone index when every node is eligible, else node
// by node.
func (r *spreadRule) prepare(s *scheduler, st *staticResult) {
	r.counts, r.zoneCounts = nil, nil
	if r.topologyKey == corev1.LabelTopologyZone {
		r.zoneCounts = make([]int, len(s.zones))
		eligible := make([]bool, len(s.zones))
		if st.allAffinity && r.single && len(r.indexKeys) == 1 {
			copy(r.zoneCounts, s.zoneLabels[r.indexKeys[0]])
			for i := range eligible {
				eligible[i] = true
			}
		} else {
			for i, n := range s.nodes {
				if st.affinity[i] && n.zoneIndex >= 0 {
					eligible[n.zoneIndex] = true
					r.zoneCounts[n.zoneIndex] += r.count(n)
				}
			}
		}
		r.min = -1
		for z, c := range r.zoneCounts {
			if eligible[z] && (r.min < 0 || c < r.min) {
				r.min = c
			}
		}
		return
	}
	r.counts = map[string]int{}
	for i, n := range s.nodes {
		if !st.affinity[i] {
			continue
		}
		if d, ok := n.node.Labels[r.topologyKey]; ok {
			r.counts[d] += r.count(n)
		}
	}
	first := true
	for _, c := range r.counts {
		if first || c < r.min {
			r.min, first = c, false
		}
	}
}

func (r *spreadRule) allows(n *simNode) bool {
	if r.zoneCounts != nil {
		return n.zoneIndex >= 0 && r.zoneCounts[n.zoneIndex]+r.self-r.min <= r.maxSkew
	}
	d, ok := n.node.Labels[r.topologyKey]
	if !ok {
		return false
	}
	return r.counts[d]+r.self-r.min <= r.maxSkew
}
