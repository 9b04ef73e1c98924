package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/optimizer"
	store "placelab/sql"
)

// The buffers experiment sweeps the allocator slides' cluster thresholds
// ("Setting the Thresholds / Limits": scale-out failure rate, healing
// failure rate and utilization against the threshold) under drawn machine
// and rack failures, and sets Protean §6.3's change beside it: the
// IsClusterBelowLimit limits raised by 1%.
//
// Thresholds are optimizer.Buffers, empty healthy machines per cluster, set
// in percent of the cluster's machines (buffersMachines): a request of a
// kind may enter a cluster while it has at least that many
// (IsClusterBelowLimit, E(x) ≥ B). The slides' healing buffer — the empty
// machines that only healing may take — is HealingBuffer(b) = ScaleOut −
// Healing: new deployments and scale-outs stop at their thresholds, healing
// goes on to its own. Raising Buffers.Healing therefore shrinks the healing
// buffer; raising ScaleOut (with Healing fixed) grows it.

// buffersName is the experiment's name.
const buffersName = "buffers"

// buffersTraceDataset is the real trace the grid also runs on when it is
// loaded in the user's database (placelab ingest huawei
// ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory synthetic:N
// --dataset huawei-east-1, or under ingest's default name, huawei); without
// it those points store available = 0.
const buffersTraceDataset = "huawei-east-1"

// buffersTraceNames are the dataset names the real trace is looked up
// under, in order: the documented name, then placelab ingest huawei's
// default.
var buffersTraceNames = []string{buffersTraceDataset, "huawei"}

// The traces a point runs on.
const (
	buffersZone  = "zone"
	buffersTrace = buffersTraceDataset
)

// The sweeps of the grid: which threshold varies (the others at the base
// thresholds), and Protean §6.3's pair.
const (
	SweepNewDeployment = "new_deployment"
	SweepScaleOut      = "scale_out"
	SweepHealing       = "healing"
	SweepLimits        = "limits_1pct"
)

// The two points of the §6.3 pair.
const (
	LimitsBase   = "base"
	LimitsRaised = "raised_1pct"
)

// buffersFailureScale is the factor the experiment multiplies the default
// failure model's machine and rack failure rates by (outage.DefaultMachineAFR,
// DefaultRackAFR): at the default rates the quick zone (600 machines, 2
// days) sees about two machine failures, nine in ten of them reboots that
// need no healing, and no rack failure, so no threshold would matter. At
// 50× the quick zone sees about 90 machine failures (9 hard) and 2 rack
// failures; the full zone (5,000 machines, 14 days) about 5,300 (530 hard)
// and 100. The factor is recorded in every point's failures parameter.
const buffersFailureScale = 50

// buffersFailures is the failure-model spec (outage.ParseModel) of every
// point: the default model with the machine and rack rates scaled by
// buffersFailureScale.
func buffersFailures() string {
	return fmt.Sprintf("machine-afr=%.6g,rack-afr=%.6g", buffersFailureScale*outage.DefaultMachineAFR, buffersFailureScale*outage.DefaultRackAFR)
}

// buffersBase are the thresholds a sweep holds fixed while it varies one,
// in percent of a cluster's machines (the slides set limits per cluster,
// and a count that binds on a cluster of 150 machines is idle on one of
// 1,000): new deployments stop at 8% of the cluster empty, scale-outs at
// 4%, healing never (the slides' picture: the healing buffer is what
// scale-outs leave). buffersMachines turns a percentage into empty
// machines on a trace's clusters.
var buffersBase = [3]float64{8, 4, 0}

// buffersValues are the values each sweep takes, in percent of a
// cluster's machines; every point keeps NewDeployment ≥ ScaleOut ≥ Healing.
func buffersValues(sweep string, quick bool) []float64 {
	switch sweep {
	case SweepNewDeployment: // ≥ base ScaleOut
		if quick {
			return []float64{4, 8, 16}
		}
		return []float64{4, 6, 8, 10, 12, 16}
	case SweepScaleOut: // base Healing ≤ v ≤ base NewDeployment
		if quick {
			return []float64{0, 2, 4}
		}
		return []float64{0, 1, 2, 3, 4, 6, 8}
	case SweepHealing: // ≤ base ScaleOut
		if quick {
			return []float64{0, 2}
		}
		return []float64{0, 1, 2, 3, 4}
	}
	return nil
}

