// Package sim runs the real kube-scheduler framework (k8s.io/kubernetes,
// default profile, every default plugin) in-process, without an API server,
// over a fixed set of nodes and pods, one pod at a time.
//
// What is real: the plugin registry, the default profile (weights and args
// from the versioned defaults), the framework runtime (PreEnqueue, PreFilter,
// Filter, PreScore, Score, NormalizeScore, Reserve), the scheduler cache and
// its per-cycle snapshot, the shared DRA and CSI managers, and the informers
// the plugins read (over a fake clientset).
//
// What is ours: the queue order (PrioritySort's rule with the pod's
// creationTimestamp as the queue timestamp, then input order), filtering all
// nodes (percentageOfNodesToScore = 100), and the choice among the top-scored
// nodes (a seeded PCG instead of the scheduler's heap order). There is no
// preemption (PostFilter is not run), no Permit/PreBind/Bind: a placed pod is
// assumed in the cache on its node, which is what later pods see.
package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"k8s.io/utils/ptr"
)

// Modes of a run.
const (
	ModeSchedule = "schedule"
	ModeFilter   = "filter"
)

// PercentageOfNodesToScore is fixed: every node is filtered and every
// feasible node is scored.
const PercentageOfNodesToScore = 100

// pcgStream is the second PCG word; the first is the input's seed.
const pcgStream = 0x6b75626573636864 // "kubeschd"

// Input is the JSON the program reads.
type Input struct {
	Seed  uint64     `json:"seed"`
	Mode  string     `json:"mode"`
	Nodes []*v1.Node `json:"nodes"`
	Pods  []*v1.Pod  `json:"pods"`
	// Optional. PVCs a pod references and the input lacks are synthesized
	// (see synthesizeVolumes).
	PersistentVolumeClaims []*v1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	PersistentVolumes      []*v1.PersistentVolume      `json:"persistentVolumes,omitempty"`
	// Optional, an addition to the brief: StorageClasses for unbound PVCs.
	StorageClasses []*storagev1.StorageClass `json:"storageClasses,omitempty"`
}

// Output is the JSON the program writes.
type Output struct {
	Scheduler                string      `json:"scheduler"`
	Profile                  string      `json:"profile"`
	PercentageOfNodesToScore int         `json:"percentage_of_nodes_to_score"`
	Seed                     uint64      `json:"seed"`
	Placed                   int         `json:"placed"`
	Unschedulable            int         `json:"unschedulable"`
	Seconds                  float64     `json:"seconds"`
	Pods                     []PodResult `json:"pods"`
}

// PodResult is one scheduled (or unschedulable) pod, in scheduling order.
type PodResult struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// Reasons maps a plugin name to the number of nodes it rejected; only
	// for an unschedulable pod. A PreFilter or PreEnqueue rejection counts
	// every node.
	Reasons map[string]int `json:"reasons,omitempty"`
	// Error is set when a plugin returned an internal error (not a
	// rejection) for this pod; the pod is then counted as unschedulable.
	Error string `json:"error,omitempty"`
	// Feasible lists, in mode "filter", the nodes that passed Filter at the
	// pod's turn, sorted by name (present, possibly empty, in that mode).
	Feasible *[]string `json:"feasible,omitempty"`
	// Rejected maps, in mode "filter", every node not in Feasible to the
	// plugin that refused it (a PreEnqueue or PreFilter rejection names
	// every node). An addition to the brief, read by placelab's analysis.
	Rejected map[string]string `json:"rejected,omitempty"`
}

// SchedulerVersion is the k8s.io/kubernetes version this binary was built
// with, read from the build info (falls back to the version pinned in go.mod).
func SchedulerVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				if d.Replace != nil {
					return "k8s.io/kubernetes " + d.Replace.Version
				}
				return "k8s.io/kubernetes " + d.Version
			}
		}
	}
	return "k8s.io/kubernetes v1.37.2"
}

var initMetricsOnce sync.Once

