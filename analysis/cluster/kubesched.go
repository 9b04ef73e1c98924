package cluster

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/optimizer"
	store "placelab/sql"
)

// KubeSchedulerPolicy replays a Kubernetes dataset's pods through the real
// kube-scheduler (tools/kubesched: the default profile of the vendored
// k8s.io/kubernetes, every default plugin, in-process, no API server).
const KubeSchedulerPolicy = "kube-scheduler"

// KubeSchedulerEnv names the variable that points at the kubesched program;
// without it, kubesched is looked for beside the running executable, then
// on PATH (make kubesched builds bin/kubesched).
const KubeSchedulerEnv = "PLACELAB_KUBESCHED"

// ErrNoKubeScheduler says the kubesched program is not built.
var ErrNoKubeScheduler = errors.New("analysis: the kube-scheduler program (tools/kubesched) is not built: run make kubesched, or set " + KubeSchedulerEnv)

// KubeSchedulerBinary finds the kubesched program.
func KubeSchedulerBinary() (string, error) {
	if p := os.Getenv(KubeSchedulerEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNoKubeScheduler, KubeSchedulerEnv, p, err)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "kubesched")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("kubesched"); err == nil {
		return p, nil
	}
	return "", ErrNoKubeScheduler
}

// kubeSchedIn is what kubesched reads.
type kubeSchedIn struct {
	Seed  uint64                          `json:"seed"`
	Mode  string                          `json:"mode"`
	Nodes []json.RawMessage               `json:"nodes"`
	Pods  []json.RawMessage               `json:"pods"`
	PVCs  []*corev1.PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	PVs   []*corev1.PersistentVolume      `json:"persistentVolumes,omitempty"`
}

// KubeSchedPod is one pod's outcome in kubesched's order of scheduling.
type KubeSchedPod struct {
	Pod      string         `json:"pod"`
	Node     string         `json:"node"`
	Reasons  map[string]int `json:"reasons,omitempty"`
	Feasible []string       `json:"feasible,omitempty"`
	// Rejected names, in mode filter, the plugin that refused each node
	// the pod's Filter did not admit.
	Rejected map[string]string `json:"rejected,omitempty"`
}

// kubeSchedOut is what kubesched writes.
type kubeSchedOut struct {
	Scheduler     string         `json:"scheduler"`
	Profile       string         `json:"profile"`
	Percentage    int            `json:"percentage_of_nodes_to_score"`
	Seed          uint64         `json:"seed"`
	Placed        int            `json:"placed"`
	Unschedulable int            `json:"unschedulable"`
	Seconds       float64        `json:"seconds"`
	Pods          []KubeSchedPod `json:"pods"`
}

// kubeSnapshot is a Kubernetes load's objects as kubesched is given them,
// with what placelab needs to read its answer back.
type kubeSnapshot struct {
	in        kubeSchedIn
	vmOf      map[string]int64 // pod key → vm_id
	machineOf map[string]int32 // node name → machine_id
	static    map[string]string
	staticVM  []int64
}

