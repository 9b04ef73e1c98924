package k8s

import (
	corev1 "k8s.io/api/core/v1"
)

// Load reads the files and folders (walked recursively; .json, .yaml, .yml;
// other files skipped) and returns the cluster. Errors name file, item and
// field (*ObjectError).
func Load(paths ...string) (*Cluster, error) {
	files, err := inputFiles(paths)
	if err != nil {
		return nil, err
	}
	l := &loader{
		report:        Report{Objects: map[string]int{}},
		nodeByName:    map[string]int{},
		seenPods:      map[objKey]seenPod{},
		workloadByKey: map[objKey]int{},
		setByKey:      map[string]int{},
	}
	for _, f := range files {
		objs, err := readFile(f)
		if err != nil {
			return nil, err
		}
		l.report.Files++
		for i := range objs {
			if err := l.add(&objs[i]); err != nil {
				return nil, err
			}
		}
	}
	if err := l.build(); err != nil {
		return nil, err
	}
	l.report.Warnings = l.warn.done()
	return &Cluster{Nodes: l.nodes, Pods: l.pods, NodeSets: l.sets, Report: l.report}, nil
}

// objKey names a namespaced object of a kind.
type objKey struct{ kind, namespace, name string }

// loader holds one Load's state. Its stages run in order: add (every
// object, as read), then build: nodes, pods of the input, replicas of
// manifests, and each pod's node sets and constraints.
type loader struct {
	report Report
	warn   warnings

	nodeObjs []*rawObject
	nodeK8s  []*corev1.Node // parallel to nodeObjs, then to nodes
	podObjs  []*rawObject
	podK8s   []*corev1.Pod

	nodes      []Node
	nodeByName map[string]int
	taints     []corev1.Taint // distinct NoSchedule/NoExecute taints of the nodes

	workloads     []workload
	workloadByKey map[objKey]int
	withPods      map[objKey]bool // workloads some pod of the input belongs to

	pods        []Pod
	entries     []podEntry         // parallel to pods
	seenPods    map[objKey]seenPod // every pod read or expanded, by namespace/name
	byNamespace map[string][]int   // indices into pods
	othersCache map[string]bool    // selectsOthers results

	sets     []NodeSet
	setByKey map[string]int // kind + "\x00" + key → index in sets, or -1
}

// add decodes one object of the input and files it by kind. Its raw bytes
// are dropped once decoded: a cluster's pods list can be large.
func (l *loader) add(o *rawObject) error {
	l.report.Objects[o.key]++
	defer func() { o.raw = nil }()
	switch o.kind {
	case kindNode:
		n := new(corev1.Node)
		if err := o.decode(n); err != nil {
			return err
		}
		l.nodeObjs, l.nodeK8s = append(l.nodeObjs, o), append(l.nodeK8s, n)
	case kindPod:
		p := new(corev1.Pod)
		if err := o.decode(p); err != nil {
			return err
		}
		if p.Namespace == "" {
			p.Namespace = metadataDefaultNamespace
		}
		l.podObjs, l.podK8s = append(l.podObjs, o), append(l.podK8s, p)
	case kindDeployment, kindStatefulSet, kindDaemonSet, kindReplicaSet, kindJob:
		return l.addWorkload(o)
	default:
		l.warn.count(o.key, WarnSkippedKind, o.source(), o.key,
			"", " object(s) of kind "+o.key+" skipped")
	}
	return nil
}

// build turns the objects read into the cluster.
func (l *loader) build() error {
	if err := l.buildNodes(); err != nil {
		return err
	}
	if err := l.buildPods(); err != nil {
		return err
	}
	if err := l.expandWorkloads(); err != nil {
		return err
	}
	if err := l.constrainPods(); err != nil {
		return err
	}
	for i := range l.pods {
		p := &l.pods[i]
		switch p.Phase {
		case corev1.PodRunning:
			l.report.PodsRunning++
		case corev1.PodPending:
			l.report.PodsPending++
		}
		if p.Node >= 0 {
			l.report.PodsBound++
		}
		if p.Pinned {
			l.report.PodsPinned++
		}
	}
	return nil
}
