package k8sgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// workload is an owner of pods: a Deployment (its pods owned by a
// ReplicaSet <name>-<hash>), a StatefulSet or a Job.
type workload struct {
	kind     string // "Deployment", "StatefulSet", "Job"
	name     string
	tpl      podTemplate
	replicas int               // live (Running or Pending) pods
	finished []corev1.PodPhase // a Job's completed pods, before its live ones
	cron     string            // a CronJob's run: named <cron>-<minute> when made
}

// Controller label keys.
const (
	labelApp             = "app"
	labelPodTemplateHash = "pod-template-hash"
	labelRevisionHash    = "controller-revision-hash"
	labelJobName         = "batch.kubernetes.io/job-name"
	labelJobUID          = "batch.kubernetes.io/controller-uid"
)

// pods makes the workload's pods in creation order, a second or few apart.
func (w *workload) pods(pl *planner, r *rand.Rand, c *clock) []*corev1.Pod {
	if w.cron != "" {
		w.name = pl.unique(w.tpl.namespace, fmt.Sprintf("%s-%d", w.cron, c.t.Unix()/60))
	}
	var out []*corev1.Pod
	t := w.tpl
	uid := randUID(r)
	switch w.kind {
	case "Deployment":
		hash := randString(r, hashLen)
		rs := w.name + "-" + hash
		t.labels = copyMap(t.labels)
		t.labels[labelPodTemplateHash] = hash
		t.owner = ownerRef("apps/v1", "ReplicaSet", rs, uid)
		for range w.replicas {
			out = append(out, t.pod(c.generateName(r, rs), randUID(r), c.version(), c.tick(r, 1, 3)))
		}
	case "StatefulSet":
		rev := w.name + "-" + randString(r, hashLen)
		t.owner = ownerRef("apps/v1", "StatefulSet", w.name, uid)
		for i := range w.replicas {
			name := w.name + "-" + strconv.Itoa(i)
			u := t
			u.labels = copyMap(t.labels)
			u.labels[labelRevisionHash] = rev
			u.labels["statefulset.kubernetes.io/pod-name"] = name
			u.labels["apps.kubernetes.io/pod-index"] = strconv.Itoa(i)
			u.volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + name}}}}
			// StatefulSet pods start one after the other (OrderedReady).
			p := u.pod(name, randUID(r), c.version(), c.tick(r, 5, 40))
			p.Spec.Hostname, p.Spec.Subdomain = name, w.name
			out = append(out, p)
		}
	case "Job":
		t.labels = copyMap(t.labels)
		for _, k := range []string{labelJobUID, "controller-uid"} {
			t.labels[k] = string(uid)
		}
		for _, k := range []string{labelJobName, "job-name"} {
			t.labels[k] = w.name
		}
		t.annotations = map[string]string{"batch.kubernetes.io/job-tracking": ""}
		t.owner = ownerRef("batch/v1", "Job", w.name, uid)
		for i := range len(w.finished) + w.replicas {
			p := t.pod(c.generateName(r, w.name), randUID(r), c.version(), c.tick(r, 1, 3))
			if i < len(w.finished) {
				p.Status.Phase = w.finished[i]
			}
			out = append(out, p)
		}
	default:
		panic("k8sgen: unknown workload kind " + w.kind)
	}
	return out
}

// namespaceProfile is a team's namespace: how many of the deployments it
// holds and whether its services run at the "high" priority.
type namespaceProfile struct {
	name   string
	weight float64
	high   bool
}

var appNamespaces = []namespaceProfile{
	{"web", 0.20, false}, {"orders", 0.14, true}, {"payments", 0.08, true},
	{"catalog", 0.14, false}, {"search", 0.10, false}, {"identity", 0.08, true},
	{"analytics", 0.10, false}, {"notifications", 0.10, false}, {"default", 0.06, false},
}

