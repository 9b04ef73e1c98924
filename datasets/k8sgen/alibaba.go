package k8sgen

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PhaseSnapshot, passed as FromAlibaba's at, selects pods by the trace's
// pod_phase instead of by time (any negative at does).
const PhaseSnapshot = -1.0

// alibabaEpoch is the wall-clock time given to the trace's time 0; the
// trace counts seconds from an origin it does not disclose.
var alibabaEpoch = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)

// Labels and annotations of FromAlibaba's objects.
const (
	labelQoS           = "alibabacloud.com/qos"
	annotationGPUMilli = "alibabacloud.com/gpu-milli"
	annotationGPUCount = "alibabacloud.com/gpu-count"
	annotationGPUIndex = "alibabacloud.com/gpu-index"
	alibabaNamespace   = "default"
	alibabaMaxPods     = 110 // the kubelet's default --max-pods
	traceMessage       = "Pending in the trace: never scheduled"
)

// qosPriority maps the trace's qos to a priority class: latency-sensitive
// (LSE, LSR, LS) → "high" (1000000); Kubernetes-style Guaranteed and
// Burstable → no class (priority 0); best effort (BE) → "low" (−100), so
// a planner may preempt BE pods for any other.
var qosPriority = map[string]string{
	"LSE": PriorityHigh, "LSR": PriorityHigh, "LS": PriorityHigh,
	"Guaranteed": "", "Burstable": "",
	"BE": PriorityLow,
}

