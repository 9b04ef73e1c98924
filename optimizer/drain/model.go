package drain

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
)

// model is what every simulation of one Problem shares, read-only: dense
// group ids, the skew classes, the distinct Allowed vectors (signatures)
// and a size per pod for sorting.
type model struct {
	p        *Problem
	d, n, nz int
	scale    []float64 // per dimension: the largest Free (1 if none > 0)
	size     []float64 // per pod: Σ_k Demand_k / scale_k
	rank     []int     // per pod: position when sorted by size, largest first
	gid      []int     // per pod: dense group, -1
	limit    []int     // per group: the MaxPerNode its pods share (when !mixed)
	mixed    []bool    // per group: its pods' MaxPerNode differ
	gclasses [][]int   // per group: its skew classes
	pclass   []int     // per pod: its skew class, -1
	classes  []skewClass
	sigOf    []int    // per pod: its Allowed signature; 0 = every node
	sigAll   [][]bool // per signature: allowed per node; nil = every node
	sigList  [][]int  // per signature: the allowed nodes when few, else nil
	eligSigs []int    // the signatures of the skew classes, by elig id
	// eligAff is, by elig id, the node affinity mask (AffinityOK; nil =
	// every node) whose nodes' zones count in the spread rule's minimum:
	// Kubernetes' nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore.
	eligAff   [][]bool
	count     []int // per node: the snapshot's pods (podsOn)
	class     []int // per pod: pods alike in demand, signature and group rules share it
	nclass    int
	cacheable []bool // per class: no spread rule and no fault domain in its group (find's memory)
	// Fault domains (rule_fault_domain.go); fdg is nil when no pod has one.
	fdg   []int  // per pod: its fault-domain group (dense, over the groups with a fault domain), -1 if FaultDomain = 0
	fdOf  []int  // per pod: FaultDomain
	fdNum []int  // per fault-domain group: its largest FaultDomain
	gfd   []bool // per group: some pod of it has a FaultDomain
	rack  []int  // per node: dense rack id (when fdg != nil)
	nrack int
}

// skewClass is the pods of one group with one MaxSkew and one Allowed
// signature: they share the eligible zones of the spread rule.
type skewClass struct{ group, elig, maxSkew int }

// fewAllowed: a signature with at most n/fewAllowed nodes is searched by
// its node list instead of the first-fit tree.
const fewAllowed = 8

func compile(p *Problem) *model {
	m := &model{p: p, d: len(p.DimNames), n: len(p.Nodes), nz: max(1, len(p.Zones))}
	m.scale = make([]float64, m.d)
	for k := range m.scale {
		for j := range p.Nodes {
			m.scale[k] = max(m.scale[k], p.Nodes[j].Free[k])
		}
		if m.scale[k] <= 0 {
			m.scale[k] = 1
		}
	}
	np := len(p.Pods)
	m.size = make([]float64, np)
	order := make([]int, np)
	for i := range p.Pods {
		order[i] = i
		for k, x := range p.Pods[i].Demand {
			m.size[i] += x / m.scale[k]
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case m.size[a] > m.size[b]:
			return -1
		case m.size[a] < m.size[b]:
			return 1
		}
		return a - b
	})
	m.rank = make([]int, np)
	for r, i := range order {
		m.rank[i] = r
	}
	m.buildSigs()
	m.buildGroups()
	m.buildFaultDomains()
	m.buildClasses()
	return m
}