// Run schedules in.Pods onto in.Nodes. It starts and stops its own
// informers and background goroutines; ctx only bounds the run.
func Run(ctx context.Context, in *Input) (*Output, error) {
	mode := in.Mode
	if mode == "" {
		mode = ModeSchedule
	}
	if mode != ModeSchedule && mode != ModeFilter {
		return nil, fmt.Errorf("mode %q: want %q or %q", in.Mode, ModeSchedule, ModeFilter)
	}
	// The scheduler's metric vectors are package globals that plugins and
	// the framework touch unconditionally; they must exist (registration
	// is not needed). Once per process: re-running it would race with the
	// previous run's still-exiting goroutines.
	initMetricsOnce.Do(metrics.InitMetrics)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := klog.FromContext(ctx)

	nodes, pinned, pending, err := prepare(in)
	if err != nil {
		return nil, err
	}
	objects := synthesizeVolumes(in, nodes, pinned, pending)
	for _, ns := range namespaces(pinned, pending) {
		objects = append(objects, ns)
	}

	client := fake.NewClientset(objects...)
	informerFactory := informers.NewSharedInformerFactory(client, 0)

	cfg, err := latest.Default()
	if err != nil {
		return nil, fmt.Errorf("default scheduler configuration: %w", err)
	}
	profile := cfg.Profiles[0]
	profile.PercentageOfNodesToScore = ptr.To[int32](PercentageOfNodesToScore)

	registry := frameworkplugins.NewInTreeRegistry()
	snapshot := internalcache.NewEmptySnapshot()
	schedCache := internalcache.New(ctx, nil,
		feature.DefaultFeatureGate.Enabled(features.GenericWorkload),
		feature.DefaultFeatureGate.Enabled(features.CompositePodGroup))

	// DRA and CSI managers, as pkg/scheduler/scheduler.go (New) builds them.
	var draManager fwk.SharedDRAManager
	var sliceTracker *resourceslicetracker.Tracker
	if feature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		claimInformer := informerFactory.Resource().V1().ResourceClaims().Informer()
		claimCache := assumecache.NewAssumeCache(logger, claimInformer, "ResourceClaim", "", nil)
		opts := resourceslicetracker.Options{
			EnableDeviceTaintRules:   feature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
			EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
			SliceInformer:            informerFactory.Resource().V1().ResourceSlices(),
			KubeClient:               client,
		}
		if opts.EnableDeviceTaintRules {
			opts.TaintInformer = informerFactory.Resource().V1().DeviceTaintRules()
		}
		sliceTracker, err = resourceslicetracker.StartTracker(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("start resource slice tracker: %w", err)
		}
		defer sliceTracker.Stop()
		draManager = dynamicresources.NewDRAManager(ctx, claimCache, sliceTracker, informerFactory)
	}
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())

	fw, err := frameworkruntime.NewFramework(ctx, registry, &profile,
		frameworkruntime.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSharedDRAManager(draManager),
		frameworkruntime.WithSharedCSIManager(csiManager),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}), // drops events
		frameworkruntime.WithPodNominator(noNominator{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithPodGroupManager(schedCache),
	)
	if err != nil {
		return nil, fmt.Errorf("build framework: %w", err)
	}
	// Shutdown, in reverse: informers, then the framework's metrics recorder
	// (its goroutine ends when ctx is cancelled).
	defer func() {
		_ = fw.Close()
		cancel()
		informerFactory.Shutdown()
		frameworkruntime.WaitForShutdown(fw)
	}()

	// Plugins asked for their informers while being built; start and sync them.
	informerFactory.Start(ctx.Done())
	for typ, ok := range informerFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	if sliceTracker != nil && !toolscache.WaitForCacheSync(ctx.Done(), sliceTracker.HasSynced) {
		return nil, errors.New("resource slice tracker did not sync")
	}

	start := time.Now()
	for _, n := range nodes {
		schedCache.AddNode(logger, n)
	}
	for _, p := range pinned {
		if err := schedCache.AddPod(logger, p); err != nil {
			return nil, fmt.Errorf("add bound pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}

	out := &Output{
		Scheduler:                SchedulerVersion(),
		Profile:                  profile.SchedulerName,
		PercentageOfNodesToScore: PercentageOfNodesToScore,
		Seed:                     in.Seed,
		Pods:                     make([]PodResult, 0, len(pending)),
	}
	s := &scheduler{
		fw:       fw,
		cache:    schedCache,
		snapshot: snapshot,
		rng:      rand.New(rand.NewPCG(in.Seed, pcgStream)),
		filter:   mode == ModeFilter,
	}
	for _, pod := range pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := s.scheduleOne(ctx, pod)
		if err != nil {
			return nil, err
		}
		if r.Node != "" {
			out.Placed++
		} else {
			out.Unschedulable++
		}
		out.Pods = append(out.Pods, r)
	}
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

type scheduler struct {
	fw       framework.Framework
	cache    internalcache.Cache
	snapshot *internalcache.Snapshot
	rng      *rand.Rand
	filter   bool
}

// scheduleOne is one scheduling cycle (schedule_one.go's schedulingCycle
// without preemption) followed by the assume step.
func (s *scheduler) scheduleOne(ctx context.Context, pod *v1.Pod) (PodResult, error) {
	logger := klog.FromContext(ctx)
	res := PodResult{Pod: pod.Namespace + "/" + pod.Name}
	if s.filter {
		res.Feasible = &[]string{}
	}
	if err := s.cache.UpdateSnapshot(logger, s.snapshot); err != nil {
		return res, fmt.Errorf("update snapshot: %w", err)
	}
	allNodes, err := s.snapshot.List()
	if err != nil {
		return res, err
	}
	reasons := map[string]int{}
	// refuse records that plugin rejected node.
	refuse := func(node, plugin string) {
		reasons[plugin]++
		if s.filter {
			if res.Rejected == nil {
				res.Rejected = map[string]string{}
			}
			res.Rejected[node] = plugin
		}
	}
	refuseAll := func(plugin string) (PodResult, error) {
		for _, ni := range allNodes {
			refuse(ni.Node().Name, plugin)
		}
		res.Reasons = reasons
		return res, nil
	}
	fail := func(st *fwk.Status) (PodResult, error) {
		res.Error = st.AsError().Error()
		name := st.Plugin()
		if name == "" {
			name = "Error"
		}
		reasons[name]++
		res.Reasons = reasons
		return res, nil
	}

	// PreEnqueue (SchedulingGates): a gated pod never leaves the queue.
	for _, pl := range s.fw.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			return refuseAll(pl.Name())
		}
	}
	if len(allNodes) == 0 {
		res.Reasons = reasons
		return res, nil
	}

	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())

	preRes, st, preFilterPlugins := s.fw.RunPreFilterPlugins(ctx, state, pod)
	// Plugins whose PreFilterResult excluded nodes, as one name.
	preFilterName := strings.Join(sets.List(preFilterPlugins), ",")
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return fail(st)
		}
		if st.Plugin() != "" {
			return refuseAll(st.Plugin())
		}
		// The PreFilterResults of these plugins left no node.
		return refuseAll(preFilterName)
	}

	nodes := allNodes
	if !preRes.AllNodes() {
		nodes = make([]fwk.NodeInfo, 0, len(preRes.NodeNames))
		for _, ni := range allNodes {
			if preRes.NodeNames.Has(ni.Node().Name) {
				nodes = append(nodes, ni)
			} else {
				refuse(ni.Node().Name, preFilterName)
			}
		}
	}

	// Filter, over every candidate node, in parallel (as the scheduler does).
	statuses := make([]*fwk.Status, len(nodes))
	s.fw.Parallelizer().Until(ctx, len(nodes), func(i int) {
		statuses[i] = s.fw.RunFilterPlugins(ctx, state, pod, nodes[i])
	}, metrics.Filter)
	feasible := make([]fwk.NodeInfo, 0, len(nodes))
	for i, st := range statuses {
		switch {
		case st.IsSuccess():
			feasible = append(feasible, nodes[i])
		case st.IsRejected():
			refuse(nodes[i].Node().Name, st.Plugin())
		default:
			return fail(st)
		}
	}
	if s.filter {
		names := make([]string, len(feasible))
		for i, ni := range feasible {
			names[i] = ni.Node().Name
		}
		sort.Strings(names)
		res.Feasible = &names
	}
	if len(feasible) == 0 {
		res.Reasons = reasons
		return res, nil
	}

	// Score. With one feasible node the scheduler skips scoring.
	host := feasible[0].Node().Name
	if len(feasible) > 1 {
		if st := s.fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			return fail(st)
		}
		scores, st := s.fw.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return fail(st)
		}
		host = s.selectHost(scores)
	}

	// Assume, then Reserve (the scheduler's order); undo both on failure.
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := s.cache.AssumePod(logger, assumed); err != nil {
		return res, fmt.Errorf("assume %s on %s: %w", res.Pod, host, err)
	}
	if st := s.fw.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		s.fw.RunReservePluginsUnreserve(ctx, state, assumed, host)
		if err := s.cache.ForgetPod(logger, assumed); err != nil {
			return res, fmt.Errorf("forget %s: %w", res.Pod, err)
		}
		if !st.IsRejected() {
			return fail(st)
		}
		// Filter admitted host, so it stays in Feasible; only Reasons say it.
		res.Reasons = map[string]int{st.Plugin(): 1}
		return res, nil
	}
	res.Node = host
	return res, nil
}

