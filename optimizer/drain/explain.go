package drain

import (
	"fmt"
	"strings"
)

// Reason counts the other nodes one rule excludes.
type Reason struct {
	Code   string // a Reason* constant; "short of <dim>" per dimension
	Count  int
	Detail string
}

// Why explains whether one node can be drained on the current placement.
type Why struct {
	Node      int
	Drainable bool
	Moves     []Move // when Drainable
	Pod       int    // the pod with nowhere to go (when !Drainable), -1 if none
	// Reasons count, per rule, the other nodes excluded for Pod: each node
	// under the first rule that excludes it, so the counts add up to
	// len(Nodes) − 1.
	Reasons []Reason
	Nearest int       // the node excluded only for capacity that is short by the least, -1 if none
	Short   []float64 // Nearest's shortfall per dimension: max(0, Demand − free)
	Text    string    // one paragraph a user reads
}

// Explain explains why node n cannot be drained on the current placement,
// every other node as it is now. It simulates what Greedy would try first:
// n's pods, largest first (size Σ_k Demand_k / max Free_k, ties by index),
// each to the first node in index order that admits it, the earlier ones
// placed before the later are tried, so n's pods compete for room. If all
// find a node, n is Drainable and Moves says where they go. Otherwise Pod
// is the first pod with nowhere to go and Reasons says why each other
// node refuses it, tested in the order affinity, taint, update domain,
// unschedulable, anti-affinity, topology spread, fault domain, short of
// <dim>; Nearest is the node
// refused only for capacity whose shortfall Σ_k max(0, Demand_k − free_k)
// / max Free_k is least. A node that is not Removable is reported as such,
// with Drainable false and Pod -1.
//
// Explain panics if Validate(p) fails or n is out of range.
func Explain(p *Problem, n int) *Why {
	mustValidate(p)
	if n < 0 || n >= len(p.Nodes) {
		panic(fmt.Sprintf("drain: Explain: node %d out of range [0,%d)", n, len(p.Nodes)))
	}
	m := compile(p)
	w := &Why{Node: n, Pod: -1, Nearest: -1}
	name := p.Nodes[n].Name
	if !p.Nodes[n].Removable {
		w.Text = fmt.Sprintf("Node %s is not removable: the plan keeps it whatever its pods.", name)
		return w
	}
	s := m.newState(identity(m.n), false, -1, &effort{})
	s.remove(n)
	pods := append([]int(nil), s.nodePods[n]...)
	m.byRank(pods)
	if len(pods) == 0 {
		w.Drainable = true
		w.Text = fmt.Sprintf("Node %s holds none of the pods that can move; it can be removed at no cost.", name)
		return w
	}
	for j, i := range pods {
		t := s.find(i)
		if t < 0 {
			w.Pod = i
			s.why(w, i)
			w.Text = s.blockedText(w, j)
			return w
		}
		s.move(i, t)
		w.Moves = append(w.Moves, Move{Pod: i, From: n, To: t})
	}
	w.Drainable = true
	w.Text = drainableText(p, w)
	return w
}

