package k8sgen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The scheduler binds pods one at a time, in the order it is given them
// (creation order), the way kube-scheduler's default profile does for the
// rules this package's pods use:
//
//	pod ─► static filters ─► dynamic filters ─► score ─► pick ─► bind
//	       unschedulable      resources (fit)    Least-   seeded
//	       taints             GPU devices        Allocated tie-break
//	       node affinity      zone spread
//	                          hostname anti-affinity
//
// Static filters depend only on the node's labels, taints and cordon and on
// the pod's tolerations, nodeSelector and required node affinity, so their
// result is cached per distinct (tolerations, selector, affinity) — a pod
// template — when scheduler.cache is set; the dynamic filters escape the
// cache. A pod no node passes stays Pending with a message in
// kube-scheduler's form ("0/60 nodes are available: 3 Insufficient cpu, …").
// Preferred (soft) affinity, soft spread, preemption and the other score
// plugins are not simulated.

// simNode is a node as the scheduler sees it.
type simNode struct {
	node          *corev1.Node
	zone          string
	hasZone       bool
	alloc, used   resVec
	nonZero       [2]int64       // scoring requests of the bound pods: millicores, bytes
	gpus          []int64        // free thousandths of each GPU device
	zoneIndex     int            // into scheduler.zones; -1 without a zone
	podLabels     map[string]int // labelKey(ns, k, v) → bound pods with that label
	pods          []*simPod
	antiTerms     []*antiTerm // the bound pods' anti-affinity terms that are not single-label
	unschedulable bool
}

// simPod is a pod to place, with what the rules read from it decoded once.
type simPod struct {
	pod      *corev1.Pod
	req      resVec
	nonZero  [2]int64
	gpuWhole int64 // whole GPU devices asked (FromAlibaba device tracking)
	gpuShare int64 // thousandths of one GPU asked by a GPU-sharing pod
	pinned   string
	mirror   bool // static pod: the kubelet admits it on pinned, no rules
	terminal bool // Succeeded or Failed: placed at its time, then released
	skip     bool // left Pending without trying (observed Pending)
	sel      nodeSelector
	anti     []*antiTerm
	spread   []*spreadRule

	node    int   // index into scheduler.nodes; -1 while Pending
	devices []int // GPU devices bound (FromAlibaba)
	message string
	// blocked are the nodes where a single-label anti-affinity term, the
	// pod's or a bound pod's, forbids the pod; found once per placement.
	blocked map[int32]bool
}

// Reason phrases, as kube-scheduler words them.
const (
	reasonUnschedulable = "node(s) were unschedulable"
	reasonTaintFmt      = "node(s) had untolerated taint {%s: %s}"
	reasonNodeAffinity  = "node(s) didn't match Pod's node affinity/selector"
	reasonInsufficient  = "Insufficient "
	reasonTooManyPods   = "Too many pods"
	reasonGPUDevices    = "node(s) had no GPU device with enough free share"
	reasonSpread        = "node(s) didn't match pod topology spread constraints"
	reasonAntiAffinity  = "node(s) didn't match pod anti-affinity rules"
)

type scheduler struct {
	nodes  []*simNode
	byName map[string]int
	seed   uint64
	cache  map[string]*staticResult // nil: static filters are not cached
	// Cluster-wide indexes by labelKey: bound pods per zone (index into
	// zones) and per node; bound single-label anti-affinity terms per node.
	zoneLabels   map[string][]int
	zones        []string
	labelNodes   map[string]map[int32]int
	termNodes    map[string]map[int32]int
	complexTerms int // bound anti-affinity terms that are not single-label
}

// staticResult is what the static filters say about one pod template.
type staticResult struct {
	feasible    []int32        // nodes that pass every static filter
	affinity    []bool         // per node: passes node affinity (spread domains)
	allAffinity bool           // every node passes node affinity
	reasons     map[string]int // rejections per reason
}