// buffersAt returns the thresholds (percent of a cluster's machines) of
// one point of a sweep: new deployment, scale-out, healing.
func buffersAt(sweep string, v float64) [3]float64 {
	b := buffersBase
	switch sweep {
	case SweepNewDeployment:
		b[0] = v
	case SweepScaleOut:
		b[1] = v
	case SweepHealing:
		b[2] = v
	}
	return b
}

// buffersMachines turns thresholds in percent of a cluster's machines into
// empty machines per cluster on a zone of machinesPerCluster machines per
// cluster (on average: one Buffers applies to every cluster), rounding
// half away from zero.
func buffersMachines(pct [3]float64, machinesPerCluster float64) optimizer.Buffers {
	n := func(p float64) int32 { return int32(math.Round(p / 100 * machinesPerCluster)) }
	return optimizer.Buffers{NewDeployment: n(pct[0]), ScaleOut: n(pct[1]), Healing: n(pct[2])}
}

// HealingBuffer is the slides' healing buffer of thresholds b: the empty
// machines per cluster that only healing may take, ScaleOut − Healing
// (0 when Healing ≥ ScaleOut).
func HealingBuffer(b optimizer.Buffers) int32 { return max(0, b.ScaleOut-b.Healing) }

// LimitStep is how many empty machines per cluster Protean §6.3's "we
// increased the utilization limits in each cluster by 1%" takes off each
// buffer. A utilization limit of L% on a cluster of n machines leaves
// (1 − L/100)·n machines' worth of room; raising L by one percentage point
// leaves 0.01·n fewer, so each threshold drops by round(0.01·n) empty
// machines, n the zone's mean machines per cluster (one Buffers applies to
// every cluster). Rounding half away from zero; at least 1, so that the
// change is never a no-op on clusters under 50 machines.
func LimitStep(machinesPerCluster float64) int32 {
	return max(1, int32(math.Round(LimitRaise*machinesPerCluster)))
}

// LimitRaise is Protean §6.3's raise of the utilization limits: "we
// increased the utilization limits in each cluster by 1%".
const LimitRaise = 0.01

// RaiseLimits lowers every threshold of b by step empty machines (not
// below 0), which keeps NewDeployment ≥ ScaleOut ≥ Healing.
func RaiseLimits(b optimizer.Buffers, step int32) optimizer.Buffers {
	low := func(x int32) int32 { return max(0, x-step) }
	return optimizer.Buffers{NewDeployment: low(b.NewDeployment), ScaleOut: low(b.ScaleOut), Healing: low(b.Healing)}
}

// CFRTarget is the capacity fulfillment rate Azure targets, four nines:
// Protean §6.3, "CFR dipped slightly in mid-March, but went up again
// exceeding its target of four nines by mid-April." The paper defines CFR as
// "the fraction of allocations that are successfully deployed"; ours
// (replay.Summary.CFR) is VMs placed ÷ VMs requested, heals included.
const CFRTarget = 0.9999

// cfrTargetQuote is the paper's sentence behind CFRTarget, verbatim.
const cfrTargetQuote = "CFR dipped slightly in mid-March, but went up again exceeding its target of four nines by mid-April."

// buffersSamples is at most how many interval samples a point stores for
// the page's utilization-against-empty-machines scatter.
const buffersSamples = 120

// The prefix of the interval samples a point stores (at their trace time)
// beside its figures; the page keeps them apart from the figures.
const buffersSamplePrefix = "sample/"

// The sampled series, under buffersSamplePrefix.
const (
	sampleUtilization = "utilization"
	sampleEmpty       = "empty_healthy_machines_per_cluster"
	sampleHealable    = "healable_machine_failures_pct"
)

// buffersFigures are the figures every point that ran stores.
var buffersFigures = []string{"scaleout_failure_rate", "heal_failure_rate", "new_deployment_failure_rate", "utilization_mean", "cfr",
	"healable_machine_failures_pct_mean", "healable_rack_failures_pct_mean", "empty_healthy_machines_per_cluster_mean",
	"healing_buffer", "heal_vms", "machine_failures", "rack_failures", "cfr_meets_target"}