// why fills w's reasons for pod i on the other nodes.
func (s *state) why(w *Why, i int) {
	m := s.m
	p := m.p
	pod := &p.Pods[i]
	counts := map[string]int{}
	order := []string{ReasonAffinity, ReasonTaint, ReasonUpdateDomain, ReasonUnschedulable, ReasonAntiAffinity, ReasonSpread, ReasonFaultDomain}
	for _, dn := range p.DimNames {
		order = append(order, ReasonShortPrefix+dn)
	}
	best := -1.0
	d := m.d
	var fdRacks []string // per refusing rack, in node order: what it holds
	fdSeen := map[int]bool{}
	for t := range p.Nodes {
		if t == w.Node {
			continue
		}
		var code string
		switch {
		case pod.AffinityOK != nil && !pod.AffinityOK[t]:
			code = ReasonAffinity
		case pod.TolerationOK != nil && !pod.TolerationOK[t]:
			code = ReasonTaint
		case pod.DomainOK != nil && !pod.DomainOK[t]:
			code = ReasonUpdateDomain
		case !s.target(t):
			code = ReasonUnschedulable
		case !s.perNodeOK(i, t):
			code = ReasonAntiAffinity
		case !s.spreadOK(i, t):
			code = ReasonSpread
		case !s.faultDomainOK(i, t):
			code = ReasonFaultDomain
			if r := p.Nodes[t].Rack; !fdSeen[r] {
				fdSeen[r] = true
				ks := s.rackFaultDomains(i, t)
				plural := ""
				if len(ks) > 1 {
					plural = "s"
				}
				fdRacks = append(fdRacks, fmt.Sprintf("%s holds fault domain%s %s of %s", p.rackName(r), plural, joinInts(ks), p.groupName(pod.Group)))
			}
		default:
			free := s.rem[t*d : t*d+d]
			k := shortDim(pod.Demand, free)
			if k < 0 { // cannot happen: find would have taken t
				panic(fmt.Sprintf("drain: Explain: node %d admits pod %d that found no node", t, i))
			}
			code = ReasonShortPrefix + p.DimNames[k]
			gap := 0.0
			short := make([]float64, d)
			for k, x := range pod.Demand {
				short[k] = max(0, x-free[k])
				gap += short[k] / m.scale[k]
			}
			if best < 0 || gap < best {
				best, w.Nearest, w.Short = gap, t, short
			}
		}
		counts[code]++
	}
	for _, code := range order {
		c := counts[code]
		if c == 0 {
			continue
		}
		r := Reason{Code: code, Count: c}
		switch code {
		case ReasonAffinity:
			r.Detail = pod.AffinityDesc
		case ReasonTaint:
			r.Detail = pod.TolerationDesc
		case ReasonAntiAffinity:
			r.Detail = fmt.Sprintf("at most %d pods of %s per node", pod.MaxPerNode, p.groupName(pod.Group))
			if pod.MaxPerNode == 0 {
				r.Detail = fmt.Sprintf("a pod of %s on the node allows no more", p.groupName(pod.Group))
			}
		case ReasonUpdateDomain:
			r.Detail = pod.DomainDesc
		case ReasonSpread:
			r.Detail = fmt.Sprintf("%s spread over zones with max skew %d", p.groupName(pod.Group), pod.MaxSkew)
		case ReasonFaultDomain:
			if len(fdRacks) > maxRacksShown {
				fdRacks = append(fdRacks[:maxRacksShown], fmt.Sprintf("%d more racks", len(fdRacks)-maxRacksShown))
			}
			r.Detail = strings.Join(fdRacks, "; ")
		default:
			if k := dimIndex(p, strings.TrimPrefix(code, ReasonShortPrefix)); k >= 0 {
				r.Detail = "needs " + p.amount(k, pod.Demand[k])
			}
		}
		w.Reasons = append(w.Reasons, r)
	}
}

// maxRacksShown: the fault-domain reason details at most this many racks.
const maxRacksShown = 3

// joinInts prints 1, "1 and 3", "1, 2 and 3".
func joinInts(xs []int) string {
	var b strings.Builder
	for j, x := range xs {
		switch {
		case j == 0:
		case j == len(xs)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

func dimIndex(p *Problem, name string) int {
	for k, dn := range p.DimNames {
		if dn == name {
			return k
		}
	}
	return -1
}

func (s *state) blockedText(w *Why, placed int) string {
	p := s.m.p
	pod := &p.Pods[w.Pod]
	var b strings.Builder
	fmt.Fprintf(&b, "Node %s cannot be drained: pod %s (%s) has nowhere to go", p.Nodes[w.Node].Name, pod.Name, vector(p, pod.Demand))
	if placed > 0 {
		fmt.Fprintf(&b, " once the node's %d larger pods are placed", placed)
	}
	others := len(p.Nodes) - 1
	if others == 0 {
		b.WriteString(": there is no other node.")
		return b.String()
	}
	fmt.Fprintf(&b, ". Of the %d other nodes, ", others)
	for j, r := range w.Reasons {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d excluded by %s", r.Count, r.Code)
		if r.Detail != "" {
			fmt.Fprintf(&b, " (%s)", r.Detail)
		}
	}
	b.WriteString(".")
	if w.Nearest >= 0 {
		fmt.Fprintf(&b, " The nearest is node %s, short of %s.", p.Nodes[w.Nearest].Name, vector(p, w.Short))
	}
	return b.String()
}

func drainableText(p *Problem, w *Why) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Node %s can be drained alone: ", p.Nodes[w.Node].Name)
	for j, mv := range w.Moves {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s to %s", p.Pods[mv.Pod].Name, p.Nodes[mv.To].Name)
	}
	b.WriteString(".")
	return b.String()
}

// vector prints the non-zero entries of a resource vector with their
// dimension names.
func vector(p *Problem, v []float64) string {
	var parts []string
	for k, x := range v {
		if x != 0 {
			parts = append(parts, p.amount(k, x))
		}
	}
	if len(parts) == 0 {
		return "no resources"
	}
	return strings.Join(parts, ", ")
}