// loadKubeSnapshot reads load's objects (k8s_object) for kubesched: nodes
// as read; pods in input order, each unbound (spec.nodeName and status
// cleared) so the scheduler places it, except a static pod (owned by its
// Node), which stays on its node; a DaemonSet's pod is given its node as
// required node affinity on metadata.name, as the DaemonSet controller
// does. A bound pod's persistentVolumeClaims are given as bound to volumes
// of its node's zone (placelab holds it there: the volume zone of its
// affinity set), so the framework's VolumeBinding and VolumeZone keep it
// there too; an unbound pod's claims are left for kubesched to synthesize.
func loadKubeSnapshot(ctx context.Context, db *store.DB, loadID int64, seed uint64, mode string) (*kubeSnapshot, error) {
	ks := &kubeSnapshot{in: kubeSchedIn{Seed: seed, Mode: mode}, vmOf: map[string]int64{}, machineOf: map[string]int32{}, static: map[string]string{}}
	zoneOf := map[string]string{}
	type podRow struct {
		name, obj, owner, node string
		vm                     int64
	}
	var pods []podRow
	err := analysis.Each(ctx, db.SQL(), "k8s_objects", []any{loadID}, func(r *sql.Rows) error {
		var kind, name, obj string
		var vm sql.NullInt64
		var machine sql.NullInt32
		var owner, node sql.NullString
		if err := r.Scan(&kind, &name, &vm, &machine, &obj, &owner, &node); err != nil {
			return err
		}
		switch kind {
		case "Node":
			var n corev1.Node
			if err := json.Unmarshal([]byte(obj), &n); err != nil {
				return fmt.Errorf("node %s: %w", name, err)
			}
			zoneOf[name] = n.Labels[corev1.LabelTopologyZone]
			ks.machineOf[name] = machine.Int32
			ks.in.Nodes = append(ks.in.Nodes, json.RawMessage(obj))
		case "Pod":
			pods = append(pods, podRow{name, obj, owner.String, node.String, vm.Int64})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ks.in.Nodes) == 0 {
		return nil, fmt.Errorf("%w: load %d keeps no Kubernetes objects (ingest k8s the cluster again: loads before schema 13 did not keep them)", analysis.ErrBadSpec, loadID)
	}
	for _, pr := range pods {
		var p corev1.Pod
		if err := json.Unmarshal([]byte(pr.obj), &p); err != nil {
			return nil, fmt.Errorf("pod %s: %w", pr.name, err)
		}
		ks.vmOf[pr.name] = pr.vm
		node := p.Spec.NodeName
		if node == "" {
			node = pr.node
		}
		switch {
		case pr.owner == "Node" && node != "":
			p.Spec.NodeName = node
			ks.static[pr.name] = node
			ks.staticVM = append(ks.staticVM, pr.vm)
		case (pr.owner == "DaemonSet" || isDaemonSetPod(&p)) && node != "":
			p.Spec.NodeName = ""
			pinToNode(&p, node)
		default:
			if zone := zoneOf[node]; node != "" && zone != "" {
				ks.zonalClaims(&p, zone)
			}
			p.Spec.NodeName = ""
		}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending}
		b, err := json.Marshal(&p)
		if err != nil {
			return nil, err
		}
		ks.in.Pods = append(ks.in.Pods, b)
	}
	return ks, nil
}

// isDaemonSetPod reports whether a DaemonSet controls p.
func isDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

// pinToNode gives p the required node affinity the DaemonSet controller
// sets: metadata.name In [node], replacing any it had.
func pinToNode(p *corev1.Pod, node string) {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{
			Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}
}

// zonalClaims binds p's persistentVolumeClaims to volumes of zone.
func (ks *kubeSnapshot) zonalClaims(p *corev1.Pod, zone string) {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		claim := v.PersistentVolumeClaim.ClaimName
		pv := "pv-" + p.Namespace + "-" + claim
		ks.in.PVCs = append(ks.in.PVCs, &corev1.PersistentVolumeClaim{
			TypeMeta:   metaOf("PersistentVolumeClaim"),
			ObjectMeta: objMeta(claim, p.Namespace),
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: pv, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
			Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
		})
		ks.in.PVs = append(ks.in.PVs, &corev1.PersistentVolume{
			TypeMeta:   metaOf("PersistentVolume"),
			ObjectMeta: objMeta(pv, ""),
			Spec: corev1.PersistentVolumeSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				ClaimRef:    &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: p.Namespace, Name: claim},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}},
			},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
		})
	}
}

// runKubeSched runs kubesched on in.
func runKubeSched(ctx context.Context, in *kubeSchedIn) (*kubeSchedOut, error) {
	bin, err := KubeSchedulerBinary()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "-")
	cmd.Stdin = bytes.NewReader(b)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("analysis: kube-scheduler (%s): %w: %s", bin, err, msg)
	}
	var out kubeSchedOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("analysis: kube-scheduler (%s): its output: %w", bin, err)
	}
	return &out, nil
}

// KubeSchedulerRun is one replay of a Kubernetes dataset through the real
// kube-scheduler.
type KubeSchedulerRun struct {
	Run       int64  `json:"run_id"`
	Dataset   string `json:"dataset"`
	Scheduler string `json:"scheduler"`
	Seed      uint64 `json:"seed"`
	// Placed counts the pods it bound (static pods stay on their node and
	// are not counted); Unschedulable those it could not, with the plugins
	// that refused the most nodes (Reasons: plugin → pods it stopped).
	Placed        int            `json:"placed"`
	Unschedulable int            `json:"unschedulable"`
	Reasons       map[string]int `json:"reasons"`
	Seconds       float64        `json:"seconds"`
}

// KubeSchedulerSeed seeds the scheduler's choice among top-scored nodes
// unless a caller says otherwise (the real scheduler picks at random).
const KubeSchedulerSeed = 1