// selectHost picks uniformly, with the seeded PCG, among the nodes with the
// highest total score, sorted by name so the draw does not depend on the
// order parallel filtering produced. (v1.37's scheduler pops a max-heap
// whose tie-breaker, Randomizer, is only randomized when extenders exist.)
func (s *scheduler) selectHost(scores []fwk.NodePluginScores) string {
	best := int64(0)
	var top []string
	for i, sc := range scores {
		switch {
		case i == 0 || sc.TotalScore > best:
			best = sc.TotalScore
			top = append(top[:0], sc.Name)
		case sc.TotalScore == best:
			top = append(top, sc.Name)
		}
	}
	if len(top) == 1 {
		return top[0]
	}
	sort.Strings(top)
	return top[s.rng.IntN(len(top))]
}

// prepare copies and API-defaults the input objects (as the API server would
// have stored them), and splits pods into bound (pinned) and pending ones,
// the latter in the scheduling queue's order.
func prepare(in *Input) (nodes []*v1.Node, pinned, pending []*v1.Pod, err error) {
	seen := map[string]bool{}
	for i, n := range in.Nodes {
		if n == nil || n.Name == "" {
			return nil, nil, nil, fmt.Errorf("node %d has no name", i)
		}
		if seen[n.Name] {
			return nil, nil, nil, fmt.Errorf("node %q is listed twice", n.Name)
		}
		seen[n.Name] = true
		n = n.DeepCopy()
		corev1defaults.SetObjectDefaults_Node(n)
		nodes = append(nodes, n)
	}
	type queued struct {
		pod   *v1.Pod
		index int
	}
	var queue []queued
	keys := map[string]bool{}
	for i, p := range in.Pods {
		if p == nil || p.Name == "" {
			return nil, nil, nil, fmt.Errorf("pod %d has no name", i)
		}
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		p = p.DeepCopy()
		if p.Namespace == "" {
			p.Namespace = metav1.NamespaceDefault
		}
		key := p.Namespace + "/" + p.Name
		if keys[key] {
			return nil, nil, nil, fmt.Errorf("pod %q is listed twice", key)
		}
		keys[key] = true
		if p.UID == "" {
			// The cache keys pods by UID.
			p.UID = types.UID(fmt.Sprintf("kubesched-%d-%s", i, key))
		}
		corev1defaults.SetObjectDefaults_Pod(p)
		if p.Spec.NodeName != "" {
			if !seen[p.Spec.NodeName] {
				klog.Warningf("pod %s is bound to node %q, which is not in the input; it is ignored", key, p.Spec.NodeName)
				continue
			}
			pinned = append(pinned, p)
			continue
		}
		p.Status.NominatedNodeName = "" // no nominator, no preemption
		queue = append(queue, queued{p, i})
	}
	// PrioritySort: higher priority first, then the older queue timestamp
	// (here: creationTimestamp), then input order.
	slices.SortStableFunc(queue, func(a, b queued) int {
		pa, pb := podPriority(a.pod), podPriority(b.pod)
		if pa != pb {
			if pa > pb {
				return -1
			}
			return 1
		}
		if c := a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time); c != 0 {
			return c
		}
		return a.index - b.index
	})
	for _, q := range queue {
		pending = append(pending, q.pod)
	}
	return nodes, pinned, pending, nil
}