func newScheduler(nodes []*simNode, seed uint64, cache bool) *scheduler {
	s := &scheduler{nodes: nodes, byName: make(map[string]int, len(nodes)), seed: seed,
		zoneLabels: map[string][]int{}, labelNodes: map[string]map[int32]int{}, termNodes: map[string]map[int32]int{}}
	zi := map[string]int{}
	for i, n := range nodes {
		s.byName[n.node.Name] = i
		n.zoneIndex = -1
		if !n.hasZone {
			continue
		}
		if _, ok := zi[n.zone]; !ok {
			zi[n.zone] = len(s.zones)
			s.zones = append(s.zones, n.zone)
		}
		n.zoneIndex = zi[n.zone]
	}
	if cache {
		s.cache = map[string]*staticResult{}
	}
	return s
}

// newSimNode decodes a node's allocatable, zone, cordon and GPU devices.
func newSimNode(n *corev1.Node) (*simNode, error) {
	alloc, err := vecOf(n.Status.Allocatable)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.Name, err)
	}
	sn := &simNode{node: n, alloc: alloc, podLabels: map[string]int{}, unschedulable: n.Spec.Unschedulable}
	sn.zone, sn.hasZone = n.Labels[corev1.LabelTopologyZone]
	for range alloc[resGPU] {
		sn.gpus = append(sn.gpus, 1000)
	}
	return sn, nil
}

// newSimPod decodes what the rules read from a pod.
func newSimPod(p *corev1.Pod) (*simPod, error) {
	req, err := podRequests(&p.Spec)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	sp := &simPod{pod: p, req: req, nonZero: nonZeroRequests(&p.Spec), node: -1}
	sp.gpuWhole = req[resGPU]
	if req[resGPU] == 0 && req[resGPUMilli] > 0 {
		sp.gpuShare = req[resGPUMilli]
	}
	sp.sel = compileNodeSelector(p)
	sp.pinned = sp.sel.pinnedNode()
	if sp.anti, err = compileAntiAffinity(p); err != nil {
		return nil, err
	}
	if sp.spread, err = compileSpread(p); err != nil {
		return nil, err
	}
	return sp, nil
}

// run schedules pods in order.
func (s *scheduler) run(pods []*simPod) {
	for _, p := range pods {
		switch {
		case p.skip:
		case p.mirror:
			// The kubelet admitted it: no rule applies, it only takes room.
			if i, ok := s.byName[p.pod.Spec.NodeName]; ok {
				s.bind(p, i)
			}
		default:
			s.schedule(p)
		}
	}
}

// templateKey identifies the inputs of the static filters.
func templateKey(p *corev1.Pod) string {
	var req *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	b, _ := json.Marshal(struct {
		T []corev1.Toleration
		S map[string]string
		A *corev1.NodeSelector
	}{p.Spec.Tolerations, p.Spec.NodeSelector, req})
	return string(b)
}

func (s *scheduler) static(p *simPod) *staticResult {
	var key string
	if s.cache != nil {
		key = templateKey(p.pod)
		if r, ok := s.cache[key]; ok {
			return r
		}
	}
	r := &staticResult{affinity: make([]bool, len(s.nodes)), allAffinity: true, reasons: map[string]int{}}
	for i, n := range s.nodes {
		r.affinity[i] = p.sel.matches(n.node)
		r.allAffinity = r.allAffinity && r.affinity[i]
		if why := staticReject(n, p, r.affinity[i]); why != "" {
			r.reasons[why]++
			continue
		}
		r.feasible = append(r.feasible, int32(i))
	}
	if s.cache != nil {
		s.cache[key] = r
	}
	return r
}

// staticReject returns the first static filter the node fails, or "".
func staticReject(n *simNode, p *simPod, affinityOK bool) string {
	if n.unschedulable && !tolerates(p.pod.Spec.Tolerations, &unschedulableTaint) {
		return reasonUnschedulable
	}
	if t := untolerated(n.node.Spec.Taints, p.pod.Spec.Tolerations); t != nil {
		return fmt.Sprintf(reasonTaintFmt, t.Key, t.Value)
	}
	if !affinityOK {
		return reasonNodeAffinity
	}
	return ""
}