// RunKubeScheduler replays dataset's pods through the real kube-scheduler
// (in the scheduling queue's order: priority, then creation; every node
// scored, percentageOfNodesToScore 100; ties among the top-scored nodes
// broken by a choice seeded with seed) and stores the run (engine replay,
// policy kube-scheduler): each pod it bound placed on its node at its
// creation time, each it could not rejected with the plugins that refused
// it, static pods on their node.
func RunKubeScheduler(ctx context.Context, db *store.DB, dataset string, seed uint64, o analysis.RunOptions) (*KubeSchedulerRun, error) {
	t0 := time.Now()
	tr, err := analysis.LoadTrace(ctx, db, dataset, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	if !tr.OnePerRequest {
		return nil, fmt.Errorf("%w: policy %s replays a Kubernetes cluster (ingest k8s); dataset %q is not one", analysis.ErrBadSpec, KubeSchedulerPolicy, dataset)
	}
	ks, err := loadKubeSnapshot(ctx, db, tr.LoadID, seed, "schedule")
	if err != nil {
		return nil, err
	}
	out, err := runKubeSched(ctx, &ks.in)
	if err != nil {
		return nil, err
	}
	start := map[int64]float64{}
	for _, v := range tr.VMs {
		start[v.ID] = v.Start
	}
	rep := &KubeSchedulerRun{Dataset: dataset, Scheduler: out.Scheduler, Seed: seed, Placed: out.Placed,
		Unschedulable: out.Unschedulable, Reasons: map[string]int{}}
	type row struct {
		vm      int64
		t       float64
		machine any
		outcome string
		reason  any
	}
	var rows []row
	for _, p := range out.Pods {
		vm, ok := ks.vmOf[p.Pod]
		if !ok {
			return nil, fmt.Errorf("analysis: kube-scheduler answered for pod %s, which dataset %q lacks", p.Pod, dataset)
		}
		if p.Node == "" {
			rows = append(rows, row{vm, start[vm], nil, "rejected", kubeReasons(p.Reasons)})
			for plugin := range p.Reasons {
				rep.Reasons[plugin]++
			}
			continue
		}
		m, ok := ks.machineOf[p.Node]
		if !ok {
			return nil, fmt.Errorf("analysis: kube-scheduler bound pod %s to node %s, which dataset %q lacks", p.Pod, p.Node, dataset)
		}
		rows = append(rows, row{vm, start[vm], m, "placed", nil})
	}
	for name, node := range ks.static {
		rows = append(rows, row{ks.vmOf[name], start[ks.vmOf[name]], ks.machineOf[node], "placed", nil})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].vm < rows[j].vm })
	id, err := db.NextRunID(ctx)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(map[string]any{"scheduler": out.Scheduler, "profile": out.Profile, "seed": seed,
		"percentage_of_nodes_to_score": out.Percentage, "ties": "seeded random choice among the top-scored nodes",
		"order": "priority, then creation", "placed": out.Placed, "unschedulable": out.Unschedulable})
	if err != nil {
		return nil, err
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Append("run", id, "replay", KubeSchedulerPolicy, string(params), int64(seed), dataset, o.Version,
			time.Now().UTC(), time.Since(t0).Seconds(), "done", analysis.LoadID(tr.LoadID)); err != nil {
			return err
		}
		for _, r := range rows {
			if err := w.Append("placement", id, r.vm, r.t, r.machine, int16(0), int32(0), nil, r.outcome, r.reason, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Run = id
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

// kubeReasons writes a pod's refusals as "Plugin (n nodes), …", the
// plugins that refused most first.
func kubeReasons(r map[string]int) any {
	if len(r) == 0 {
		return "unschedulable"
	}
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if r[names[i]] != r[names[j]] {
			return r[names[i]] > r[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s (%d nodes)", k, r[k]))
	}
	return "kube-scheduler: " + strings.Join(parts, ", ")
}

// metaOf is the TypeMeta of a core/v1 kind.
func metaOf(kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: "v1", Kind: kind} }

// objMeta names an object.
func objMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace}
}

// FilterJudgement sets placelab's validators beside the real scheduler's
// Filter plugins, pod by pod at its turn, on the same state: the pods in
// the scheduler's order, each then bound where the scheduler bound it (in
// both), static pods on their nodes first. A pair is (pod, node); it
// disagrees when one side admits the node and the other does not.
type FilterJudgement struct {
	Dataset   string `json:"dataset"`
	Scheduler string `json:"scheduler"`
	Pods      int    `json:"pods"`
	Pairs     int64  `json:"pairs"`
	// Disagreements counts the disagreeing pairs of pods placelab models
	// whole; ByRule splits them by who refused ("kube-scheduler:Plugin" or
	// "kube-scheduler" when the scheduler refused, "placelab:Rule" when
	// placelab did) and Examples names one pod and node of each.
	Disagreements int               `json:"filter_disagreements"`
	ByRule        map[string]int    `json:"by_rule"`
	Examples      map[string]string `json:"examples"`
	// Known counts the disagreeing pairs of pods with a constraint placelab
	// knowingly leaves out (vm_constraint.unhonoured: other inter-pod
	// affinity, host ports, extended resources, a Pending pod's volume), by
	// that constraint: listed, never silent, not counted above.
	Known map[string]int `json:"known_differences"`
}

// JudgeKubeFilters runs the judgement on a Kubernetes dataset (see
// FilterJudgement). placelab's side is DefaultRules' validators with no
// buffers (a buffer is placelab's policy, not a constraint of the cluster).
func JudgeKubeFilters(ctx context.Context, db *store.DB, dataset string) (*FilterJudgement, error) {
	tr, err := analysis.LoadTrace(ctx, db, dataset, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	ks, err := loadKubeSnapshot(ctx, db, tr.LoadID, KubeSchedulerSeed, "filter")
	if err != nil {
		return nil, err
	}
	out, err := runKubeSched(ctx, &ks.in)
	if err != nil {
		return nil, err
	}
	unhonoured := map[int64]string{}
	err = analysis.Each(ctx, db.SQL(), "vm_unhonoured", []any{tr.LoadID}, func(r *sql.Rows) error {
		var vm int64
		var u string
		if err := r.Scan(&vm, &u); err != nil {
			return err
		}
		unhonoured[vm] = u
		return nil
	})
	if err != nil {
		return nil, err
	}
	inv := tr.Inv
	idx := map[int64]int{}
	for i := range tr.VMs {
		idx[tr.VMs[i].ID] = i
	}
	machineOf := map[string]int32{}
	for m := range inv.Machines {
		machineOf[inv.Machines[m].Name] = int32(m)
	}
	state := optimizer.NewState(inv)
	cfg := optimizer.DefaultConfig()
	cfg.Buffers = optimizer.Buffers{}
	rules := optimizer.DefaultRules()
	env := &optimizer.Env{Inv: inv, State: state, Cfg: &cfg}
	place := func(vm int64, m int32) {
		i := idx[vm]
		req := replay.RequestOfVM(tr, i)
		v := req.VMs[0]
		d, _ := inv.Demand(v.Type, m)
		state.Place(optimizer.Placement{VM: vm, Machine: m, Type: v.Type, Tenant: req.Tenant, Priority: req.Priority, Demand: d,
			Affinity: v.Affinity, Tolerated: v.Tolerated, MaxPerMachine: req.MaxPerMachine, MaxSkew: req.MaxSkew, Start: req.Time})
	}
	for name, node := range ks.static {
		place(ks.vmOf[name], machineOf[node])
	}
	j := &FilterJudgement{Dataset: dataset, Scheduler: out.Scheduler, ByRule: map[string]int{}, Examples: map[string]string{}, Known: map[string]int{}}
	for _, p := range out.Pods {
		vm := ks.vmOf[p.Pod]
		i, ok := idx[vm]
		if !ok {
			return nil, fmt.Errorf("analysis: kube-scheduler answered for pod %s, which dataset %q lacks", p.Pod, dataset)
		}
		admits := map[string]bool{}
		for _, n := range p.Feasible {
			admits[n] = true
		}
		req := replay.RequestOfVM(tr, i)
		chk := optimizer.NewCheck(env, &rules, &req, optimizer.KindAuto, req.VMs[0])
		j.Pods++
		for m := range inv.Machines {
			j.Pairs++
			name := inv.Machines[m].Name
			rej := chk.Machine(int32(m))
			if rej.OK() == admits[name] {
				continue
			}
			key := "kube-scheduler"
			if !rej.OK() {
				key = "placelab:" + rej.Rule
			} else if plugin := p.Rejected[name]; plugin != "" {
				key = "kube-scheduler:" + plugin
			}
			if u := unhonoured[vm]; u != "" {
				j.Known[key+" ("+u+")"]++
				continue
			}
			j.Disagreements++
			j.ByRule[key]++
			if _, ok := j.Examples[key]; !ok {
				j.Examples[key] = p.Pod + " on " + name
			}
		}
		if p.Node != "" {
			m, ok := machineOf[p.Node]
			if !ok {
				return nil, fmt.Errorf("analysis: kube-scheduler bound pod %s to node %s, which dataset %q lacks", p.Pod, p.Node, dataset)
			}
			place(vm, m)
		}
	}
	return j, nil
}