func podPriority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// namespaces returns a Namespace object for every namespace a pod is in, so
// namespaceSelectors of pod (anti-)affinity terms can be evaluated.
func namespaces(pinned, pending []*v1.Pod) []runtime.Object {
	set := map[string]bool{}
	var out []runtime.Object
	for _, p := range slices.Concat(pinned, pending) {
		if set[p.Namespace] {
			continue
		}
		set[p.Namespace] = true
		out = append(out, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:   p.Namespace,
			Labels: map[string]string{v1.LabelMetadataName: p.Namespace},
		}})
	}
	return out
}

// synthesizeVolumes returns the objects for the fake clientset: the input's
// PVCs, PVs and StorageClasses, with each claim that names its volume
// (spec.volumeName) completed as bound (see completeBinding; a volume the
// input lacks is synthesized), plus, for every PVC a pod references (by
// persistentVolumeClaim or as a generic ephemeral volume) that the input
// lacks, a synthesized PVC already bound to a synthesized PV. Without them
// VolumeBinding would reject the pod for lack of objects. The PV has no node
// affinity; when the first pod referencing the claim is bound to a node, the
// PV carries that node's zone label, so VolumeZone keeps later users of the
// claim in that zone.
func synthesizeVolumes(in *Input, nodes []*v1.Node, pinned, pending []*v1.Pod) []runtime.Object {
	var objs []runtime.Object
	have := map[string]bool{}
	pvs := map[string]*v1.PersistentVolume{}
	for _, pv := range in.PersistentVolumes {
		if pvs[pv.Name] != nil {
			klog.Warningf("PersistentVolume %s is listed twice; the first is used", pv.Name)
			continue
		}
		pv = pv.DeepCopy()
		pvs[pv.Name] = pv
		objs = append(objs, pv)
	}
	for _, c := range in.PersistentVolumeClaims {
		c = c.DeepCopy()
		if c.Namespace == "" {
			c.Namespace = metav1.NamespaceDefault
		}
		key := c.Namespace + "/" + c.Name
		if have[key] {
			klog.Warningf("PersistentVolumeClaim %s is listed twice; the first is used", key)
			continue
		}
		have[key] = true
		if c.Spec.VolumeName != "" {
			pv := pvs[c.Spec.VolumeName]
			if pv == nil {
				// The claim names a volume the input lacks: synthesize it.
				pv = boundPV(c.Spec.VolumeName, c, pvcSize(c))
				pvs[pv.Name] = pv
				objs = append(objs, pv)
			}
			completeBinding(c, pv)
		}
		objs = append(objs, c)
	}
	for _, sc := range in.StorageClasses {
		objs = append(objs, sc.DeepCopy())
	}
	zoneOf := map[string]string{}
	for _, n := range nodes {
		if z, ok := n.Labels[v1.LabelTopologyZone]; ok {
			zoneOf[n.Name] = z
		}
	}
	for _, p := range slices.Concat(pinned, pending) {
		for _, vol := range p.Spec.Volumes {
			var claim string
			var size resource.Quantity
			var owner []metav1.OwnerReference
			switch {
			case vol.PersistentVolumeClaim != nil:
				claim = vol.PersistentVolumeClaim.ClaimName
			case vol.Ephemeral != nil:
				// The ephemeral volume controller names the claim
				// <pod>-<volume> and makes the pod its controller.
				claim = p.Name + "-" + vol.Name
				owner = []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}}
				if t := vol.Ephemeral.VolumeClaimTemplate; t != nil {
					size = t.Spec.Resources.Requests[v1.ResourceStorage]
				}
			default:
				continue
			}
			key := p.Namespace + "/" + claim
			if claim == "" || have[key] {
				continue
			}
			have[key] = true
			if size.IsZero() {
				size = resource.MustParse("1Gi")
			}
			pvc := &v1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: p.Namespace, OwnerReferences: owner},
				Spec: v1.PersistentVolumeClaimSpec{
					AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
					Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: size}},
					StorageClassName: ptr.To(""),
					VolumeName:       fmt.Sprintf("kubesched-pv-%s-%s", p.Namespace, claim),
				},
			}
			pv := boundPV(pvc.Spec.VolumeName, pvc, size)
			completeBinding(pvc, pv)
			if z, ok := zoneOf[p.Spec.NodeName]; ok && p.Spec.NodeName != "" {
				pv.Labels[v1.LabelTopologyZone] = z
			}
			objs = append(objs, pvc, pv)
		}
	}
	return objs
}

