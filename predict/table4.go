package predict

import (
	"fmt"
	"math"

	"placelab/optimizer"
)

// Theta is Table 4's confidence threshold: a prediction scoring under it is
// a no-prediction (RC §6.1; Algorithm 1's line 10 uses the same 0.6).
const Theta = optimizer.ConfidenceThreshold

// Prediction is a predicted bucket (1-based) and its score, the
// classifier's probability of that bucket (RC: "a predicted value and a
// score").
type Prediction struct {
	Bucket int8
	Score  float64
}

// Confident says whether the prediction counts under θ.
func (p Prediction) Confident() bool { return p.Bucket > 0 && p.Score >= Theta }

// BucketStats are Table 4's per-bucket columns: the share of test VMs truly
// in the bucket, and precision and recall of the predictions naming it
// (NaN where no prediction named it, or no VM is in it).
type BucketStats struct {
	Bucket    int    `json:"bucket"`
	Label     string `json:"label"`
	VMs       int    `json:"vms"`
	Share     Frac   `json:"share"`
	Precision Frac   `json:"precision"`
	Recall    Frac   `json:"recall"`
}

// Table4Row is one predictor's quality on one metric, as RC's Table 4
// defines it: Accuracy is the share of test VMs whose top-scored bucket is
// right; PTheta the share of confident predictions (score ≥ θ) that are
// right; RTheta the share of all test VMs given a right confident
// prediction (a no-prediction recalls nothing); Coverage the share given a
// confident prediction.
type Table4Row struct {
	Metric    Metric        `json:"metric"`
	Predictor string        `json:"predictor"`
	Model     string        `json:"model,omitempty"`
	VMs       int           `json:"vms"`
	Accuracy  Frac          `json:"accuracy"`
	Buckets   []BucketStats `json:"buckets"`
	PTheta    Frac          `json:"p_theta"`
	RTheta    Frac          `json:"r_theta"`
	Coverage  Frac          `json:"coverage"`
}

// Score computes a Table4Row from true buckets (1-based, all known) and
// predictions of the same length.
func Score(m Metric, predictor string, truth []int8, pred []Prediction) (Table4Row, error) {
	if len(truth) != len(pred) {
		return Table4Row{}, fmt.Errorf("predict: %d labels, %d predictions", len(truth), len(pred))
	}
	k := m.Buckets()
	row := Table4Row{Metric: m, Predictor: predictor, VMs: len(truth)}
	if len(truth) == 0 {
		return row, fmt.Errorf("%w: no test VM with a known %s", ErrNoData, m)
	}
	inB := make([]int, k+1)
	named := make([]int, k+1)
	hit := make([]int, k+1)
	correct, conf, confRight := 0, 0, 0
	for i, y := range truth {
		if y < 1 || int(y) > k {
			return row, fmt.Errorf("predict: %s label %d out of 1..%d", m, y, k)
		}
		p := pred[i]
		if p.Bucket < 0 || int(p.Bucket) > k {
			return row, fmt.Errorf("predict: %s prediction %d out of 0..%d", m, p.Bucket, k)
		}
		inB[y]++
		named[p.Bucket]++
		if p.Bucket == y {
			correct++
			hit[y]++
		}
		if p.Confident() {
			conf++
			if p.Bucket == y {
				confRight++
			}
		}
	}
	n := float64(len(truth))
	row.Accuracy = Frac(float64(correct) / n)
	labels := m.Labels()
	for b := 1; b <= k; b++ {
		row.Buckets = append(row.Buckets, BucketStats{Bucket: b, Label: labels[b-1], VMs: inB[b],
			Share: Frac(float64(inB[b]) / n), Precision: ratio(hit[b], named[b]), Recall: ratio(hit[b], inB[b])})
	}
	row.PTheta = ratio(confRight, conf)
	row.RTheta = Frac(float64(confRight) / n)
	row.Coverage = Frac(float64(conf) / n)
	return row, nil
}

func ratio(a, b int) Frac {
	if b == 0 {
		return Frac(math.NaN())
	}
	return Frac(float64(a) / float64(b))
}

// Frac is a fraction that may be undefined (NaN): JSON null then.
type Frac float64

// MarshalJSON writes NaN as null.
func (f Frac) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("%.6g", float64(f))), nil
}
