package k8s

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// maxOwnerDepth bounds the walk up owner references (a cycle in edited
// input must not hang Load); real chains are two long (Pod → ReplicaSet →
// Deployment, Pod → Job → CronJob).
const maxOwnerDepth = 8

// maxManifestReplicas bounds the replicas Load expands from one manifest:
// 150,000 pods is the largest cluster Kubernetes supports ("Considerations
// for large clusters"), so more is a typo or edited data, not demand.
const maxManifestReplicas = 150000

// Defaults of workload manifests (the API server's defaulting).
const (
	defaultReplicas    = 1 // Deployment, StatefulSet, ReplicaSet spec.replicas
	defaultParallelism = 1 // Job spec.parallelism
)

// workload is a Deployment, StatefulSet, DaemonSet, ReplicaSet or Job of
// the input: an owner to resolve pods through, and a manifest to expand
// when none of its pods is in the input.
type workload struct {
	obj      *rawObject
	kind     string
	name     string
	uid      types.UID
	owner    *metav1.OwnerReference // controller owner, nil when none
	replicas int                    // pods it runs (not used for a DaemonSet)
	template *corev1.PodTemplateSpec
	claims   []string // StatefulSet volumeClaimTemplates names
}

// addWorkload decodes a workload object; duplicates (same kind, namespace
// and name) are dropped with a warning when their UIDs agree.
func (l *loader) addWorkload(o *rawObject) error {
	w := workload{obj: o, kind: o.kind}
	var meta *metav1.ObjectMeta
	switch o.kind {
	case kindDeployment:
		d := new(appsv1.Deployment)
		if err := o.decode(d); err != nil {
			return err
		}
		meta, w.template, w.replicas = &d.ObjectMeta, &d.Spec.Template, int(deref(d.Spec.Replicas, defaultReplicas))
	case kindStatefulSet:
		s := new(appsv1.StatefulSet)
		if err := o.decode(s); err != nil {
			return err
		}
		meta, w.template, w.replicas = &s.ObjectMeta, &s.Spec.Template, int(deref(s.Spec.Replicas, defaultReplicas))
		for _, c := range s.Spec.VolumeClaimTemplates {
			w.claims = append(w.claims, c.Name)
		}
	case kindReplicaSet:
		r := new(appsv1.ReplicaSet)
		if err := o.decode(r); err != nil {
			return err
		}
		meta, w.template, w.replicas = &r.ObjectMeta, &r.Spec.Template, int(deref(r.Spec.Replicas, defaultReplicas))
	case kindDaemonSet:
		d := new(appsv1.DaemonSet)
		if err := o.decode(d); err != nil {
			return err
		}
		meta, w.template = &d.ObjectMeta, &d.Spec.Template
	case kindJob:
		j := new(batchv1.Job)
		if err := o.decode(j); err != nil {
			return err
		}
		meta, w.template, w.replicas = &j.ObjectMeta, &j.Spec.Template, jobActivePods(j)
	}
	w.name, w.uid, w.owner = meta.Name, meta.UID, controllerOf(meta.OwnerReferences)
	if w.replicas > maxManifestReplicas {
		return o.fail("spec", fmt.Errorf("%w: %d replicas, above the %d pods of Kubernetes' largest supported cluster",
			ErrMalformed, w.replicas, maxManifestReplicas))
	}
	key := objKey{w.kind, o.namespace, w.name}
	if j, ok := l.workloadByKey[key]; ok {
		first := l.workloads[j]
		if first.uid != w.uid {
			return o.fail("metadata.uid", fmt.Errorf("%w: %s %s is also in %s with UID %q, here %q",
				ErrDuplicate, w.kind, objectName(o.namespace, w.name), first.obj.source(), first.uid, w.uid))
		}
		l.warn.add(WarnDuplicate, o.source(), w.kind+" "+objectName(o.namespace, w.name),
			"same object as in "+first.obj.source()+"; kept the first")
		return nil
	}
	l.workloadByKey[key] = len(l.workloads)
	l.workloads = append(l.workloads, w)
	return nil
}

// jobActivePods is the number of pods a Job runs at once: parallelism
// (default 1), at most its completions, 0 when suspended or finished
// (complete or failed: its pods are gone, it is not demand).
func jobActivePods(j *batchv1.Job) int {
	if deref(j.Spec.Suspend, false) || j.Status.CompletionTime != nil {
		return 0
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return 0
		}
	}
	n := deref(j.Spec.Parallelism, defaultParallelism)
	if j.Spec.Completions != nil && *j.Spec.Completions < n {
		n = *j.Spec.Completions
	}
	return int(n)
}

// controllerOf is the controller owner reference, else the first owner
// reference, else nil.
func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	if len(refs) > 0 {
		return &refs[0]
	}
	return nil
}

// topOwner follows an owner reference of an object in namespace up
// through the workloads of the input to the top-level owner. Every
// workload passed on the way is marked in via (when via is not nil). A
// ReplicaSet that is not in the input resolves to its Deployment by the
// pod's pod-template-hash label: the Deployment controller names a
// ReplicaSet <deployment>-<hash>.
func (l *loader) topOwner(namespace, kind, name string, podLabels map[string]string, via map[objKey]bool) (string, string) {
	for depth := 0; depth < maxOwnerDepth; depth++ {
		key := objKey{kind, namespace, name}
		if via != nil {
			via[key] = true
		}
		if i, ok := l.workloadByKey[key]; ok {
			owner := l.workloads[i].owner
			if owner == nil {
				return kind, name
			}
			kind, name = owner.Kind, owner.Name
			continue
		}
		if hash := podLabels[labelPodTemplateHash]; depth == 0 && kind == kindReplicaSet &&
			hash != "" && strings.HasSuffix(name, "-"+hash) {
			kind, name = kindDeployment, strings.TrimSuffix(name, "-"+hash)
			continue
		}
		return kind, name
	}
	return kind, name
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