func init() {
	register(&Experiment{
		Name: buffersName, Title: "Cluster buffers: utilization against scale-out and healing failures",
		Reproduces: "the allocator slides' buffer threshold plots; Protean §6.3",
		FullTime:   "about 2.5 minutes on 2 cores (20 points on the 5,000-machine, 14-day zone: 294 s of points, 148 s wall clock with 2 workers), plus 20 points on huawei-east-1 when loaded",
		Points:     buffersPoints,
		Run:        runBuffers,
	})
	paperLeftOut[buffersName] = "the slides print no numbers on their threshold plots, and Protean §6.3 prints no CFR or utilization value " +
		"(Fig. 16's CFR axis is unlabelled \"for confidentiality\"); its four-nines target is drawn as a line (CFRTarget), not a paper column"
}

// buffersPoints is the grid: per trace (the synthetic zone, then the real
// trace), each sweep's values, then §6.3's pair.
func buffersPoints(quick bool) []Point {
	var pts []Point
	add := func(params map[string]any) {
		params["failures"] = buffersFailures()
		pts = append(pts, Point{Index: len(pts), Params: params, Seed: 1})
	}
	for _, tr := range []string{buffersZone, buffersTrace} {
		for _, sw := range []string{SweepNewDeployment, SweepScaleOut, SweepHealing} {
			for _, v := range buffersValues(sw, quick) {
				b := buffersAt(sw, v)
				add(map[string]any{"trace": tr, "sweep": sw, "threshold_pct": v, "new_deployment_pct": b[0],
					"scale_out_pct": b[1], "healing_pct": b[2]})
			}
		}
		for _, l := range []string{LimitsBase, LimitsRaised} {
			add(map[string]any{"trace": tr, "sweep": SweepLimits, "limits": l})
		}
	}
	return pts
}

// buffersWindow is the real trace's replay window: its first 2 days when
// quick, 14 days (the zone's length) otherwise.
func buffersWindow(quick bool) float64 {
	if quick {
		return 2 * 86400
	}
	return 14 * 86400
}

// runBuffers replays the point's trace through Protean under its
// thresholds and the scaled failure model.
func runBuffers(ctx context.Context, db *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
	var tr *replay.Trace
	dataset := p.Params["trace"].(string)
	switch dataset {
	case buffersZone:
		var err error
		if _, tr, err = loadZone(ctx, quick, p.Seed); err != nil {
			return nil, err
		}
	default:
		if db == nil {
			return []replay.MetricRow{fig("available", 0)}, nil
		}
		for _, name := range buffersTraceNames {
			full, err := analysis.LoadTrace(ctx, db, name, math.Inf(-1), math.Inf(1))
			if errors.Is(err, analysis.ErrNoDataset) {
				continue
			}
			if err != nil {
				return nil, err
			}
			tr, dataset = full, name
			break
		}
		if tr == nil {
			return []replay.MetricRow{fig("available", 0)}, nil // not loaded: nothing to measure
		}
	}
	spec := analysis.DefaultSpec(dataset)
	spec.Engine.Seed, spec.Engine.Explain, spec.Failures = p.Seed, false, p.Params["failures"].(string)
	if dataset != buffersZone {
		start := math.Inf(1)
		for _, v := range tr.VMs {
			start = min(start, v.Start)
		}
		spec.From, spec.To = start, start+buffersWindow(quick)
	}
	perCluster := float64(len(tr.Inv.Machines)) / float64(len(tr.Inv.Clusters))
	if p.Params["sweep"] == SweepLimits {
		b, step := buffersMachines(buffersBase, perCluster), LimitStep(perCluster)
		if p.Params["limits"] == LimitsRaised {
			b = RaiseLimits(b, step)
		}
		spec.Engine.Buffers = b
		figs, err := buffersReplay(ctx, tr, spec, scaleOuts)
		if err != nil {
			return nil, err
		}
		return append(figs, fig("limit_step", float64(step)), fig("new_deployment", float64(b.NewDeployment)),
			fig("scale_out", float64(b.ScaleOut)), fig("healing", float64(b.Healing))), nil
	}
	b := buffersMachines([3]float64{p.Params["new_deployment_pct"].(float64), p.Params["scale_out_pct"].(float64),
		p.Params["healing_pct"].(float64)}, perCluster)
	spec.Engine.Buffers = b
	figs, err := buffersReplay(ctx, tr, spec, scaleOuts)
	if err != nil {
		return nil, err
	}
	return append(figs, fig("new_deployment", float64(b.NewDeployment)), fig("scale_out", float64(b.ScaleOut)),
		fig("healing", float64(b.Healing)), fig("machines_per_cluster", perCluster)), nil
}

