package plan

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/analysis"
	"placelab/analysis/snapshot"
	"placelab/datasets"
	"placelab/datasets/catalog"
	"placelab/datasets/k8s"
	"placelab/optimizer/fleet"
	store "placelab/sql"
)

// Labels a prototype node takes from its catalog type (the rest from its
// pool), and the labels of a pool's nodes that belong to each node or type.
var nodeOwnLabels = map[string]bool{
	corev1.LabelHostname: true, corev1.LabelInstanceTypeStable: true, corev1.LabelInstanceType: true,
	corev1.LabelTopologyZone: true, corev1.LabelFailureDomainBetaZone: true, corev1.LabelArchStable: true, "beta.kubernetes.io/arch": true,
	"karpenter.sh/capacity-type": true, "eks.amazonaws.com/capacityType": true, "node.kubernetes.io/capacity-type": true,
}

// typeLabelPrefixes are per-type label families a pool's nodes carry
// (Karpenter's well-known labels); a prototype gets its own type's.
var typeLabelPrefixes = []string{"karpenter.k8s.aws/instance-", "cloud.google.com/machine-family", "node.kubernetes.io/instance-"}

// k8sSource is a Kubernetes snapshot's pods planned on new nodes of the
// cluster's pools.
type k8sSource struct {
	dataset string
	t       float64
	p       *fleet.Problem
	protos  []*corev1.Node // per fleet type
	protoOf []proto
	pods    []*corev1.Pod // planned pods, as stored
	podVM   []int64
	podZone []string // the zone a pod's volumes hold it to ("")
	byGroup [][]int
	ds      []*corev1.Pod // one template per DaemonSet
	dsOn    [][]int       // per fleet type, the templates that run there
	workers []*corev1.Node
	left    []string
	gpuRes  corev1.ResourceName
	spread  map[int]spreadInfo // group → its tenant's spread
	zones   []string
}

type proto struct {
	pool string
	typ  int // catalog index
	zone string
}

type spreadInfo struct {
	tenant string
	skew   int
}

func fromRun(ctx context.Context, db *store.DB, run int64, at float64, cat *catalog.Catalog, res catalog.Reserved) (source, float64, string, error) {
	rs, err := snapshot.Load(ctx, db, run, at)
	if err != nil {
		return nil, 0, "", err
	}
	if rs.Oversub {
		return nil, 0, "", fmt.Errorf("plan: run %d oversubscribed CPU: its placements rest on predictions, not requests", run)
	}
	alive := map[int64]bool{}
	for m := range rs.Trace.Inv.Machines {
		for _, vm := range rs.State.VMsOn(int32(m)) {
			alive[int64(vm)] = true
		}
	}
	for _, i := range rs.Pending {
		alive[rs.Trace.VMs[i].ID] = true
	}
	s, err := loadK8s(ctx, db, rs, alive, cat, res)
	if err != nil {
		return nil, 0, "", err
	}
	if s == nil { // not a Kubernetes cluster: the trace's VMs alive then
		vs, t, err := fromDataset(ctx, db, rs.Dataset, rs.T, false, cat, res)
		return vs, t, rs.Dataset, err
	}
	return s, rs.T, rs.Dataset, nil
}

func isDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