var (
	serviceNouns = []string{"checkout", "cart", "pricing", "inventory", "recommendations", "profile",
		"session", "auth", "gateway", "frontend", "shipping", "invoice", "ledger", "fraud", "email",
		"sms", "push", "indexer", "catalog", "reviews", "ratings", "media", "thumbnails", "geo", "tax",
		"coupons", "loyalty", "wishlist", "graphql", "bff", "admin", "reports", "audit", "events",
		"webhooks", "scheduler", "export", "import", "feature-flags", "returns"}
	serviceRoles = []string{"api", "worker", "web", "consumer", "cache", "sync", "grpc", "proxy", "backend", "jobs"}
	datastores   = []string{"postgres", "redis", "kafka", "zookeeper", "rabbitmq", "mongodb", "etcd",
		"cassandra", "nats", "clickhouse", "elasticsearch", "minio"}
	cronJobs  = []string{"nightly-etl", "hourly-report", "db-backup", "cache-warmup", "invoice-run", "sitemap-build"}
	gpuModels = []string{"llama-3-8b", "whisper", "sdxl", "bert-ranker", "embeddings", "ocr", "yolo"}
)

// sizeClass is a family of container requests, as people write them.
type sizeClass struct {
	weight   float64
	milliCPU []int64
	memMi    []int64
}

var (
	sizeClasses = []sizeClass{
		{0.25, []int64{50, 50, 100}, []int64{64, 128}},
		{0.30, []int64{100, 150, 200, 250}, []int64{128, 256, 384, 512}},
		{0.25, []int64{250, 300, 500, 750, 1000}, []int64{512, 768, 1024, 1536, 2048}},
		{0.15, []int64{1000, 1500, 2000}, []int64{2048, 3072, 4096}},
		{0.05, []int64{2000, 3000, 4000}, []int64{4096, 6144, 8192}},
	}
	memoryHeavy = sizeClass{1, []int64{500, 1000, 2000}, []int64{4096, 8192, 12288, 16384}}
	dataSize    = sizeClass{1, []int64{250, 500, 1000, 2000}, []int64{1024, 2048, 4096, 8192}}
)

func (s sizeClass) draw(r *rand.Rand) (milliCPU, mem int64) {
	return pick(r, s.milliCPU), pick(r, s.memMi) * miB
}

func drawSizeClass(r *rand.Rand) sizeClass {
	x := r.Float64()
	for _, s := range sizeClasses {
		if x < s.weight {
			return s
		}
		x -= s.weight
	}
	return sizeClasses[len(sizeClasses)-1]
}

// Shares of the deployments with each trait (drawn independently).
const (
	shareBestEffort     = 0.05
	shareGuaranteed     = 0.25
	shareNoLimits       = 0.30
	shareInit           = 0.20
	shareSidecar        = 0.25
	shareMemoryPool     = 0.08
	shareAntiAffinity   = 0.12
	shareZoneSpread     = 0.15
	sharePreferred      = 0.20
	shareHighElsewhere  = 0.05
	shareHighInHighTeam = 0.60
)

// planner draws workloads and keeps names unique per namespace.
type planner struct {
	r     *rand.Rand
	names map[string]bool
}

func (pl *planner) unique(ns, base string) string {
	name := base
	for i := 2; pl.names[ns+"/"+name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	pl.names[ns+"/"+name] = true
	return name
}

func appLabels(name string) map[string]string { return map[string]string{labelApp: name} }

func selfSelector(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: appLabels(name)}
}

func hostAntiAffinity(name string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: selfSelector(name), TopologyKey: corev1.LabelHostname}
}

func zoneSpread(name string) []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
		WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selfSelector(name)}}
}

func image(ns, name string, r *rand.Rand) string {
	return fmt.Sprintf("registry.internal/%s/%s:v1.%d.%d", ns, name, r.IntN(30), r.IntN(10))
}

// limits turns a request into a container's resources in one of three
// styles: Guaranteed (limits = requests), burstable (limits 2×), or
// requests only.
func limits(r *rand.Rand, milliCPU, mem int64) corev1.ResourceRequirements {
	x := r.Float64()
	switch {
	case x < shareGuaranteed:
		return requirements(milliCPU, mem, -1, -1, nil)
	case x < shareGuaranteed+shareNoLimits:
		return requirements(milliCPU, mem, 0, 0, nil)
	}
	return requirements(milliCPU, mem, 2*milliCPU, 2*mem, nil)
}