// completeBinding does what the PV controller does once a claim and its
// volume point at each other: the claim gets the bind-completed annotation
// (without it VolumeBinding takes a claim with spec.volumeName for one
// still to bind, and rejects the pod as having unbound immediate claims),
// both get phase Bound, and the volume's claimRef names the claim's UID.
// A volume already bound to another claim is left alone (VolumeBinding
// then judges the pair as it finds it).
func completeBinding(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
	ref := pv.Spec.ClaimRef
	if ref == nil {
		ref = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name}
		pv.Spec.ClaimRef = ref
	}
	if ref.Namespace == "" {
		ref.Namespace = metav1.NamespaceDefault
	}
	if ref.Namespace != pvc.Namespace || ref.Name != pvc.Name || (ref.UID != "" && pvc.UID != "" && ref.UID != pvc.UID) {
		return
	}
	if pvc.UID == "" {
		pvc.UID = ref.UID
	}
	if pvc.UID == "" {
		pvc.UID = types.UID("kubesched-pvc-" + pvc.Namespace + "/" + pvc.Name)
	}
	ref.UID = pvc.UID
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, "pv.kubernetes.io/bind-completed", "yes")
	pvc.Status.Phase = v1.ClaimBound
	if len(pvc.Status.AccessModes) == 0 {
		pvc.Status.AccessModes = pvc.Spec.AccessModes
	}
	if pvc.Status.Capacity == nil && pv.Spec.Capacity != nil {
		pvc.Status.Capacity = pv.Spec.Capacity.DeepCopy()
	}
	pv.Status.Phase = v1.VolumeBound
}

// boundPV is a synthesized volume for pvc: no node affinity, no zone.
func boundPV(name string, pvc *v1.PersistentVolumeClaim, size resource.Quantity) *v1.PersistentVolume {
	modes := pvc.Spec.AccessModes
	if len(modes) == 0 {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: size},
			AccessModes:                   modes,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				HostPath: &v1.HostPathVolumeSource{Path: "/kubesched/" + name},
			},
			StorageClassName: ptr.Deref(pvc.Spec.StorageClassName, ""),
			ClaimRef: &v1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
		},
	}
}

func pvcSize(pvc *v1.PersistentVolumeClaim) resource.Quantity {
	if q, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]; ok && !q.IsZero() {
		return q
	}
	return resource.MustParse("1Gi")
}

// noNominator is an empty PodNominator: nothing is ever nominated (there is
// no preemption), and plugins asking for nominated pods get none.
type noNominator struct{}

func (noNominator) AddNominatedPod(klog.Logger, fwk.PodInfo, *fwk.NominatingInfo) {}
func (noNominator) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (noNominator) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo)          {}
func (noNominator) NominatedPodsForNode(string) []fwk.PodInfo                     { return nil }