// FromAlibaba converts the Alibaba GPU cluster trace (openb, 2023) into
// `kubectl get nodes -o json` and `kubectl get pods -A -o json`.
//
// Nodes: every row of nodeCSV (sn, cpu_milli, memory_mib, gpu, model) is a
// node named sn with allocatable = capacity = its cpu and memory and 110
// pods. A GPU node (gpu > 0) also has nvidia.com/gpu = gpu and
// alibabacloud.com/gpu-milli = 1000 × gpu, the label nvidia.com/gpu.product
// = model and the taint nvidia.com/gpu=present:NoSchedule. The trace has no
// zones, so the nodes carry no topology labels.
//
// Pods of podCSV (name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec,
// qos, pod_phase, creation_time, deletion_time, scheduled_time), in
// namespace "default":
//
//   - Which: the trace samples 8,152 pods over 149 days, and at any one time
//     fewer than 50 of them are between creation_time and deletion_time, so
//     a time cut gives a tiny cluster. With at < 0 (PhaseSnapshot) the pods
//     are those whose pod_phase is Running (6,090 with Pending, the cluster
//     as the trace's collector last saw it; Succeeded and Failed are left
//     out); with at ≥ 0, those with creation_time ≤ at < deletion_time (an
//     empty deletion_time never ends).
//   - Bound or Pending: a Running pod (at < 0), or one with scheduled_time
//     ≤ at (at ≥ 0), is bound by the scheduler simulation in scheduled_time
//     order (then creation_time, then file order); one that fits nowhere
//     stays Pending with kube-scheduler's message. Pods the trace never
//     scheduled stay Pending ("Pending in the trace").
//   - Requests: cpu_milli, memory_mib (none when 0); a pod with num_gpu > 1
//     or gpu_milli 1000 (or 0) asks num_gpu whole GPUs (nvidia.com/gpu and
//     1000 × num_gpu gpu-milli); one with num_gpu 1 and 0 < gpu_milli < 1000
//     shares a GPU and asks only gpu_milli of alibabacloud.com/gpu-milli.
//     The simulation also tracks each GPU device, so shares of one pod stay
//     on one device (best fit) and the device is written in the annotation
//     alibabacloud.com/gpu-index. GPU pods tolerate the GPU taint; a
//     gpu_spec ("V100M16|V100M32") becomes required node affinity on
//     nvidia.com/gpu.product.
//   - Priority: qos LSE, LSR, LS → class "high" (1000000); Guaranteed,
//     Burstable → 0; BE → class "low" (−100). Guaranteed pods get limits
//     equal to their requests (status.qosClass Guaranteed), the others
//     requests only. The trace's qos is kept in the label
//     alibabacloud.com/qos.
//
// Times are seconds after 2023-01-01T00:00:00Z (the trace's origin is not
// given). A bad value is a *RowError naming file, row and field.
func FromAlibaba(nodeCSV, podCSV string, at float64, seed uint64) (nodes, pods []byte, err error) {
	trace, err := readAlibabaNodes(nodeCSV)
	if err != nil {
		return nil, nil, err
	}
	if len(trace) == 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrNoNodes, nodeCSV)
	}
	tps, err := readAlibabaPods(podCSV)
	if err != nil {
		return nil, nil, err
	}

	var end float64
	for _, p := range tps {
		end = max(end, p.created, p.scheduled)
		if !math.IsInf(p.deleted, 1) {
			end = max(end, p.deleted)
		}
	}
	if at >= 0 {
		end = at
	}
	now := alibabaEpoch.Add(seconds(end))

	ns := make([]*corev1.Node, len(trace))
	simNodes := make([]*simNode, len(trace))
	ips := newIPPlan(1)
	rn := stream(seed, "alibaba-nodes")
	nodeIPs := make([]string, len(trace))
	for i, tn := range trace {
		nodeIPs[i] = ips.take(rn, 0)
		ns[i] = tn.node(nodeIPs[i], now)
		if simNodes[i], err = newSimNode(ns[i]); err != nil {
			return nil, nil, err
		}
	}

	// Choose, order, build.
	var chosen []*tracePod
	for _, p := range tps {
		if at < 0 {
			p.bind = p.phase == corev1.PodRunning
			if p.bind || p.phase == corev1.PodPending {
				chosen = append(chosen, p)
			}
			continue
		}
		if p.created <= at && at < p.deleted {
			p.bind = !math.IsNaN(p.scheduled) && p.scheduled <= at && p.phase != corev1.PodPending
			chosen = append(chosen, p)
		}
	}
	sort.SliceStable(chosen, func(i, j int) bool {
		a, b := chosen[i], chosen[j]
		ka, kb := a.order(), b.order()
		if ka != kb {
			return ka < kb
		}
		return a.created < b.created
	})
	sims := make([]*simPod, len(chosen))
	for i, tp := range chosen {
		if sims[i], err = newSimPod(tp.pod()); err != nil {
			return nil, nil, err
		}
		sims[i].skip = !tp.bind
		if sims[i].skip {
			sims[i].message = traceMessage
		}
	}
	newScheduler(simNodes, seed, true).run(sims)

	rs := stream(seed, "alibaba-pods")
	out := make([]*corev1.Pod, len(sims))
	for i, sp := range sims {
		p, tp := sp.pod, chosen[i]
		p.Status.QOSClass = qosClass(&p.Spec)
		if sp.node < 0 {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				LastTransitionTime: p.CreationTimestamp, Reason: corev1.PodReasonUnschedulable, Message: sp.message}}
		} else {
			ip := ips.take(rs, 0)
			p.Spec.NodeName = ns[sp.node].Name
			started := metav1.NewTime(alibabaEpoch.Add(seconds(max(tp.scheduled, tp.created))))
			if math.IsNaN(tp.scheduled) {
				started = p.CreationTimestamp
			}
			p.Status = corev1.PodStatus{
				Phase: corev1.PodRunning, QOSClass: p.Status.QOSClass,
				HostIP: nodeIPs[sp.node], HostIPs: []corev1.HostIP{{IP: nodeIPs[sp.node]}},
				PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &started,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started},
				},
			}
			if len(sp.devices) > 0 {
				idx := make([]string, len(sp.devices))
				for k, d := range sp.devices {
					idx[k] = strconv.Itoa(d)
				}
				p.Annotations[annotationGPUIndex] = strings.Join(idx, ",")
			}
		}
		out[i] = p
	}
	if nodes, err = marshalNodes(ns); err != nil {
		return nil, nil, err
	}
	if pods, err = marshalPods(out); err != nil {
		return nil, nil, err
	}
	return nodes, pods, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// traceNode is a row of the node list.
type traceNode struct {
	sn                    string
	milliCPU, memMi, gpus int64
	model                 string
}

func (t *traceNode) node(ip string, now time.Time) *corev1.Node {
	labels := map[string]string{
		corev1.LabelArchStable:         "amd64",
		corev1.LabelOSStable:           "linux",
		corev1.LabelHostname:           t.sn,
		corev1.LabelInstanceTypeStable: t.sku(),
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    milliCPU(t.milliCPU),
		corev1.ResourceMemory: bytesBin(t.memMi * miB),
		corev1.ResourcePods:   count(alibabaMaxPods),
	}
	var taints []corev1.Taint
	if t.gpus > 0 {
		capacity[ResourceGPU] = count(t.gpus)
		capacity[ResourceGPUMilli] = count(1000 * t.gpus)
		labels[labelGPUCount] = strconv.FormatInt(t.gpus, 10)
		if t.model != "" {
			labels[labelGPUProduct] = t.model
		}
		taints = []corev1.Taint{{Key: string(ResourceGPU), Value: taintGPUValue, Effect: corev1.TaintEffectNoSchedule}}
	}
	created := metav1.NewTime(alibabaEpoch)
	beat := metav1.NewTime(now)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: t.sn, CreationTimestamp: created, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity.DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: beat, LastTransitionTime: created, Reason: "KubeletReady", Message: "kubelet is posting ready status"}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: t.sn}},
			NodeInfo:  corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

