package predict

import (
	"fmt"
	"strings"
)

// Metric is one of Resource Central's predicted metrics (§3, Table 3). Its
// name is the one rc_buckets, rc_labels and prediction_eval use.
type Metric string

// The six metrics of RC's Table 4.
const (
	AvgCPU        Metric = "avg_cpu"
	P95CPU        Metric = "p95_cpu"
	DeployVMs     Metric = "deploy_vms"
	DeployCores   Metric = "deploy_cores"
	Lifetime      Metric = "lifetime"
	WorkloadClass Metric = "workload_class"
)

// LifetimeDist is the lifetime as a distribution rather than a bucket: a
// log-normal survival model (XGBoost's survival:aft) learned from
// right-censored lifetimes, from which any bucket, quantile or survival
// probability follows (survival.go). It is not one of Table 4's metrics,
// so Metrics and "all" leave it out; ParseMetrics accepts it by name.
const LifetimeDist Metric = "lifetime_dist"

// Metrics lists the metrics in Table 4's row order: the bucket classifiers.
var Metrics = []Metric{AvgCPU, P95CPU, DeployVMs, DeployCores, Lifetime, WorkloadClass}

// Approaches are the model kinds placelab trains (RC Table 1, and the
// survival model of LifetimeDist).
const (
	Boosted = "xgboost"       // Extreme Gradient Boosting Trees
	Forest  = "random-forest" // Random Forests
	AFT     = "xgboost-aft"   // gradient-boosted trees, accelerated failure time objective
)

// Buckets is the number of Table 3 buckets of the metric (LifetimeDist:
// the lifetime's four, which BucketProbs spreads the distribution over).
func (m Metric) Buckets() int {
	if m == WorkloadClass {
		return 2
	}
	return 4
}

// Labels names the metric's buckets, index 0 for bucket 1.
func (m Metric) Labels() []string {
	switch m {
	case AvgCPU, P95CPU:
		return []string{"0-25%", "25-50%", "50-75%", "75-100%"}
	case DeployVMs, DeployCores:
		return []string{"1", "2-10", "11-100", ">100"}
	case Lifetime, LifetimeDist:
		return []string{"<=15 min", "15-60 min", "1-24 h", ">24 h"}
	}
	return []string{"delay-insensitive", "interactive"}
}

// Approach is the modeling approach RC's Table 1 assigns the metric:
// Random Forests for the CPU utilizations, Extreme Gradient Boosting Trees
// for deployment sizes, lifetime and workload class; AFT for LifetimeDist.
func (m Metric) Approach() string {
	switch m {
	case AvgCPU, P95CPU:
		return Forest
	case LifetimeDist:
		return AFT
	}
	return Boosted
}

// ParseMetrics reads a comma-separated list of metric names; "all" is every
// metric of Table 4 (Metrics), lifetime_dist excepted.
func ParseMetrics(s string) ([]Metric, error) {
	if s == "all" {
		return append([]Metric(nil), Metrics...), nil
	}
	var out []Metric
	for _, f := range strings.Split(s, ",") {
		m := Metric(strings.TrimSpace(f))
		if !m.valid() {
			return nil, fmt.Errorf("predict: metric %q: want all or one of %s", f, metricList())
		}
		for _, o := range out {
			if o == m {
				return nil, fmt.Errorf("predict: metric %q given twice", f)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func (m Metric) valid() bool {
	if m == LifetimeDist {
		return true
	}
	for _, k := range Metrics {
		if k == m {
			return true
		}
	}
	return false
}

func metricList() string {
	s := make([]string, len(Metrics), len(Metrics)+1)
	for i, m := range Metrics {
		s[i] = string(m)
	}
	return strings.Join(append(s, string(LifetimeDist)), ", ")
}