func drawReplicas(r *rand.Rand) int {
	x := r.Float64()
	switch {
	case x < 0.15:
		return 1
	case x < 0.40:
		return 2
	case x < 0.70:
		return 3
	case x < 0.90:
		return int(between(r, 4, 6))
	}
	return int(between(r, 8, 12))
}

func drawNamespace(r *rand.Rand) namespaceProfile {
	x := r.Float64()
	for _, n := range appNamespaces {
		if x < n.weight {
			return n
		}
		x -= n.weight
	}
	return appNamespaces[len(appNamespaces)-1]
}

// deployment draws a team's Deployment with at most maxReplicas pods.
func (pl *planner) deployment(maxReplicas int) *workload {
	r := pl.r
	ns := drawNamespace(r)
	name := pl.unique(ns.name, pick(r, serviceNouns)+"-"+pick(r, serviceRoles))
	w := &workload{kind: "Deployment", name: name, replicas: drawReplicas(r)}
	t := &w.tpl
	t.namespace, t.labels = ns.name, appLabels(name)
	size := drawSizeClass(r)
	memPool := chance(r, shareMemoryPool)
	if memPool {
		size = memoryHeavy
		t.nodeSelector = map[string]string{labelNodePool: poolMemory}
	}
	var rr corev1.ResourceRequirements
	if !memPool && chance(r, shareBestEffort) {
		rr = corev1.ResourceRequirements{}
	} else {
		cpu, mem := size.draw(r)
		rr = limits(r, cpu, mem)
	}
	main := container(name, image(ns.name, name, r), rr)
	main.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	t.containers = []corev1.Container{main}
	bestEffort := len(rr.Requests) == 0
	if !bestEffort && chance(r, shareSidecar) {
		t.containers = append(t.containers, container("envoy", "envoyproxy/envoy:v1.33.2",
			requirements(100, 128*miB, 1000, 512*miB, nil)))
	}
	if !bestEffort && chance(r, shareInit) {
		// Half the init containers ask for more than the app (a migration),
		// so the pod's effective request is the init container's.
		cpu, mem := int64(10), 32*miB
		if chance(r, 0.5) {
			cpu, mem = pick(r, []int64{500, 1000, 2000}), pick(r, []int64{512, 1024, 2048})*miB
		}
		t.initContainers = []corev1.Container{container("init-"+pick(r, []string{"migrate", "config", "wait-for-db"}),
			main.Image, requirements(cpu, mem, -1, -1, nil))}
	}
	aff := &corev1.Affinity{}
	if chance(r, shareAntiAffinity) {
		w.replicas = int(between(r, 2, 4))
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{hostAntiAffinity(name)}}
	}
	if chance(r, shareZoneSpread) {
		w.replicas = int(between(r, 3, 9))
		t.spread = zoneSpread(name)
	}
	if chance(r, sharePreferred) {
		if chance(r, 0.5) {
			if aff.PodAntiAffinity == nil {
				aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
			}
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{
				{Weight: 100, PodAffinityTerm: hostAntiAffinity(name)}}
		} else {
			aff.NodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: labelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}}}}}}
		}
	}
	if aff.PodAntiAffinity != nil || aff.NodeAffinity != nil {
		t.affinity = aff
	}
	if (ns.high && chance(r, shareHighInHighTeam)) || chance(r, shareHighElsewhere) {
		t.priorityClass = PriorityHigh
	}
	w.replicas = min(w.replicas, maxReplicas)
	return w
}

// statefulSet draws a datastore: required hostname anti-affinity on its own
// label, a volume per pod, sometimes the memory pool or a zone spread.
func (pl *planner) statefulSet(maxReplicas int) *workload {
	r := pl.r
	ns := "data"
	store := pick(r, datastores)
	if store == "elasticsearch" {
		ns = "search"
	}
	name := pl.unique(ns, pick(r, serviceNouns)+"-"+store)
	w := &workload{kind: "StatefulSet", name: name, replicas: pick(r, []int{2, 3, 3, 3, 3, 3, 3, 5, 5})}
	t := &w.tpl
	t.namespace, t.labels = ns, appLabels(name)
	cpu, mem := dataSize.draw(r)
	if chance(r, 0.25) {
		t.nodeSelector = map[string]string{labelNodePool: poolMemory}
		cpu, mem = memoryHeavy.draw(r)
	}
	t.containers = []corev1.Container{container(store, "docker.io/library/"+store+":latest", limits(r, cpu, mem))}
	t.affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{hostAntiAffinity(name)}}}
	if chance(r, 0.3) {
		t.spread = zoneSpread(name)
	}
	if chance(r, 0.5) {
		t.priorityClass = PriorityHigh
	}
	w.replicas = min(w.replicas, maxReplicas)
	return w
}