// sku names the machine type as placelab's Alibaba loader does: c<cores>m<GiB>,
// then g<gpus>-<model> for a GPU node (c96m384g8-G2).
func (t *traceNode) sku() string {
	s := fmt.Sprintf("c%sm%s", trimFloat(float64(t.milliCPU)/1000), trimFloat(float64(t.memMi)/1024))
	if t.gpus > 0 {
		s += fmt.Sprintf("g%d", t.gpus)
		if t.model != "" {
			s += "-" + t.model
		}
	}
	return s
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// tracePod is a row of the pod list.
type tracePod struct {
	row                         int
	name                        string
	milliCPU, memMi, gpus       int64
	gpuMilli                    int64
	spec                        []string
	qos                         string
	phase                       corev1.PodPhase
	created, deleted, scheduled float64 // deleted +Inf, scheduled NaN when empty
	bind                        bool
}

// order is the time the scheduler saw the pod: scheduled_time, or
// creation_time for a pod never scheduled.
func (t *tracePod) order() float64 {
	if math.IsNaN(t.scheduled) {
		return t.created
	}
	return t.scheduled
}

func (t *tracePod) pod() *corev1.Pod {
	var ext corev1.ResourceList
	ann := map[string]string{}
	if t.gpus > 0 {
		whole := t.gpus > 1 || t.gpuMilli == 0 || t.gpuMilli == 1000
		if whole {
			ext = corev1.ResourceList{ResourceGPU: count(t.gpus), ResourceGPUMilli: count(1000 * t.gpus)}
			ann[annotationGPUMilli] = "1000"
		} else {
			ext = corev1.ResourceList{ResourceGPUMilli: count(t.gpuMilli)}
			ann[annotationGPUMilli] = strconv.FormatInt(t.gpuMilli, 10)
		}
		ann[annotationGPUCount] = strconv.FormatInt(t.gpus, 10)
	}
	lim := int64(0)
	if t.qos == "Guaranteed" {
		lim = -1
	}
	tpl := podTemplate{
		namespace:     alibabaNamespace,
		labels:        map[string]string{labelQoS: t.qos},
		annotations:   ann,
		containers:    []corev1.Container{container("main", "openb-task", requirements(t.milliCPU, t.memMi*miB, lim, lim, ext))},
		priorityClass: qosPriority[t.qos],
		restartPolicy: corev1.RestartPolicyNever,
	}
	if t.gpus > 0 {
		tpl.tolerations = []corev1.Toleration{{Key: string(ResourceGPU), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	if len(t.spec) > 0 {
		tpl.affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: labelGPUProduct, Operator: corev1.NodeSelectorOpIn, Values: t.spec}}}}}}}
	}
	uid := stream(0, "alibaba-uid/"+t.name)
	return tpl.pod(t.name, randUID(uid), strconv.Itoa(1000+t.row), alibabaEpoch.Add(seconds(t.created)))
}

// csvTable is a CSV file read whole, with its header's column indexes.
type csvTable struct {
	file string
	cols map[string]int
	rows [][]string
}

