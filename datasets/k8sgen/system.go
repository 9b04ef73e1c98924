package k8sgen

import (
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// daemonSet is a DaemonSet: one pod on every node its nodeSelector matches
// and whose NoSchedule/NoExecute taints its pods tolerate.
type daemonSet struct {
	name string
	tpl  podTemplate
	hash string
}

// daemonTolerations are the tolerations the DaemonSet controller adds to
// every pod it makes; network-unavailable only for host-network pods.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	ex := func(key string, e corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: e}
	}
	out := []corev1.Toleration{
		ex(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute),
		ex(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		ex(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
		ex(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule),
		ex(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule),
		ex(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule),
	}
	if hostNetwork {
		out = append(out, ex(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule))
	}
	return out
}

// daemonSets returns the cluster's DaemonSets: kube-proxy and node-exporter
// everywhere (they tolerate every taint), the NVIDIA device plugin on the
// GPU pool.
func daemonSets(r *rand.Rand, now *clock) []*daemonSet {
	mk := func(ns, name string, labels map[string]string, c corev1.Container, tols []corev1.Toleration, sel map[string]string, hostNet, hostPID bool) *daemonSet {
		ds := &daemonSet{name: name, hash: randString(r, hashLen)}
		uid := randUID(r)
		l := copyMap(labels)
		l["controller-revision-hash"] = ds.hash
		l["pod-template-generation"] = "1"
		ds.tpl = podTemplate{
			namespace: ns, labels: l, containers: []corev1.Container{c},
			tolerations:   append(tols, daemonTolerations(hostNet)...),
			nodeSelector:  sel,
			priorityClass: PrioritySystemNodeCritical,
			hostNetwork:   hostNet, hostPID: hostPID,
			serviceAccount: name,
			owner:          ownerRef("apps/v1", "DaemonSet", name, uid),
		}
		return ds
	}
	all := corev1.Toleration{Operator: corev1.TolerationOpExists}
	allNoSchedule := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	return []*daemonSet{
		mk("kube-system", "kube-proxy", map[string]string{"k8s-app": "kube-proxy"},
			container("kube-proxy", "registry.k8s.io/kube-proxy:"+kubeletVersion, requirements(100, 0, 0, 0, nil)),
			[]corev1.Toleration{all}, nil, true, false),
		mk("monitoring", "prometheus-node-exporter", map[string]string{"app.kubernetes.io/name": "prometheus-node-exporter"},
			container("node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", requirements(50, 64*miB, 0, 128*miB, nil)),
			[]corev1.Toleration{allNoSchedule}, nil, true, true),
		mk("kube-system", "nvidia-device-plugin-daemonset", map[string]string{"name": "nvidia-device-plugin-ds"},
			container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1", corev1.ResourceRequirements{}),
			[]corev1.Toleration{
				{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
				{Key: string(ResourceGPU), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			}, map[string]string{labelNodePool: poolGPU}, false, false),
	}
}

// shouldRun is the DaemonSet controller's test: the node matches the
// nodeSelector and every NoSchedule/NoExecute taint is tolerated.
func (ds *daemonSet) shouldRun(n *corev1.Node) bool {
	for k, v := range ds.tpl.nodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	return untolerated(n.Spec.Taints, ds.tpl.tolerations) == nil
}

// podFor makes the DaemonSet's pod for node n, pinned to it by the node
// affinity the controller writes.
func (ds *daemonSet) podFor(n *corev1.Node, r *rand.Rand, c *clock) *corev1.Pod {
	t := ds.tpl
	t.affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: metadataName, Operator: corev1.NodeSelectorOpIn, Values: []string{n.Name}},
			}}},
		},
	}}
	created := c.tick(r, 2, 20)
	return t.pod(c.generateName(r, ds.name), randUID(r), c.version(), created)
}

// staticPods are the control plane's static pods, read by the kubelet from
// its manifest folder and mirrored into the API.
var staticPods = []struct {
	component, image string
	milliCPU, mem    int64
}{
	{"etcd", "registry.k8s.io/etcd:3.5.16-0", 100, 100 * miB},
	{"kube-apiserver", "registry.k8s.io/kube-apiserver:" + kubeletVersion, 250, 0},
	{"kube-controller-manager", "registry.k8s.io/kube-controller-manager:" + kubeletVersion, 200, 0},
	{"kube-scheduler", "registry.k8s.io/kube-scheduler:" + kubeletVersion, 100, 0},
}

// mirrorPods makes the mirror pods of a control-plane node: named
// <component>-<node>, owned by the Node, with the kubelet's config
// annotations, bound to the node without the scheduler.
func mirrorPods(g *genNode, r *rand.Rand, c *clock) []*corev1.Pod {
	var out []*corev1.Pod
	for _, s := range staticPods {
		created := c.tick(r, 1, 15)
		hash := randHex(r, 32)
		t := podTemplate{
			namespace: "kube-system",
			labels:    map[string]string{"component": s.component, "tier": "control-plane"},
			annotations: map[string]string{
				"kubernetes.io/config.hash":   hash,
				"kubernetes.io/config.mirror": hash,
				"kubernetes.io/config.seen":   created.Add(-7*time.Second + time.Duration(r.Int64N(int64(time.Second)))).Format(time.RFC3339Nano),
				"kubernetes.io/config.source": "file",
			},
			containers:    []corev1.Container{container(s.component, s.image, requirements(s.milliCPU, s.mem, 0, 0, nil))},
			tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			priorityClass: PrioritySystemNodeCritical,
			hostNetwork:   true,
			owner:         ownerRef("v1", "Node", g.node.Name, g.node.UID),
		}
		t.owner.BlockOwnerDeletion = nil
		p := t.pod(s.component+"-"+g.node.Name, randUID(r), c.version(), created)
		p.Spec.NodeName = g.node.Name
		out = append(out, p)
	}
	return out
}