func loadK8s(ctx context.Context, db *store.DB, rs *snapshot.RunState, alive map[int64]bool, cat *catalog.Catalog, res catalog.Reserved) (*k8sSource, error) {
	s := &k8sSource{dataset: rs.Dataset, t: rs.T, spread: map[int]spreadInfo{}, gpuRes: "nvidia.com/gpu"}
	var nodes []*corev1.Node
	type podRow struct {
		obj, owner, node string
		vm               int64
	}
	var pods []podRow
	err := analysis.Each(ctx, db.SQL(), "k8s_objects", []any{int64(rs.Trace.LoadID)}, func(r *sql.Rows) error {
		var kind, name, obj string
		var vm sql.NullInt64
		var machine sql.NullInt32
		var owner, node sql.NullString
		if err := r.Scan(&kind, &name, &vm, &machine, &obj, &owner, &node); err != nil {
			return err
		}
		switch kind {
		case "Node":
			n := new(corev1.Node)
			if err := json.Unmarshal([]byte(obj), n); err != nil {
				return fmt.Errorf("node %s: %w", name, err)
			}
			nodes = append(nodes, n)
		case "Pod":
			pods = append(pods, podRow{obj, owner.String, node.String, vm.Int64})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	// Pods: static ones stay with the control plane, DaemonSets' are
	// overhead, the rest alive at T are planned.
	control := map[string]bool{}
	static, dsSeen := 0, map[string]bool{}
	for _, pr := range pods {
		p := new(corev1.Pod)
		if err := json.Unmarshal([]byte(pr.obj), p); err != nil {
			return nil, fmt.Errorf("pod %d: %w", pr.vm, err)
		}
		switch {
		case pr.owner == "Node":
			static++
			if pr.node != "" {
				control[pr.node] = true
			}
		case pr.owner == "DaemonSet" || isDaemonSetPod(p):
			key := p.Namespace + "/"
			for _, o := range p.OwnerReferences {
				if o.Kind == "DaemonSet" {
					key += o.Name
				}
			}
			if dsSeen[key] {
				continue
			}
			dsSeen[key] = true
			p.Spec.NodeName = ""
			if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
				a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
			}
			p.Name = "ds-template-" + strconv.Itoa(len(s.ds))
			p.Status = corev1.PodStatus{Phase: corev1.PodPending}
			s.ds = append(s.ds, p)
		case alive[pr.vm]:
			s.pods = append(s.pods, p)
			s.podVM = append(s.podVM, pr.vm)
		}
	}
	for _, n := range nodes {
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; cp || control[n.Name] {
			control[n.Name] = true
			continue
		}
		s.workers = append(s.workers, n)
	}
	if static > 0 {
		s.left = append(s.left, fmt.Sprintf("%d static pods stay on their %d control-plane nodes, outside the plan and its cost", static, len(control)))
	}
	if len(s.workers) == 0 {
		return nil, fmt.Errorf("plan: run %d's cluster has no worker node to take pools from", rs.Run)
	}
	// Pools: the labels and placement taints all of a pool's nodes share.
	type pool struct {
		name   string
		labels map[string]string
		taints []corev1.Taint
		eph    float64
	}
	var pools []*pool
	poolOf := map[string]*pool{}
	zoneSet := map[string]bool{}
	for _, n := range s.workers {
		name := ""
		for _, k := range k8s.PoolLabels {
			if v, ok := n.Labels[k]; ok {
				name = v
				break
			}
		}
		if name == "" {
			name = "default"
		}
		zoneSet[n.Labels[corev1.LabelTopologyZone]] = true
		for r := range n.Status.Capacity {
			if strings.Contains(string(r), "gpu") && r != "nvidia.com/gpu" {
				s.gpuRes = r
			}
		}
		pl, ok := poolOf[name]
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !strings.HasPrefix(t.Key, "node.kubernetes.io/") {
				taints = append(taints, t)
			}
		}
		eph := 0.0
		if q, ok := n.Status.Allocatable[corev1.ResourceEphemeralStorage]; ok {
			eph = q.AsApproximateFloat64() / 1e9
		}
		if !ok {
			pl = &pool{name: name, labels: map[string]string{}, taints: taints, eph: eph}
			for k, v := range n.Labels {
				if !ownLabel(k) {
					pl.labels[k] = v
				}
			}
			poolOf[name] = pl
			pools = append(pools, pl)
			continue
		}
		pl.eph = max(pl.eph, eph)
		for k, v := range pl.labels {
			if n.Labels[k] != v {
				delete(pl.labels, k)
			}
		}
		pl.taints = slices.DeleteFunc(pl.taints, func(t corev1.Taint) bool {
			return !slices.ContainsFunc(taints, func(u corev1.Taint) bool { return u.Key == t.Key && u.Value == t.Value && u.Effect == t.Effect })
		})
	}
	for z := range zoneSet {
		s.zones = append(s.zones, z)
	}
	sort.Strings(s.zones)
	// Prototypes: one node per pool × catalog type × zone.
	ephUsed := false
	gpuUsed := false
	for _, p := range s.pods {
		for _, c := range p.Spec.Containers {
			if _, ok := c.Resources.Requests[corev1.ResourceEphemeralStorage]; ok {
				ephUsed = true
			}
		}
	}
	for _, t := range cat.Types {
		gpuUsed = gpuUsed || t.GPUs > 0
	}
	for _, pl := range pools {
		for ti, ct := range cat.Types {
			a := res.Allocatable(ct)
			for _, z := range s.zones {
				n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}}
				n.Name = fmt.Sprintf("plan-proto-%d", len(s.protos))
				n.Labels = map[string]string{}
				for k, v := range pl.labels {
					n.Labels[k] = v
				}
				arch := ct.Arch
				n.Labels[corev1.LabelHostname] = n.Name
				n.Labels[corev1.LabelArchStable] = arch
				n.Labels["beta.kubernetes.io/arch"] = arch
				n.Labels[corev1.LabelOSStable] = "linux"
				n.Labels[corev1.LabelInstanceTypeStable] = ct.Name
				n.Labels[corev1.LabelInstanceType] = ct.Name
				n.Labels["karpenter.k8s.aws/instance-family"] = ct.Family
				n.Labels["karpenter.k8s.aws/instance-cpu"] = fnum(ct.VCPUs)
				n.Labels["karpenter.k8s.aws/instance-memory"] = fnum(ct.MemoryMiB)
				n.Labels["karpenter.k8s.aws/instance-gpu-count"] = fnum(ct.GPUs)
				capType := ct.CapacityType
				if capType == "" {
					capType = "on-demand"
				}
				n.Labels["karpenter.sh/capacity-type"] = capType
				if z != "" {
					n.Labels[corev1.LabelTopologyZone] = z
				}
				n.Spec.Taints = slices.Clone(pl.taints)
				n.Status.Capacity = corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(math.Round(ct.VCPUs*1000)), resource.DecimalSI),
					corev1.ResourceMemory: *resource.NewQuantity(int64(math.Round(ct.MemoryMiB))*mib, resource.BinarySI),
					corev1.ResourcePods:   *resource.NewQuantity(int64(a.Pods), resource.DecimalSI),
				}
				n.Status.Allocatable = corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(math.Floor(a.CPU*1000)), resource.DecimalSI),
					corev1.ResourceMemory: *resource.NewQuantity(int64(math.Floor(a.MemoryMiB))*mib, resource.BinarySI),
					corev1.ResourcePods:   *resource.NewQuantity(int64(a.Pods), resource.DecimalSI),
				}
				if pl.eph > 0 {
					q := *resource.NewQuantity(int64(pl.eph*1e9), resource.DecimalSI)
					n.Status.Capacity[corev1.ResourceEphemeralStorage] = q
					n.Status.Allocatable[corev1.ResourceEphemeralStorage] = q
				}
				if ct.GPUs > 0 {
					q := *resource.NewQuantity(int64(ct.GPUs), resource.DecimalSI)
					n.Status.Capacity[s.gpuRes] = q
					n.Status.Allocatable[s.gpuRes] = q
				}
				n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
				s.protos = append(s.protos, n)
				s.protoOf = append(s.protoOf, proto{pool: pl.name, typ: ti, zone: z})
			}
		}
	}
	// The same reader as ingest k8s, on the cluster's own nodes (a pod's
	// volume zone comes from the node it runs on), the prototypes and the
	// pods: which prototypes each pod may run on.
	dir, err := os.MkdirTemp("", "placelab-plan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	all := append(slices.Clone(nodes), s.protos...)
	pin := append(slices.Clone(s.pods), s.ds...)
	if err := writeList(dir, all, pin); err != nil {
		return nil, err
	}
	c, err := k8s.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("plan: reading the pods beside the catalog's types: %w", err)
	}
	first := len(nodes)
	byName := map[string]int{}
	for i, p := range c.Pods {
		byName[p.Namespace+"/"+p.Name] = i
	}
	inSet := func(set int) []bool {
		out := make([]bool, len(s.protos))
		if set < 0 {
			for k := range out {
				out[k] = true
			}
			return out
		}
		for _, n := range c.NodeSets[set].Nodes {
			if n >= first {
				out[n-first] = true
			}
		}
		return out
	}
	allowedCache := map[[2]int][]bool{}
	allowedOf := func(aff, tol int) []bool {
		if a, ok := allowedCache[[2]int{aff, tol}]; ok {
			return a
		}
		a, t := inSet(aff), inSet(tol)
		for k := range a {
			a[k] = a[k] && t[k]
		}
		allowedCache[[2]int{aff, tol}] = a
		return a
	}
	// Dimensions.
	dims := []string{"cpu", "memory_gb"}
	if ephUsed {
		dims = append(dims, "ephemeral_gb")
	}
	if gpuUsed {
		dims = append(dims, "gpus")
	}
	dims = append(dims, "pods")
	vec := func(r k8s.Resources) []float64 {
		v := []float64{r.Cores, r.MemoryGB}
		if ephUsed {
			v = append(v, r.EphemeralGB)
		}
		if gpuUsed {
			v = append(v, r.GPUs)
		}
		return append(v, r.Pods)
	}
	p := &fleet.Problem{Dims: dims}
	for k, n := range s.protos {
		pr := s.protoOf[k]
		ct := cat.Types[pr.typ]
		r := k8s.Resources{Cores: n.Status.Allocatable.Cpu().AsApproximateFloat64(), MemoryGB: float64(n.Status.Allocatable.Memory().Value()) / 1e9,
			Pods: float64(n.Status.Allocatable.Pods().Value()), GPUs: ct.GPUs}
		if q, ok := n.Status.Allocatable[corev1.ResourceEphemeralStorage]; ok {
			r.EphemeralGB = q.AsApproximateFloat64() / 1e9
		}
		name := ct.Name
		if len(pools) > 1 || len(s.zones) > 1 {
			name = fmt.Sprintf("%s/%s/%s", pr.pool, ct.Name, pr.zone)
		}
		p.Types = append(p.Types, fleet.Type{Name: name, Cap: vec(r), Price: ct.Price, Limit: ct.MaxCount})
	}
	// DaemonSet overhead per prototype.
	p.Overhead = make([][]float64, len(s.protos))
	s.dsOn = make([][]int, len(s.protos))
	for d, tp := range s.ds {
		lp := c.Pods[byName[tp.Namespace+"/"+tp.Name]]
		aff := allowedOf(lp.Affinity, -1)
		dem := vec(lp.Requests)
		for k, n := range s.protos {
			if !aff[k] {
				continue
			}
			if _, untol := k8s.UntoleratedTaint(n, tp.Spec.Tolerations); untol {
				continue
			}
			if p.Overhead[k] == nil {
				p.Overhead[k] = make([]float64, len(dims))
			}
			for j, x := range dem {
				p.Overhead[k][j] += x
			}
			s.dsOn[k] = append(s.dsOn[k], d)
		}
	}
	// Groups: pods alike in demand, allowed types and tenant bounds.
	tenantKey := map[string]int{}
	groupOf := map[string]int{}
	s.podZone = make([]string, len(s.pods))
	for i, pod := range s.pods {
		lp := c.Pods[byName[pod.Namespace+"/"+pod.Name]]
		if lp.Affinity >= 0 {
			if _, z, ok := strings.Cut(c.NodeSets[lp.Affinity].Key, k8s.VolumeZonePrefix); ok {
				z, _, _ = strings.Cut(z, ";")
				s.podZone[i] = z
			}
		}
		dem := vec(lp.Requests)
		anti, skew := -1, 0
		if lp.MaxPerNode > 0 || lp.MaxSkew > 0 {
			t, ok := tenantKey[lp.Tenant]
			if !ok {
				t = len(tenantKey)
				tenantKey[lp.Tenant] = t
			}
			if lp.MaxPerNode > 0 {
				anti = t
			}
			skew = lp.MaxSkew
		}
		key := fmt.Sprintf("%v|%d|%d|%d|%d|%s", dem, lp.Affinity, lp.Tolerated, anti, skew, func() string {
			if skew > 0 {
				return lp.Tenant
			}
			return ""
		}())
		g, ok := groupOf[key]
		if !ok {
			g = len(p.Groups)
			groupOf[key] = g
			why := ""
			if lp.Affinity >= 0 {
				why = c.NodeSets[lp.Affinity].Key
			}
			if lp.Tolerated >= 0 {
				if why != "" {
					why += "; "
				}
				why += c.NodeSets[lp.Tolerated].Key
			}
			p.Groups = append(p.Groups, fleet.Group{Name: "g" + strconv.Itoa(g), Demand: dem, Allowed: allowedOf(lp.Affinity, lp.Tolerated),
				AntiKey: anti, MaxPerNode: max(lp.MaxPerNode, 0), Why: why})
			if anti < 0 {
				p.Groups[g].MaxPerNode = 0
			}
			s.byGroup = append(s.byGroup, nil)
			if skew > 0 && len(s.zones) > 1 {
				s.spread[g] = spreadInfo{tenant: lp.Tenant, skew: skew}
			}
		}
		p.Groups[g].Count++
		s.byGroup[g] = append(s.byGroup[g], i)
	}
	s.p = p
	return s, nil
}