// buffersReplay runs spec on tr (requests decorated by decorate, when set)
// and returns the point's figures and its interval samples.
func buffersReplay(ctx context.Context, tr *replay.Trace, spec analysis.Spec, decorate func(*optimizer.Request)) ([]replay.MetricRow, error) {
	res, err := analysis.RunTrace(ctx, tr, &spec, analysis.RunOptions{NoWrite: true, Decorate: decorate})
	if err != nil {
		return nil, err
	}
	s := res.Summary
	clusters := float64(len(tr.Inv.Clusters))
	type sample struct{ util, empty, heal float64 }
	byT := map[float64]*sample{}
	var ts []float64
	for _, m := range res.Metrics {
		switch m.Metric {
		case "utilization", "empty_healthy_machines", "healable_machine_failures_pct":
		default:
			continue
		}
		sm := byT[m.T]
		if sm == nil {
			sm = &sample{}
			byT[m.T] = sm
			ts = append(ts, m.T)
		}
		switch m.Metric {
		case "utilization":
			sm.util = m.Value
		case "empty_healthy_machines":
			sm.empty = m.Value / clusters
		default:
			sm.heal = m.Value
		}
	}
	var emptySum float64
	for _, sm := range byT {
		emptySum += sm.empty
	}
	emptyMean := 0.0
	if len(ts) > 0 {
		emptyMean = emptySum / float64(len(ts))
	}
	meets := 0.0
	if s.CFR >= CFRTarget {
		meets = 1
	}
	figs := []replay.MetricRow{fig("available", 1),
		fig("scaleout_failure_rate", s.ScaleoutFailureRate), fig("heal_failure_rate", s.HealFailureRate),
		fig("new_deployment_failure_rate", s.NewDeploymentFailureRate), fig("utilization_mean", s.UtilizationMean),
		fig("cfr", s.CFR), fig("cfr_meets_target", meets),
		fig("healable_machine_failures_pct_mean", s.HealableMachineFailuresPctMean),
		fig("healable_rack_failures_pct_mean", s.HealableRackFailuresPctMean),
		fig("empty_healthy_machines_per_cluster_mean", emptyMean), fig("healing_buffer", float64(HealingBuffer(spec.Engine.Buffers))),
		fig("heal_vms", float64(s.HealVMs)), fig("machine_failures", float64(s.MachineFailures)), fig("rack_failures", float64(s.RackFailures)),
		fig("vm_downtime_hours", s.VMDowntimeHours)}
	// At most buffersSamples samples, evenly spaced.
	stride := max(1, (len(ts)+buffersSamples-1)/buffersSamples)
	for i := 0; i < len(ts); i += stride {
		t := ts[i]
		sm := byT[t]
		figs = append(figs, replay.MetricRow{T: t, Metric: buffersSamplePrefix + sampleUtilization, Value: sm.util},
			replay.MetricRow{T: t, Metric: buffersSamplePrefix + sampleEmpty, Value: sm.empty},
			replay.MetricRow{T: t, Metric: buffersSamplePrefix + sampleHealable, Value: sm.heal})
	}
	return figs, nil
}

// buffersScaleOutShare is the share of arrivals the experiment replays as
// scale-outs of an existing tenant (optimizer.KindScaleOut). The synthetic
// zone's tenants arrive once (one service request per tenant, Protean
// §2.1) and Huawei-East-1 names no tenant, so neither trace has a
// scale-out of its own and the slides' scale-out threshold would decide
// nothing; 0.3 is our choice, not a published figure.
const buffersScaleOutShare = 0.3

// scaleOuts marks a request as a scale-out when a hash of its id falls
// under buffersScaleOutShare: the same requests at every point of a trace,
// whatever the thresholds.
func scaleOuts(r *optimizer.Request) {
	h := uint64(r.ID)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 29
	if float64(h>>11)/(1<<53) < buffersScaleOutShare {
		r.Kind = optimizer.KindScaleOut
	}
}

// isBuffersSample reports whether metric is one of the buffers
// experiment's interval samples rather than a figure.
func isBuffersSample(metric string) bool { return strings.HasPrefix(metric, buffersSamplePrefix) }
