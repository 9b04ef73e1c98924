package k8sgen

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// epoch is when the synthetic cluster's first node registers; every other
// time of it follows from the seed.
var epoch = time.Date(2025, 9, 1, 7, 0, 0, 0, time.UTC)

// Workload mix, as shares of the pods left after the DaemonSet and static
// pods: StatefulSets and running Jobs take these shares; Deployments the
// rest. GPU pods fill gpuFill of the GPU devices; a few pods (3 + one per
// pendingEvery) are built to be unschedulable; completed Job pods are about
// completedPercent of Pods on top (at least one; fewer when the cluster
// was too full for some of them to have run).
const (
	shareStatefulSetPods = 0.08
	shareRunningJobPods  = 0.02
	gpuFill              = 0.75
	pendingEvery         = 1500
	completedPercent     = 1
)

// Generate returns a synthetic cluster: `kubectl get nodes -o json` and
// `kubectl get pods -A -o json` of it, for one seed the same bytes.
//
// The cluster has o.Nodes nodes in o.Zones zones (3 control-plane nodes,
// m5 general-pool nodes, an r5 memory pool, a g5 GPU pool; one NotReady, one
// cordoned) and o.Pods Running or Pending pods: DaemonSet and static pods,
// Deployments, StatefulSets, running Jobs, GPU pods and a few unschedulable
// pods, plus about 1% completed Job pods. Pods are bound in creation order
// by a simulation of kube-scheduler (filters, LeastAllocated score, seeded
// ties); a pod that fits nowhere stays Pending.
func Generate(o Options) (nodes, pods []byte, err error) {
	g, err := generate(o, true)
	if err != nil {
		return nil, nil, err
	}
	return g.marshal()
}

// generated is a cluster before printing.
type generated struct {
	nodes []*genNode
	pods  []*simPod // creation order
}

func (g *generated) marshal() (nodes, pods []byte, err error) {
	ns := make([]*corev1.Node, len(g.nodes))
	for i, n := range g.nodes {
		ns[i] = n.node
	}
	ps := make([]*corev1.Pod, len(g.pods))
	for i, p := range g.pods {
		ps[i] = p.pod
	}
	if nodes, err = marshalNodes(ns); err != nil {
		return nil, nil, err
	}
	if pods, err = marshalPods(ps); err != nil {
		return nil, nil, err
	}
	return nodes, pods, nil
}

func generate(o Options, cache bool) (*generated, error) {
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	clk := &clock{t: epoch, rv: 1000}
	ips := newIPPlan(o.Zones)
	nodes := planNodes(o, stream(o.Seed, "plan"))

	// One general node is cordoned (drained) and one NotReady from soon
	// after they joined, so they hold only DaemonSet pods.
	var general []int
	for i, n := range nodes {
		if n.pool == poolGeneral {
			general = append(general, i)
		}
	}
	rs := stream(o.Seed, "special")
	rs.Shuffle(len(general), func(i, j int) { general[i], general[j] = general[j], general[i] })
	cordoned, notReady := nodes[general[0]], nodes[general[1]]

	rn := stream(o.Seed, "nodes")
	dss := daemonSets(stream(o.Seed, "daemonsets"), clk)
	var pods []*corev1.Pod
	for _, g := range nodes {
		buildNode(g, rn, ips, clk)
		switch g {
		case cordoned:
			cordon(g.node, g.created.Add(10*time.Minute))
		case notReady:
			markNotReady(g, g.created.Add(3*time.Minute))
		}
		if g.pool == poolControlPlane {
			pods = append(pods, mirrorPods(g, rn, clk)...)
		}
		for _, ds := range dss {
			if ds.shouldRun(g.node) {
				pods = append(pods, ds.podFor(g.node, rn, clk))
			}
		}
	}

	ws, err := planWorkloads(o, len(pods), gpuDevices(nodes))
	if err != nil {
		return nil, err
	}
	rw := ws.pl.r
	clk.tick(rw, 3600, 7200)
	for _, w := range ws.list {
		clk.tick(rw, 60, 1800)
		pods = append(pods, w.pods(ws.pl, rw, clk)...)
	}

	g := &generated{nodes: nodes}
	simNodes := make([]*simNode, len(nodes))
	for i, n := range nodes {
		if simNodes[i], err = newSimNode(n.node); err != nil {
			return nil, err
		}
	}
	for _, p := range pods {
		sp, err := newSimPod(p)
		if err != nil {
			return nil, err
		}
		sp.terminal = p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		_, sp.mirror = p.Annotations["kubernetes.io/config.mirror"]
		g.pods = append(g.pods, sp)
	}
	newScheduler(simNodes, o.Seed, cache).run(g.pods)
	// A completed Job pod that found no room never ran: it is left out.
	kept := g.pods[:0]
	for _, sp := range g.pods {
		if !sp.terminal || sp.node >= 0 {
			kept = append(kept, sp)
		}
	}
	g.pods = kept

	now := clk.tick(rw, 120, 600)
	for _, n := range nodes {
		finishNode(n, now)
	}
	rip := stream(o.Seed, "pod-status")
	for _, sp := range g.pods {
		var node *genNode
		ip := ""
		if sp.node >= 0 {
			node = nodes[sp.node]
			ip = node.ip
			if !sp.pod.Spec.HostNetwork {
				ip = ips.take(rip, node.zone)
			}
		}
		finishPod(sp, node, ip, rip)
	}
	return g, nil
}

func gpuDevices(nodes []*genNode) int {
	n := 0
	for _, g := range nodes {
		n += int(g.it.gpus)
	}
	return n
}

// workloadPlan is the teams' workloads in creation order.
type workloadPlan struct {
	pl   *planner
	list []*workload
}

// planWorkloads fills the pods left after the fixed ones (DaemonSet and
// static pods): infrastructure first, then the teams' workloads in random
// order, the unschedulable pods last.
func planWorkloads(o Options, fixed, gpus int) (*workloadPlan, error) {
	rest := o.Pods - fixed
	pending := 3 + max(rest, 0)/pendingEvery
	gpuPods := max(1, int(float64(gpus)*gpuFill+0.5))
	if need := infrastructurePods + pending + gpuPods + 1; rest < need {
		return nil, fmt.Errorf("%w: Pods %d < %d for %d nodes (%d DaemonSet and static pods, %d more)",
			ErrOptions, o.Pods, fixed+need, o.Nodes, fixed, need)
	}
	pl := &planner{r: stream(o.Seed, "workloads"), names: map[string]bool{}}
	list := pl.infrastructure()
	left := rest - infrastructurePods - pending
	var middle []*workload
	fill := func(target int, draw func(int) *workload) {
		target = min(target, left)
		for target > 0 {
			w := draw(target)
			target -= w.replicas
			left -= w.replicas
			middle = append(middle, w)
		}
	}
	fill(gpuPods, pl.gpuWorkload)
	fill(int(float64(rest)*shareStatefulSetPods), pl.statefulSet)
	fill(int(float64(rest)*shareRunningJobPods), pl.batchJob)
	fill(left, pl.deployment)
	// The first run is retried, so there is a Failed and a Succeeded pod
	// whenever there are two completed pods.
	for done, target := 0, max(1, o.Pods*completedPercent/100); done < target; {
		w := pl.cronRun(target-done, done == 0)
		done += len(w.finished)
		middle = append(middle, w)
	}
	pl.r.Shuffle(len(middle), func(i, j int) { middle[i], middle[j] = middle[j], middle[i] })
	list = append(list, middle...)
	for i := range pending {
		list = append(list, pl.unschedulable(i))
	}
	return &workloadPlan{pl: pl, list: list}, nil
}