func ownLabel(k string) bool {
	if nodeOwnLabels[k] {
		return true
	}
	for _, p := range typeLabelPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// writeList writes nodes.json and pods.json (List objects) into dir.
func writeList(dir string, nodes []*corev1.Node, pods []*corev1.Pod) error {
	nl := corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, n := range nodes {
		nl.Items = append(nl.Items, *n)
	}
	pl := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, p := range pods {
		q := *p
		q.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		pl.Items = append(pl.Items, q)
	}
	for i := range nl.Items {
		nl.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	}
	for name, v := range map[string]any{"nodes.json": nl, "pods.json": pl} {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (s *k8sSource) problem() *fleet.Problem { return s.p }
func (s *k8sSource) typeName(k int) string {
	n := s.p.Types[k].Name
	if i := strings.Index(n, "/"); i >= 0 {
		n = n[i+1:]
		if j := strings.LastIndex(n, "/"); j >= 0 {
			n = n[:j]
		}
	}
	return n
}
func (s *k8sSource) poolName(k int) string { return s.protoOf[k].pool }
func (s *k8sSource) leftOut() []string     { return s.left }
func (s *k8sSource) kind() string          { return "kubernetes" }
func (s *k8sSource) groupNames(g int) []string {
	var out []string
	for _, i := range s.byGroup[g] {
		out = append(out, s.pods[i].Namespace+"/"+s.pods[i].Name)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// current prices the cluster's worker nodes by their instance type.
func (s *k8sSource) current(cat *catalog.Catalog) *Fleet {
	price := map[string]float64{}
	for _, t := range cat.Types {
		price[t.Name] = t.Price
	}
	f := &Fleet{Types: map[string]int{}}
	un := map[string]bool{}
	for _, n := range s.workers {
		it := n.Labels[corev1.LabelInstanceTypeStable]
		if it == "" {
			it = n.Labels[corev1.LabelInstanceType]
		}
		pr, ok := price[it]
		if !ok {
			if it == "" {
				it = "(no instance-type label)"
			}
			un[it] = true
			continue
		}
		f.CostPerHour += pr
		f.Nodes++
		f.Types[it]++
	}
	for k := range un {
		f.Unpriced = append(f.Unpriced, k)
	}
	sort.Strings(f.Unpriced)
	if f.Nodes == 0 {
		return &Fleet{Types: map[string]int{}, Unpriced: f.Unpriced}
	}
	f.CostPerHour = round6(f.CostPerHour)
	return f
}

// store writes the plan as a cluster: a node per planned node (its
// prototype's labels, taints and allocatable), each planned pod bound to
// its node (a pod held to its volume's zone keeps that zone as a node
// selector, so check sees the hold), and each DaemonSet's pod on every
// node it runs on.
func (s *k8sSource) store(ctx context.Context, db *store.DB, f *fleet.Fleet, name string, params map[string]any) (int64, error) {
	left := make([][]int, len(s.byGroup))
	for g := range s.byGroup {
		left[g] = slices.Clone(s.byGroup[g])
	}
	var nodes []*corev1.Node
	var pods, ds []*corev1.Pod
	zoneOf := map[string]string{} // node → zone
	count := map[int]int{}
	for _, n := range f.Nodes {
		pr := s.protos[n.Type]
		count[n.Type]++
		node := pr.DeepCopy()
		node.Name = fmt.Sprintf("%s-%d", strings.ReplaceAll(s.p.Types[n.Type].Name, "/", "-"), count[n.Type])
		node.Labels[corev1.LabelHostname] = node.Name
		nodes = append(nodes, node)
		zoneOf[node.Name] = s.protoOf[n.Type].zone
		for j, g := range n.Groups {
			for range n.Counts[j] {
				i := left[g][0]
				left[g] = left[g][1:]
				p := s.pods[i].DeepCopy()
				p.Spec.NodeName = node.Name
				if z := s.podZone[i]; z != "" {
					if p.Spec.NodeSelector == nil {
						p.Spec.NodeSelector = map[string]string{}
					}
					p.Spec.NodeSelector[corev1.LabelTopologyZone] = z
				}
				p.Status = corev1.PodStatus{Phase: corev1.PodRunning}
				pods = append(pods, p)
			}
		}
		for _, d := range s.dsOn[n.Type] {
			p := s.ds[d].DeepCopy()
			p.Name = fmt.Sprintf("%s-%s", dsName(p), node.Name)
			p.Spec.NodeName = node.Name
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning}
			ds = append(ds, p)
		}
	}
	// Placement order: placelab check holds topology spread at each
	// placement, in order of the pods' creation (creationOrder).
	pods = creationOrder(append(ds, pods...), zoneOf, s.zones)
	dir, err := os.MkdirTemp("", "placelab-plan-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := writeList(dir, nodes, pods); err != nil {
		return 0, err
	}
	v, _ := params["version"].(string)
	c, err := datasets.IngestK8sPlan(ctx, db, name, []string{dir}, v, params)
	if err != nil {
		return 0, err
	}
	return c.ObservedRun, nil
}

// ownerOf names a pod's controller ("" for a bare pod): its spread tenant.
func ownerOf(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			return o.Kind + "/" + o.Name
		}
	}
	return "Pod/" + p.Name
}

func dsName(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return o.Name
		}
	}
	return "daemonset"
}