func (s *scheduler) schedule(p *simPod) {
	reasons := map[string]int{}
	var candidates []int32
	if p.pinned != "" {
		// The DaemonSet controller's matchFields term admits one node.
		i, ok := s.byName[p.pinned]
		others := len(s.nodes)
		if ok {
			others--
		}
		if others > 0 {
			reasons[reasonNodeAffinity] = others
		}
		if ok {
			n := s.nodes[i]
			if why := staticReject(n, p, p.sel.matches(n.node)); why != "" {
				reasons[why]++
			} else {
				candidates = []int32{int32(i)}
			}
		}
	} else {
		st := s.static(p)
		for k, v := range st.reasons {
			reasons[k] += v
		}
		candidates = st.feasible
		for _, c := range p.spread {
			c.prepare(s, st)
		}
	}
	s.blockNodes(p)

	best, bestScore := []int{}, int64(-1)
	for _, ci := range candidates {
		n := s.nodes[ci]
		if why := s.dynamicReject(ci, n, p); why != nil {
			for _, w := range why {
				reasons[w]++
			}
			continue
		}
		sc := leastAllocated(n, p)
		switch {
		case sc > bestScore:
			best, bestScore = append(best[:0], int(ci)), sc
		case sc == bestScore:
			best = append(best, int(ci))
		}
	}
	if len(best) == 0 {
		p.message = fitError(len(s.nodes), reasons)
		return
	}
	chosen := best[0]
	if len(best) > 1 {
		chosen = best[stream(s.seed, "tie/"+p.pod.Namespace+"/"+p.pod.Name).IntN(len(best))]
	}
	s.bind(p, chosen)
}

// dynamicReject returns why the node cannot take the pod now (every
// insufficient resource, or the first other failing rule), or nil.
func (s *scheduler) dynamicReject(ci int32, n *simNode, p *simPod) []string {
	if why := insufficient(n, p); why != nil {
		return why
	}
	if !devicesFit(n.gpus, p.gpuWhole, p.gpuShare) {
		return []string{reasonGPUDevices}
	}
	for _, c := range p.spread {
		if !c.allows(n) {
			return []string{reasonSpread}
		}
	}
	if p.blocked[ci] || s.antiAffinityConflict(n, p) {
		return []string{reasonAntiAffinity}
	}
	return nil
}

// bind places the pod on node i. A terminal pod only records the node: it
// ran there and has released what it held.
func (s *scheduler) bind(p *simPod, i int) {
	n := s.nodes[i]
	p.node = i
	p.devices = takeDevices(n.gpus, p.gpuWhole, p.gpuShare, p.terminal)
	if p.terminal {
		return
	}
	n.used.add(p.req)
	n.nonZero[0] += p.nonZero[0]
	n.nonZero[1] += p.nonZero[1]
	inc := func(idx map[string]map[int32]int, key string) {
		m := idx[key]
		if m == nil {
			m = map[int32]int{}
			idx[key] = m
		}
		m[int32(i)]++
	}
	for k, v := range p.pod.Labels {
		key := labelKey(p.pod.Namespace, k, v)
		n.podLabels[key]++
		inc(s.labelNodes, key)
		if n.zoneIndex >= 0 {
			z := s.zoneLabels[key]
			if z == nil {
				z = make([]int, len(s.zones))
				s.zoneLabels[key] = z
			}
			z[n.zoneIndex]++
		}
	}
	n.pods = append(n.pods, p)
	for _, t := range p.anti {
		if !t.single {
			n.antiTerms = append(n.antiTerms, t)
			s.complexTerms++
			continue
		}
		for _, k := range t.indexKeys {
			inc(s.termNodes, k)
		}
	}
}

func labelKey(ns, k, v string) string { return ns + "\x00" + k + "\x00" + v }

// fitError words a pending pod's reasons as kube-scheduler's FitError does:
// "0/N nodes are available: " then "count reason" sorted, comma-separated.
func fitError(nodes int, reasons map[string]int) string {
	parts := make([]string, 0, len(reasons))
	for r, c := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", c, r))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", nodes, strings.Join(parts, ", "))
}
