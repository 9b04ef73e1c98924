package k8s

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
)

// templateSpecPath is the JSON path of a workload's pod spec.
const templateSpecPath = "spec.template.spec"

// daemonSetTolerations are the tolerations the DaemonSet controller adds
// to every pod it creates (all operator Exists), so a DaemonSet manifest
// runs on nodes with these taints; network-unavailable only with
// hostNetwork.
var daemonSetTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

var hostNetworkToleration = corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// expandWorkloads adds Pending replicas for each workload manifest none of
// whose pods is in the input, in input order: Deployment, ReplicaSet
// (unless its owner is in the input) and Job replicas named
// <name>-replica-<i>, StatefulSet replicas <name>-<i> with the
// persistentVolumeClaims <claim>-<name>-<i> its controller would create,
// and one pinned pod <name>-<node> per node a DaemonSet would run on.
func (l *loader) expandWorkloads() error {
	for i := range l.workloads {
		w := &l.workloads[i]
		ns := w.obj.namespace
		if l.withPods[objKey{w.kind, ns, w.name}] {
			continue // already running
		}
		if w.owner != nil {
			if _, ok := l.workloadByKey[objKey{w.owner.Kind, ns, w.owner.Name}]; ok {
				continue // its owner is expanded instead
			}
		}
		ownerKind, ownerName := l.topOwner(ns, w.kind, w.name, nil, nil)
		if w.kind == kindDaemonSet {
			if err := l.expandDaemonSet(w, ownerKind, ownerName); err != nil {
				return err
			}
			continue
		}
		for r := 0; r < w.replicas; r++ {
			name := fmt.Sprintf("%s-replica-%d", w.name, r)
			if w.kind == kindStatefulSet {
				name = fmt.Sprintf("%s-%d", w.name, r)
			}
			p := templatePod(w, name)
			for _, claim := range w.claims {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: claim, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim + "-" + name}}})
			}
			if err := l.addReplica(w, p, ownerKind, ownerName, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandDaemonSet adds one pinned replica per node the DaemonSet's
// template allows: required node affinity and nodeSelector
// (GetRequiredNodeAffinity) and NoSchedule/NoExecute taints tolerated with
// the controller's own tolerations added.
func (l *loader) expandDaemonSet(w *workload, ownerKind, ownerName string) error {
	tp := templatePod(w, w.name)
	e := podEntry{obj: w.obj, specPath: templateSpecPath, pod: tp}
	required, err := requiredAffinity(&e)
	if err != nil {
		return err
	}
	tolerations := append(append([]corev1.Toleration(nil), tp.Spec.Tolerations...), daemonSetTolerations...)
	if tp.Spec.HostNetwork {
		tolerations = append(tolerations, hostNetworkToleration)
	}
	for i, node := range l.nodeK8s {
		ok, err := required.Match(node)
		if err != nil {
			return w.obj.fail(templateSpecPath+".affinity.nodeAffinity", fmt.Errorf("%w: %v", ErrMalformed, err))
		}
		if !ok {
			continue
		}
		if _, untolerated := schedcorev1.FindMatchingUntoleratedTaint(discardLogger, placementTaints(node), tolerations,
			placementTaint, enableTaintComparison); untolerated {
			continue
		}
		if err := l.addReplica(w, templatePod(w, w.name+"-"+l.nodes[i].Name), ownerKind, ownerName, l.nodes[i].Name); err != nil {
			return err
		}
	}
	return nil
}

// templatePod is a Pending pod of a workload's template.
func templatePod(w *workload, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: w.obj.namespace,
			Labels: w.template.Labels, Annotations: w.template.Annotations,
		},
		Spec: *w.template.Spec.DeepCopy(),
	}
}

// addReplica appends a replica of w; pinNode is set for a DaemonSet's.
func (l *loader) addReplica(w *workload, p *corev1.Pod, ownerKind, ownerName, pinNode string) error {
	if err := l.checkDuplicatePod(w.obj, p); err != nil {
		return err
	}
	pod, e := l.newPod(w.obj, templateSpecPath, p, corev1.PodPending)
	pod.OwnerKind, pod.OwnerName = ownerKind, ownerName
	pod.Tenant = tenant(p.Namespace, ownerKind, ownerName, p.Name)
	pod.Pinned, e.pinNode = pinNode != "", pinNode
	l.pods, l.entries = append(l.pods, pod), append(l.entries, e)
	l.report.ManifestReplicas++
	return nil
}

// checkDuplicatePod fails when a replica's name is taken by a pod already read.
func (l *loader) checkDuplicatePod(o *rawObject, p *corev1.Pod) error {
	key := objKey{kindPod, p.Namespace, p.Name}
	if first, ok := l.seenPods[key]; ok {
		return o.fail("", fmt.Errorf("%w: replica %s of this manifest is also a pod of %s",
			ErrDuplicate, objectName(p.Namespace, p.Name), first.source))
	}
	l.seenPods[key] = seenPod{source: o.source()}
	return nil
}
