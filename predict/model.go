package predict

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"placelab/predict/xgboost"
	store "placelab/sql"
)

// ErrNoModel says no stored model has the name asked for.
var ErrNoModel = errors.New("predict: no such model")

// FeatureSpec says how a model's inputs are made: the view, its columns in
// the model's order, and the entity that stands in for the subscription.
type FeatureSpec struct {
	View    string   `json:"view"`
	Columns []string `json:"columns"`
	Entity  string   `json:"entity"`
}

// Importance is a feature's share of the model's total gain.
type Importance struct {
	Feature string  `json:"feature"`
	Gain    float64 `json:"gain"`
}

// Model is a stored bucket classifier, or the lifetime_dist survival model
// (Metric LifetimeDist, Approach AFT; Survival says its σ): what it
// predicts, how it was trained and on what, and its XGBoost booster.
type Model struct {
	ID         int64            `json:"model_id"`
	Name       string           `json:"name"`
	Metric     Metric           `json:"metric"`
	Approach   string           `json:"approach"`
	Dataset    string           `json:"dataset"`
	LoadID     int64            `json:"load_id"`
	Features   FeatureSpec      `json:"features"`
	Params     xgboost.Params   `json:"params"`
	Classes    int              `json:"classes"`
	TrainFrom  float64          `json:"train_from_s"`
	TrainTo    float64          `json:"train_to_s"`
	TrainRows  int              `json:"train_rows"`
	Importance []Importance     `json:"importance"`
	TrainedAt  time.Time        `json:"trained_at"`
	Seconds    float64          `json:"seconds"`
	Booster    *xgboost.Booster `json:"-"`
	// TrainCensored and SigmaGrid describe a lifetime_dist model's
	// training (not stored; 0 and nil once loaded): the training VMs still
	// running at the cut, and the σ grid's validation scores.
	TrainCensored int          `json:"train_censored,omitempty"`
	SigmaGrid     []SigmaScore `json:"sigma_grid,omitempty"`
	// HalfLife is a lifetime_dist model's training-weight half-life in
	// seconds (RecencyWeights; 0: equal weights, and every other model).
	HalfLife float64 `json:"half_life_s"`
}

// ModelName is the name placelab stores a model under.
func ModelName(dataset string, m Metric, approach string) string {
	return dataset + "/" + string(m) + "/" + approach
}

// Close frees the booster.
func (m *Model) Close() {
	if m.Booster != nil {
		m.Booster.Close()
	}
}

// PredictRows returns the predicted bucket and score of each row of a
// row-major matrix of the model's features. For the lifetime_dist model
// that is the most probable bucket of BucketProbs and its probability.
func (m *Model) PredictRows(x []float32, rows int) ([]Prediction, error) {
	if _, sigma, ok := m.Survival(); ok {
		mu, err := m.PredictMu(x, rows)
		if err != nil {
			return nil, err
		}
		out := make([]Prediction, rows)
		for i, v := range mu {
			out[i] = SurvivalPrediction(v, sigma)
		}
		return out, nil
	}
	cols := len(m.Features.Columns)
	probs, err := m.Booster.Predict(x, rows, cols)
	if err != nil {
		return nil, fmt.Errorf("predict: model %s: %w", m.Name, err)
	}
	return Argmax(probs, rows, m.Classes), nil
}

// Argmax turns rows × k class probabilities into predictions: each row's
// top bucket and its probability as the score (ties go to the lower
// bucket).
func Argmax(probs []float32, rows, k int) []Prediction {
	out := make([]Prediction, rows)
	for r := 0; r < rows; r++ {
		p := probs[r*k : (r+1)*k]
		best := 0
		for c := 1; c < k; c++ {
			if p[c] > p[best] {
				best = c
			}
		}
		out[r] = Prediction{Bucket: int8(best + 1), Score: float64(p[best])}
	}
	return out
}

// storedApproach is the approach column of the model table: schema 0007
// allows only xgboost and random-forest, so an AFT model (gradient-boosted
// XGBoost trees too) is stored as xgboost and told apart on loading by its
// params' objective (scanModel).
func storedApproach(approach string) string {
	if approach == AFT {
		return Boosted
	}
	return approach
}

