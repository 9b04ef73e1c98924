package k8sgen

import (
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Priority classes and their values (spec.priority, as the Priority
// admission plugin resolves spec.priorityClassName).
const (
	PrioritySystemNodeCritical    = "system-node-critical"
	PrioritySystemClusterCritical = "system-cluster-critical"
	PriorityHigh                  = "high"
	PriorityLow                   = "low" // best-effort pods of the Alibaba trace
)

var priorityValues = map[string]int32{
	PrioritySystemNodeCritical:    2000001000,
	PrioritySystemClusterCritical: 2000000000,
	PriorityHigh:                  1000000,
	PriorityLow:                   -100,
}

// defaultTolerationSeconds is how long the DefaultTolerationSeconds admission
// plugin lets a pod stay on a not-ready or unreachable node.
const defaultTolerationSeconds int64 = 300

// clock hands out strictly increasing creation times and resource versions.
type clock struct {
	t  time.Time
	rv int64
	// names are the generated pod names so far: a controller's
	// generateName suffix is drawn again on a clash, as the API server
	// makes it retry (a 1,500-node DaemonSet's five-letter suffixes clash
	// about one time in twelve).
	names map[string]bool
}

// generateName is prefix-<suffix>, a suffix no earlier pod of that prefix
// drew.
func (c *clock) generateName(r *rand.Rand, prefix string) string {
	if c.names == nil {
		c.names = map[string]bool{}
	}
	for {
		n := prefix + "-" + randString(r, suffixLen)
		if !c.names[n] {
			c.names[n] = true
			return n
		}
	}
}

// tick advances the clock by lo..hi seconds (at least one).
func (c *clock) tick(r *rand.Rand, lo, hi int64) time.Time {
	c.t = c.t.Add(time.Duration(max(1, between(r, lo, hi))) * time.Second)
	return c.t
}

func (c *clock) version() string {
	c.rv += 1 + int64(c.t.Unix()%7)
	return strconv.FormatInt(c.rv, 10)
}

// podTemplate is what the pods of one owner share.
type podTemplate struct {
	namespace      string
	labels         map[string]string
	annotations    map[string]string
	containers     []corev1.Container
	initContainers []corev1.Container
	nodeSelector   map[string]string
	affinity       *corev1.Affinity
	tolerations    []corev1.Toleration
	spread         []corev1.TopologySpreadConstraint
	priorityClass  string
	hostNetwork    bool
	hostPID        bool
	restartPolicy  corev1.RestartPolicy
	serviceAccount string
	volumes        []corev1.Volume
	owner          *metav1.OwnerReference
}

// container returns a container with the API server's defaults.
func container(name, image string, rr corev1.ResourceRequirements) corev1.Container {
	return corev1.Container{
		Name:                     name,
		Image:                    image,
		ImagePullPolicy:          corev1.PullIfNotPresent,
		Resources:                rr,
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
}

// pod makes one pod of the template, with the defaults the API server and
// its admission plugins fill in.
func (t *podTemplate) pod(name string, uid types.UID, rv string, created time.Time) *corev1.Pod {
	labels := make(map[string]string, len(t.labels))
	for k, v := range t.labels {
		labels[k] = v
	}
	var owners []metav1.OwnerReference
	if t.owner != nil {
		owners = []metav1.OwnerReference{*t.owner}
	}
	sa := t.serviceAccount
	if sa == "" {
		sa = "default"
	}
	rp := t.restartPolicy
	if rp == "" {
		rp = corev1.RestartPolicyAlways
	}
	dns := corev1.DNSClusterFirst
	if t.hostNetwork {
		dns = corev1.DNSClusterFirstWithHostNet
	}
	grace := int64(30)
	links := true
	preempt := corev1.PreemptLowerPriority
	prio := priorityValues[t.priorityClass]
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         t.namespace,
			UID:               uid,
			ResourceVersion:   rv,
			CreationTimestamp: metav1.NewTime(created),
			Labels:            labels,
			Annotations:       copyMap(t.annotations),
			OwnerReferences:   owners,
		},
		Spec: corev1.PodSpec{
			InitContainers:                append([]corev1.Container(nil), t.initContainers...),
			Containers:                    append([]corev1.Container(nil), t.containers...),
			RestartPolicy:                 rp,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     dns,
			NodeSelector:                  t.nodeSelector,
			ServiceAccountName:            sa,
			DeprecatedServiceAccount:      sa,
			HostNetwork:                   t.hostNetwork,
			HostPID:                       t.hostPID,
			SecurityContext:               &corev1.PodSecurityContext{},
			Affinity:                      t.affinity,
			SchedulerName:                 corev1.DefaultSchedulerName,
			Tolerations:                   withDefaultTolerations(t.tolerations),
			PriorityClassName:             t.priorityClass,
			Priority:                      &prio,
			EnableServiceLinks:            &links,
			PreemptionPolicy:              &preempt,
			TopologySpreadConstraints:     t.spread,
			Volumes:                       t.volumes,
		},
	}
	return p
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// withDefaultTolerations adds what the DefaultTolerationSeconds admission
// plugin adds: not-ready and unreachable NoExecute for 300 s, each unless a
// toleration of that key (or of every key) for NoExecute is already there.
func withDefaultTolerations(tols []corev1.Toleration) []corev1.Toleration {
	out := append([]corev1.Toleration(nil), tols...)
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		found := false
		for _, t := range tols {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				found = true
			}
		}
		if !found {
			s := defaultTolerationSeconds
			out = append(out, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s})
		}
	}
	return out
}