func readCSV(path string, required ...string) (*csvTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	t := &csvTable{file: filepath.Base(path), cols: map[string]int{}}
	header, err := r.Read()
	if err != nil {
		return nil, &RowError{File: t.file, Row: 1, Err: fmt.Errorf("%w: no header: %v", ErrMalformed, err)}
	}
	for i, h := range header {
		t.cols[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range required {
		if _, ok := t.cols[c]; !ok {
			return nil, &RowError{File: t.file, Field: c, Err: fmt.Errorf("%w: missing column", ErrMalformed)}
		}
	}
	for row := 2; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &RowError{File: t.file, Row: int64(row), Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
		t.rows = append(t.rows, rec)
	}
	return t, nil
}

// field returns the trimmed value of a column in row i (0-based data row).
func (t *csvTable) field(i int, col string) string {
	rec := t.rows[i]
	if j := t.cols[col]; j < len(rec) {
		return strings.TrimSpace(rec[j])
	}
	return ""
}

func (t *csvTable) bad(i int, col, value, why string) error {
	return &RowError{File: t.file, Row: int64(i + 2), Field: col, Value: value, Err: fmt.Errorf("%w: %s", ErrMalformed, why)}
}

// integer reads a non-negative whole number (a float with no fraction is
// accepted: "32000.0"); positive demands > 0.
func (t *csvTable) integer(i int, col string, positive bool) (int64, error) {
	v := t.field(i, col)
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, t.bad(i, col, v, "not a number")
	case f != math.Trunc(f) || f > 1e15:
		return 0, t.bad(i, col, v, "not a whole number")
	case positive && f <= 0:
		return 0, t.bad(i, col, v, "must be > 0")
	case f < 0:
		return 0, t.bad(i, col, v, "must be >= 0")
	}
	return int64(f), nil
}

// seconds reads a time; empty gives def when optional.
func (t *csvTable) seconds(i int, col string, optional bool, def float64) (float64, error) {
	v := t.field(i, col)
	if v == "" && optional {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > maxTraceSeconds {
		return 0, t.bad(i, col, v, "not a time in seconds")
	}
	return f, nil
}

// maxTraceSeconds bounds a trace time (30 years), as placelab's loaders do.
const maxTraceSeconds = 30 * 365.25 * 86400

func noModel(s string) bool { return s == "" || strings.EqualFold(s, "nan") }

func readAlibabaNodes(path string) ([]*traceNode, error) {
	t, err := readCSV(path, "sn", "cpu_milli", "memory_mib", "gpu", "model")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]*traceNode, 0, len(t.rows))
	for i := range t.rows {
		n := &traceNode{sn: t.field(i, "sn"), model: t.field(i, "model")}
		if n.sn == "" {
			return nil, t.bad(i, "sn", "", "empty")
		}
		if seen[n.sn] {
			return nil, &RowError{File: t.file, Row: int64(i + 2), Field: "sn", Value: n.sn, Err: ErrDuplicate}
		}
		seen[n.sn] = true
		if noModel(n.model) {
			n.model = ""
		}
		if n.milliCPU, err = t.integer(i, "cpu_milli", true); err != nil {
			return nil, err
		}
		if n.memMi, err = t.integer(i, "memory_mib", true); err != nil {
			return nil, err
		}
		if n.gpus, err = t.integer(i, "gpu", false); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func readAlibabaPods(path string) ([]*tracePod, error) {
	t, err := readCSV(path, "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
		"qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]*tracePod, 0, len(t.rows))
	for i := range t.rows {
		p := &tracePod{row: i + 2, name: t.field(i, "name"), qos: t.field(i, "qos"), phase: corev1.PodPhase(t.field(i, "pod_phase"))}
		if p.name == "" {
			return nil, t.bad(i, "name", "", "empty")
		}
		if seen[p.name] {
			return nil, &RowError{File: t.file, Row: int64(i + 2), Field: "name", Value: p.name, Err: ErrDuplicate}
		}
		seen[p.name] = true
		if _, ok := qosPriority[p.qos]; !ok {
			return nil, t.bad(i, "qos", p.qos, "unknown qos (LSE, LSR, LS, Guaranteed, Burstable, BE)")
		}
		switch p.phase {
		case corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed:
		default:
			return nil, t.bad(i, "pod_phase", string(p.phase), "unknown phase")
		}
		if p.milliCPU, err = t.integer(i, "cpu_milli", true); err != nil {
			return nil, err
		}
		if p.memMi, err = t.integer(i, "memory_mib", false); err != nil {
			return nil, err
		}
		if p.gpus, err = t.integer(i, "num_gpu", false); err != nil {
			return nil, err
		}
		if p.gpuMilli, err = t.integer(i, "gpu_milli", false); err != nil {
			return nil, err
		}
		if p.gpuMilli > 1000 {
			return nil, t.bad(i, "gpu_milli", t.field(i, "gpu_milli"), "more than one GPU (1000)")
		}
		if spec := t.field(i, "gpu_spec"); !noModel(spec) {
			p.spec = strings.Split(spec, "|")
		}
		if p.created, err = t.seconds(i, "creation_time", false, 0); err != nil {
			return nil, err
		}
		if p.deleted, err = t.seconds(i, "deletion_time", true, math.Inf(1)); err != nil {
			return nil, err
		}
		if p.deleted < p.created {
			return nil, t.bad(i, "deletion_time", t.field(i, "deletion_time"), "before creation_time")
		}
		if p.scheduled, err = t.seconds(i, "scheduled_time", true, math.NaN()); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