// save replaces any model of the same name, in one transaction.
func (m *Model) save(ctx context.Context, db *store.DB) error {
	buf, err := m.Booster.Save()
	if err != nil {
		return err
	}
	spec, _ := json.Marshal(m.Features)
	params, _ := json.Marshal(m.Params)
	imp, _ := json.Marshal(m.Importance)
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT nextval('model_seq')").Scan(&m.ID); err != nil {
		return fmt.Errorf("predict: model id: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM model WHERE name = ?", m.Name); err != nil {
		return fmt.Errorf("predict: replace model %s: %w", m.Name, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO model (model_id, name, metric, approach, dataset, load_id, features, params,
		classes, train_from_s, train_to_s, train_rows, booster, importance, trained_at, seconds, half_life_s)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Name, string(m.Metric), storedApproach(m.Approach), m.Dataset, m.LoadID, string(spec), string(params),
		m.Classes, m.TrainFrom, m.TrainTo, m.TrainRows, buf, string(imp), m.TrainedAt.UTC(), m.Seconds, m.HalfLife)
	if err != nil {
		return fmt.Errorf("predict: store model %s: %w", m.Name, err)
	}
	return tx.Commit()
}

const modelColumns = `model_id, name, metric, approach, dataset, load_id, features, params, classes,
	train_from_s, train_to_s, train_rows, importance, trained_at, seconds, half_life_s`

func scanModel(sc interface{ Scan(...any) error }, withBooster bool) (*Model, []byte, error) {
	m := &Model{}
	var metric, spec, params string
	var imp sql.NullString
	var secs, halfLife sql.NullFloat64
	var buf []byte
	dest := []any{&m.ID, &m.Name, &metric, &m.Approach, &m.Dataset, &m.LoadID, &spec, &params, &m.Classes,
		&m.TrainFrom, &m.TrainTo, &m.TrainRows, &imp, &m.TrainedAt, &secs, &halfLife}
	if withBooster {
		dest = append(dest, &buf)
	}
	if err := sc.Scan(dest...); err != nil {
		return nil, nil, err
	}
	m.Metric, m.Seconds, m.HalfLife = Metric(metric), secs.Float64, halfLife.Float64
	if err := json.Unmarshal([]byte(spec), &m.Features); err != nil {
		return nil, nil, fmt.Errorf("predict: model %s: features: %w", m.Name, err)
	}
	if err := json.Unmarshal([]byte(params), &m.Params); err != nil {
		return nil, nil, fmt.Errorf("predict: model %s: params: %w", m.Name, err)
	}
	if m.Params.Survival() {
		m.Approach = AFT
	}
	if imp.Valid {
		if err := json.Unmarshal([]byte(imp.String), &m.Importance); err != nil {
			return nil, nil, fmt.Errorf("predict: model %s: importance: %w", m.Name, err)
		}
	}
	return m, buf, nil
}

// LoadModel reads a stored model by name, booster included; Close it when
// done.
func LoadModel(ctx context.Context, db *store.DB, name string) (*Model, error) {
	row := db.SQL().QueryRowContext(ctx, "SELECT "+modelColumns+", booster FROM model WHERE name = ?", name)
	m, buf, err := scanModel(row, true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w %q (placelab predict models lists them; placelab predict train makes them)", ErrNoModel, name)
	}
	if err != nil {
		return nil, fmt.Errorf("predict: load model %s: %w", name, err)
	}
	if m.Booster, err = xgboost.Load(buf); err != nil {
		return nil, fmt.Errorf("predict: load model %s: %w", name, err)
	}
	return m, nil
}

// ListModels lists the stored models (without boosters) of a dataset, or
// of every dataset for "", by name.
func ListModels(ctx context.Context, db *store.DB, dataset string) ([]*Model, error) {
	rows, err := db.SQL().QueryContext(ctx, "SELECT "+modelColumns+" FROM model WHERE ? = '' OR dataset = ? ORDER BY name", dataset, dataset)
	if err != nil {
		return nil, fmt.Errorf("predict: models: %w", err)
	}
	defer rows.Close()
	var out []*Model
	for rows.Next() {
		m, _, err := scanModel(rows, false)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