// batchJob draws a running backfill Job of parallelism ≤ maxPods.
func (pl *planner) batchJob(maxPods int) *workload {
	r := pl.r
	name := pl.unique("batch", fmt.Sprintf("backfill-%s-%d", pick(r, serviceNouns), between(r, 1000, 9999)))
	w := &workload{kind: "Job", name: name, replicas: min(int(between(r, 1, 4)), maxPods)}
	cpu, mem := pick(r, []int64{500, 1000, 2000}), pick(r, []int64{1024, 2048, 4096})*miB
	w.tpl = podTemplate{namespace: "batch", labels: appLabels(name), restartPolicy: corev1.RestartPolicyOnFailure,
		containers: []corev1.Container{container("backfill", image("batch", "backfill", r), requirements(cpu, mem, 0, 2*mem, nil))}}
	return w
}

// cronRun draws a CronJob's past run: a Job named <cronjob>-<minute> whose
// pods finished, the last Succeeded unless every attempt Failed (retried:
// one Failed, then Succeeded). It returns at most maxPods pods' worth.
func (pl *planner) cronRun(maxPods int, retried bool) *workload {
	r := pl.r
	cron := pick(r, cronJobs)
	var phases []corev1.PodPhase
	switch x := r.Float64(); {
	case retried:
		phases = []corev1.PodPhase{corev1.PodFailed, corev1.PodSucceeded}
	case x < 0.80:
		phases = []corev1.PodPhase{corev1.PodSucceeded}
	case x < 0.92:
		phases = []corev1.PodPhase{corev1.PodFailed, corev1.PodSucceeded}
	default:
		phases = []corev1.PodPhase{corev1.PodFailed, corev1.PodFailed}
	}
	phases = phases[:min(len(phases), maxPods)]
	cpu, mem := pick(r, []int64{100, 250, 500}), pick(r, []int64{256, 512, 1024})*miB
	return &workload{kind: "Job", cron: cron, finished: phases, tpl: podTemplate{
		namespace: "batch", labels: map[string]string{labelApp: cron}, restartPolicy: corev1.RestartPolicyNever,
		containers: []corev1.Container{container(cron, image("batch", cron, r), requirements(cpu, mem, 0, mem, nil))}}}
}