// buildClasses numbers the pods alike for placement: same demand, Allowed
// signature (DomainOK included), group and group rules (FaultDomain
// included). find's memory is off for a class whose group has a spread
// rule or a fault domain: there a node's verdict depends on pods elsewhere
// (the zone the pod leaves; the other pods of the node's rack), which the
// memory's epoch does not follow.
func (m *model) buildClasses() {
	type key struct {
		demand                    string
		sig, g, perNode, skew, fd int
	}
	ids := map[key]int{}
	m.class = make([]int, len(m.p.Pods))
	buf := make([]byte, 0, 8*m.d)
	for i := range m.p.Pods {
		pod := &m.p.Pods[i]
		buf = buf[:0]
		for _, x := range pod.Demand {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
		k := key{string(buf), m.sigOf[i], m.gid[i], pod.MaxPerNode, pod.MaxSkew, pod.FaultDomain}
		c, ok := ids[k]
		if !ok {
			c = len(ids)
			ids[k] = c
			g := m.gid[i]
			m.cacheable = append(m.cacheable, g < 0 || (len(m.gclasses[g]) == 0 && !m.gfd[g]))
		}
		m.class[i] = c
	}
	m.nclass = len(ids)
}

// buildSigs gives every pod the id of its Allowed vector (AffinityOK &&
// TolerationOK && DomainOK), deduplicated by the slices' identity first
// and by content second.
func (m *model) buildSigs() {
	p := m.p
	type ptrKey struct {
		a, t, d *bool
	}
	first := func(s []bool) *bool {
		if len(s) == 0 {
			return nil
		}
		return &s[0]
	}
	byPtr := map[ptrKey]int{}
	byHash := map[uint64][]int{}
	m.sigOf = make([]int, len(p.Pods))
	m.sigAll = [][]bool{nil}
	m.sigList = [][]int{nil}
	buf := make([]byte, m.n)
	for i := range p.Pods {
		pod := &p.Pods[i]
		if pod.AffinityOK == nil && pod.TolerationOK == nil && pod.DomainOK == nil {
			continue
		}
		key := ptrKey{first(pod.AffinityOK), first(pod.TolerationOK), first(pod.DomainOK)}
		if s, ok := byPtr[key]; ok {
			m.sigOf[i] = s
			continue
		}
		allowed := make([]bool, m.n)
		count := 0
		for j := range allowed {
			allowed[j] = pod.Allowed(j)
			buf[j] = 0
			if allowed[j] {
				buf[j] = 1
				count++
			}
		}
		s := 0
		if count < m.n {
			h := fnv.New64a()
			h.Write(buf)
			sum := h.Sum64()
			s = -1
			for _, c := range byHash[sum] {
				if slices.Equal(m.sigAll[c], allowed) {
					s = c
					break
				}
			}
			if s < 0 {
				s = len(m.sigAll)
				m.sigAll = append(m.sigAll, allowed)
				var list []int
				if count*fewAllowed <= m.n {
					list = make([]int, 0, count)
					for j, ok := range allowed {
						if ok {
							list = append(list, j)
						}
					}
				}
				m.sigList = append(m.sigList, list)
				byHash[sum] = append(byHash[sum], s)
			}
		}
		byPtr[key] = s
		m.sigOf[i] = s
	}
}

// buildGroups maps tenant ids to dense ids in pod order and collects the
// MaxPerNode limits and the skew classes per group.
func (m *model) buildGroups() {
	p := m.p
	dense := map[int]int{}
	m.gid = make([]int, len(p.Pods))
	m.pclass = make([]int, len(p.Pods))
	type classKey struct {
		group, sig, skew int
		aff              *bool
	}
	classOf := map[classKey]int{}
	type eligKey struct {
		sig int
		aff *bool
	}
	eligOf := map[eligKey]int{}
	for i := range p.Pods {
		pod := &p.Pods[i]
		m.gid[i], m.pclass[i] = -1, -1
		if pod.Group < 0 {
			continue
		}
		g, ok := dense[pod.Group]
		if !ok {
			g = len(m.limit)
			dense[pod.Group] = g
			m.limit = append(m.limit, pod.MaxPerNode)
			m.mixed = append(m.mixed, false)
			m.gclasses = append(m.gclasses, nil)
		}
		m.gid[i] = g
		if m.limit[g] != pod.MaxPerNode {
			m.mixed[g] = true
		}
		if pod.MaxSkew == 0 {
			continue
		}
		var aff *bool
		if len(pod.AffinityOK) > 0 {
			aff = &pod.AffinityOK[0]
		}
		key := classKey{g, m.sigOf[i], pod.MaxSkew, aff}
		c, ok := classOf[key]
		if !ok {
			e, ok := eligOf[eligKey{key.sig, aff}]
			if !ok {
				e = len(m.eligSigs)
				eligOf[eligKey{key.sig, aff}] = e
				m.eligSigs = append(m.eligSigs, key.sig)
				m.eligAff = append(m.eligAff, pod.AffinityOK)
			}
			c = len(m.classes)
			classOf[key] = c
			m.classes = append(m.classes, skewClass{group: g, elig: e, maxSkew: pod.MaxSkew})
			m.gclasses[g] = append(m.gclasses[g], c)
		}
		m.pclass[i] = c
	}
}

// buildFaultDomains numbers the groups whose pods have a FaultDomain and
// the racks, densely, for the per-(group, rack) counts of the state. It
// leaves fdg nil when no pod has a fault domain.
func (m *model) buildFaultDomains() {
	p := m.p
	m.gfd = make([]bool, len(m.limit))
	some := false
	for i := range p.Pods {
		if p.Pods[i].FaultDomain > 0 {
			m.gfd[m.gid[i]] = true
			some = true
		}
	}
	if !some {
		return
	}
	dense := make([]int, len(m.limit))
	for g := range dense {
		dense[g] = -1
	}
	m.fdg = make([]int, len(p.Pods))
	m.fdOf = make([]int, len(p.Pods))
	for i := range p.Pods {
		m.fdg[i] = -1
		f := p.Pods[i].FaultDomain
		if f == 0 {
			continue
		}
		g := m.gid[i]
		if dense[g] < 0 {
			dense[g] = len(m.fdNum)
			m.fdNum = append(m.fdNum, 0)
		}
		m.fdg[i], m.fdOf[i] = dense[g], f
		m.fdNum[dense[g]] = max(m.fdNum[dense[g]], f)
	}
	racks := map[int]int{}
	m.rack = make([]int, m.n)
	for t := range p.Nodes {
		r, ok := racks[p.Nodes[t].Rack]
		if !ok {
			r = len(racks)
			racks[p.Nodes[t].Rack] = r
		}
		m.rack[t] = r
	}
	m.nrack = len(racks)
}

// allowed reports whether pod i may run on node t.
func (m *model) allowed(i, t int) bool {
	al := m.sigAll[m.sigOf[i]]
	return al == nil || al[t]
}

func (m *model) zone(t int) int { return m.p.Nodes[t].Zone }

// byRank sorts pods largest first (ties by index).
func (m *model) byRank(pods []int) {
	slices.SortFunc(pods, func(a, b int) int { return m.rank[a] - m.rank[b] })
}