func ownerRef(apiVersion, kind, name string, uid types.UID) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes, BlockOwnerDeletion: &yes}
}

// finishPod writes the pod's status as the kubelet (bound) or the scheduler
// (unbound) last reported it. A terminal pod (always bound) keeps the phase
// it was built with.
func finishPod(sp *simPod, node *genNode, podIP string, r *rand.Rand) {
	p := sp.pod
	created := p.CreationTimestamp.Time
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus, at time.Time) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: s, LastTransitionTime: metav1.NewTime(at)}
	}
	p.Status.QOSClass = qosClass(&p.Spec)
	if node == nil {
		p.Status.Phase = corev1.PodPending
		c := cond(corev1.PodScheduled, corev1.ConditionFalse, created)
		c.Reason = corev1.PodReasonUnschedulable
		c.Message = sp.message
		p.Status.Conditions = []corev1.PodCondition{c}
		return
	}
	p.Spec.NodeName = node.node.Name
	scheduled := created.Add(time.Duration(between(r, 0, 2)) * time.Second)
	started := scheduled.Add(time.Duration(between(r, 1, 3)) * time.Second)
	ready := started.Add(time.Duration(between(r, 2, 40)) * time.Second)
	st := metav1.NewTime(started)
	p.Status.StartTime = &st
	p.Status.HostIP = node.ip
	p.Status.HostIPs = []corev1.HostIP{{IP: node.ip}}
	p.Status.PodIP = podIP
	p.Status.PodIPs = []corev1.PodIP{{IP: podIP}}
	readyStatus := corev1.ConditionTrue
	if sp.terminal {
		// the phase (Succeeded or Failed) was set by the builder
		readyStatus = corev1.ConditionFalse
		ready = ready.Add(time.Duration(between(r, 60, 3600)) * time.Second)
	} else {
		p.Status.Phase = corev1.PodRunning
		if node.notReady {
			readyStatus = corev1.ConditionFalse
			ready = maxTime(ready, node.since)
		}
	}
	rc := cond(corev1.PodReady, readyStatus, ready)
	if sp.terminal {
		rc.Reason = "PodCompleted"
	}
	p.Status.Conditions = []corev1.PodCondition{
		cond(corev1.PodScheduled, corev1.ConditionTrue, scheduled),
		cond(corev1.PodInitialized, corev1.ConditionTrue, started),
		rc,
	}
}