// gpuTolerationSelector is what a GPU pod carries to land on the GPU pool.
func gpuPod(t *podTemplate) {
	t.tolerations = append(t.tolerations, corev1.Toleration{Key: string(ResourceGPU), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	t.nodeSelector = map[string]string{labelNodePool: poolGPU}
}

// gpuWorkload draws an inference Deployment or a fine-tuning Job in "ml",
// each pod asking one GPU.
func (pl *planner) gpuWorkload(maxPods int) *workload {
	r := pl.r
	model := pick(r, gpuModels)
	cpu, mem := pick(r, []int64{2000, 2500, 3000}), pick(r, []int64{8, 10, 12})*giB
	rr := requirements(cpu, mem, 0, mem, corev1.ResourceList{ResourceGPU: count(1)})
	var w *workload
	if chance(r, 0.6) {
		name := pl.unique("ml", "inference-"+model)
		w = &workload{kind: "Deployment", name: name, replicas: min(int(between(r, 1, 2)), maxPods)}
		w.tpl.containers = []corev1.Container{container("server", image("ml", "inference-"+model, r), rr)}
	} else {
		name := pl.unique("ml", fmt.Sprintf("finetune-%s-%d", model, between(r, 100, 999)))
		w = &workload{kind: "Job", name: name, replicas: 1}
		w.tpl.restartPolicy = corev1.RestartPolicyNever
		w.tpl.containers = []corev1.Container{container("trainer", image("ml", "trainer", r), rr)}
	}
	w.tpl.namespace, w.tpl.labels = "ml", appLabels(w.name)
	gpuPod(&w.tpl)
	return w
}

// unschedulable draws one of four pods no node can take: too large for any
// node, a selector no node matches, more GPUs than a node has, more memory
// than the memory pool's nodes.
func (pl *planner) unschedulable(i int) *workload {
	r := pl.r
	one := func(ns, base string, rr corev1.ResourceRequirements) *workload {
		name := pl.unique(ns, base)
		w := &workload{kind: "Deployment", name: name, replicas: 1}
		w.tpl = podTemplate{namespace: ns, labels: appLabels(name), containers: []corev1.Container{container(base, image(ns, base, r), rr)}}
		return w
	}
	switch i % 4 {
	case 0:
		return one("analytics", "spark-driver-xl", requirements(48000, 192*giB, -1, -1, nil))
	case 1:
		w := one("web", "edge-renderer-arm64", requirements(250, 512*miB, 0, 0, nil))
		w.tpl.nodeSelector = map[string]string{corev1.LabelArchStable: "arm64"}
		return w
	case 2:
		name := pl.unique("ml", fmt.Sprintf("train-llm-%d", between(r, 100, 999)))
		w := &workload{kind: "Job", name: name, replicas: 1}
		w.tpl = podTemplate{namespace: "ml", labels: appLabels(name), restartPolicy: corev1.RestartPolicyNever,
			containers: []corev1.Container{container("trainer", image("ml", "trainer", r),
				requirements(16000, 64*giB, 0, 64*giB, corev1.ResourceList{ResourceGPU: count(4)}))}}
		gpuPod(&w.tpl)
		return w
	}
	w := one("data", "olap-cache", requirements(4000, 96*giB, 0, -1, nil))
	w.tpl.nodeSelector = map[string]string{labelNodePool: poolMemory}
	return w
}

// infrastructure is what every cluster runs before the teams' workloads:
// 9 pods.
func (pl *planner) infrastructure() []*workload {
	r := pl.r
	dep := func(ns, name string, replicas int, cpu, mem, memLim int64, prio string) *workload {
		pl.names[ns+"/"+name] = true
		w := &workload{kind: "Deployment", name: name, replicas: replicas}
		w.tpl = podTemplate{namespace: ns, labels: appLabels(name), priorityClass: prio, serviceAccount: name,
			containers: []corev1.Container{container(name, image(ns, name, r), requirements(cpu, mem, 0, memLim, nil))}}
		return w
	}
	coredns := dep("kube-system", "coredns", 2, 100, 70*miB, 170*miB, PrioritySystemClusterCritical)
	coredns.tpl.labels = map[string]string{"k8s-app": "kube-dns"}
	coredns.tpl.tolerations = []corev1.Toleration{
		{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
		{Key: labelControlPlane, Effect: corev1.TaintEffectNoSchedule},
	}
	coredns.tpl.affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}, TopologyKey: corev1.LabelHostname}}}}}
	ingress := dep("ingress-nginx", "ingress-nginx-controller", 2, 100, 90*miB, 0, "")
	ingress.tpl.spread = zoneSpread("ingress-nginx-controller")
	prom := &workload{kind: "StatefulSet", name: "prometheus-k8s", replicas: 2}
	pl.names["monitoring/prometheus-k8s"] = true
	prom.tpl = podTemplate{namespace: "monitoring", labels: appLabels("prometheus-k8s"), serviceAccount: "prometheus-k8s",
		containers: []corev1.Container{container("prometheus", "quay.io/prometheus/prometheus:v3.2.1", requirements(500, 2*giB, 0, 4*giB, nil))},
		affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{hostAntiAffinity("prometheus-k8s")}}}}
	return []*workload{
		coredns,
		dep("kube-system", "metrics-server", 1, 100, 200*miB, 0, PrioritySystemClusterCritical),
		ingress,
		dep("monitoring", "kube-state-metrics", 1, 50, 150*miB, 300*miB, ""),
		dep("cert-manager", "cert-manager", 1, 10, 32*miB, 0, ""),
		prom,
	}
}

const infrastructurePods = 9
