// Package client is Resource Central's client library (SOSP'17 §4.2,
// Table 2) over placelab's stored models: Initialize loads the models and
// the feature data of their datasets into memory (RC's push-based caching:
// everything a prediction needs is local), Predict looks up the result
// cache by a hash of the model name and inputs, and on a miss executes the
// model on the client's inputs and the cached feature data and caches the
// result. A result carries the predicted bucket and its score; under θ it
// is a no-prediction, as is a request for a model or a VM the caches do not
// hold (RC: "RC returns a no-prediction if it cannot find a model or
// feature data in its caches").
//
// A Client is safe for concurrent use.
package client

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"placelab/predict"
	store "placelab/sql"
)

// Options configure a Client.
type Options struct {
	// ResultCache turns the result cache on (RC: configurable).
	ResultCache bool
	// Theta is the score under which a prediction is a no-prediction.
	Theta float64
	// Datasets limits the models (and feature data) loaded to these
	// datasets; nil loads every stored model.
	Datasets []string
}

// DefaultOptions: result cache on, θ = 0.6 (Table 4, Algorithm 1).
func DefaultOptions() Options { return Options{ResultCache: true, Theta: predict.Theta} }

// Validate refuses a θ outside [0, 1].
func (o *Options) Validate() error {
	if !(o.Theta >= 0 && o.Theta <= 1) {
		return fmt.Errorf("client: theta %v: want 0 ≤ θ ≤ 1", o.Theta)
	}
	return nil
}

// Input is one prediction request: a VM of the model's dataset, whose
// features the feature-data cache holds, or the feature vector itself (in
// the model's column order) for a VM the store has not seen.
type Input struct {
	VM       int64
	Features []float32
}

// Result is one prediction: the bucket (1-based) and its score, OK when
// the score reaches θ (a no-prediction otherwise, Bucket then still the
// top-scored bucket when there was one), Cached when the result cache
// answered. From a lifetime_dist model (predict.LifetimeDist) Time is the
// predicted median lifetime exp(μ) in seconds, set whether or not OK, and
// Bucket and Score are the most probable lifetime bucket of
// predict.BucketProbs(μ, σ) and its probability; ln Time with the model's
// σ (Model(name).Survival()) gives the whole distribution. Time is 0 from
// a bucket classifier.
type Result struct {
	Bucket int8
	Score  float64
	Time   float64
	OK     bool
	Cached bool
	// Reason says why there is no prediction ("" when OK).
	Reason string
}

// Stats count the client's work since the last Flush.
type Stats struct {
	Requests, Hits, Executions, NoPrediction int64
}

// ErrUninitialized is returned by a Client before Initialize.
var ErrUninitialized = errors.New("client: not initialized")

// Client is RC's client DLL.
type Client struct {
	db   *store.DB
	opts Options
	seed maphash.Seed

	mu       sync.RWMutex
	models   map[string]*predict.Model
	features map[string]*featureData // by dataset
	cols     map[string][]int        // by model: its features' columns in the feature data
	sigma    map[string]float64      // by survival model: its σ
	results  sync.Map                // uint64 → Result

	requests, hits, executions, none atomic.Int64
}

// featureData is one dataset's rc_features rows, by VM.
type featureData struct {
	frame *predict.Frame
	row   map[int64]int
}

// New makes a client reading db; call Initialize before predicting.
func New(db *store.DB, o Options) (*Client, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &Client{db: db, opts: o, seed: maphash.MakeSeed()}, nil
}

// Initialize loads every model and its dataset's feature data (Table 2's
// initialize and force_reload_cache).
func (c *Client) Initialize(ctx context.Context) error {
	list, err := predict.ListModels(ctx, c.db, "")
	if err != nil {
		return err
	}
	models := map[string]*predict.Model{}
	features := map[string]*featureData{}
	cols := map[string][]int{}
	sigma := map[string]float64{}
	fail := func(err error) error {
		for _, m := range models {
			m.Close()
		}
		return err
	}
	for _, l := range list {
		if c.opts.Datasets != nil && !slices.Contains(c.opts.Datasets, l.Dataset) {
			continue
		}
		m, err := predict.LoadModel(ctx, c.db, l.Name)
		if err != nil {
			return fail(err)
		}
		models[m.Name] = m
		if _, s, ok := m.Survival(); ok {
			sigma[m.Name] = s
		}
		if _, ok := features[m.Dataset]; !ok {
			f, err := predict.LoadFrame(ctx, c.db, m.Dataset)
			if err != nil {
				return fail(err)
			}
			fd := &featureData{frame: f, row: make(map[int64]int, f.Rows())}
			for i, vm := range f.VMs {
				fd.row[vm] = i
			}
			features[m.Dataset] = fd
		}
		f := features[m.Dataset].frame
		for _, name := range m.Features.Columns {
			j := f.Col(name)
			if j < 0 {
				return fail(fmt.Errorf("client: model %s reads %q, absent from its feature data (train it again)", m.Name, name))
			}
			cols[m.Name] = append(cols[m.Name], j)
		}
	}
	c.mu.Lock()
	old := c.models
	c.models, c.features, c.cols, c.sigma = models, features, cols, sigma
	c.results.Clear()
	c.mu.Unlock()
	for _, m := range old {
		m.Close()
	}
	return nil
}

// ForceReload refreshes the model and feature-data caches from the store
// and empties the result cache.
func (c *Client) ForceReload(ctx context.Context) error { return c.Initialize(ctx) }

// Flush empties the result cache and the statistics.
func (c *Client) Flush() {
	c.results.Clear()
	c.requests.Store(0)
	c.hits.Store(0)
	c.executions.Store(0)
	c.none.Store(0)
}

// Close frees the models.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.models {
		m.Close()
	}
	c.models, c.features, c.cols, c.sigma = nil, nil, nil, nil
}

// AvailableModels lists the cached models' names (Table 2's
// get_available_models), sorted.
func (c *Client) AvailableModels() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for n := range c.models {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Model returns a cached model (nil if absent).
func (c *Client) Model(name string) *predict.Model {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.models[name]
}

// Stats returns the counters.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Hits: c.hits.Load(), Executions: c.executions.Load(), NoPrediction: c.none.Load()}
}

// Predict is Table 2's predict_single.
func (c *Client) Predict(model string, in Input) (Result, error) {
	c.mu.RLock()
	if c.models == nil {
		c.mu.RUnlock()
		return Result{}, ErrUninitialized
	}
	c.requests.Add(1)
	m := c.models[model]
	var fd *featureData
	var idx []int
	sigma, survival := c.sigma[model]
	if m != nil {
		fd, idx = c.features[m.Dataset], c.cols[model]
	}
	c.mu.RUnlock()
	if m == nil {
		c.none.Add(1)
		return Result{Reason: "no model " + model}, nil
	}
	x, cols := in.Features, len(m.Features.Columns)
	if x == nil {
		r, ok := fd.row[in.VM]
		if !ok {
			c.none.Add(1)
			return Result{Reason: fmt.Sprintf("no feature data for vm %d", in.VM)}, nil
		}
		x = make([]float32, cols)
		row := fd.frame.X[r*fd.frame.Cols():]
		for i, j := range idx {
			x[i] = row[j]
		}
	} else if len(x) != cols {
		return Result{}, fmt.Errorf("client: model %s takes %d features, got %d", model, cols, len(x))
	}
	var key uint64
	if c.opts.ResultCache {
		key = c.key(model, x)
		if v, ok := c.results.Load(key); ok {
			c.hits.Add(1)
			res := v.(Result)
			res.Cached = true
			if !res.OK {
				c.none.Add(1)
			}
			return res, nil
		}
	}
	var res Result
	if survival {
		var mu [1]float32
		if err := m.Booster.PredictRowMargin(x, mu[:]); err != nil {
			return Result{}, fmt.Errorf("client: model %s: %w", model, err)
		}
		top := predict.SurvivalPrediction(float64(mu[0]), sigma)
		res = Result{Bucket: top.Bucket, Score: top.Score, Time: math.Exp(float64(mu[0]))}
	} else {
		probs := make([]float32, m.Classes)
		if err := m.Booster.PredictRow(x, probs); err != nil {
			return Result{}, fmt.Errorf("client: model %s: %w", model, err)
		}
		top := predict.Argmax(probs, 1, m.Classes)[0]
		res = Result{Bucket: top.Bucket, Score: top.Score}
	}
	c.executions.Add(1)
	res.OK = res.Score >= c.opts.Theta
	if !res.OK {
		res.Reason = fmt.Sprintf("score %.2f under θ %.2f", res.Score, c.opts.Theta)
		c.none.Add(1)
	}
	if c.opts.ResultCache {
		c.results.Store(key, res)
	}
	return res, nil
}

// PredictMany is Table 2's predict_many.
func (c *Client) PredictMany(model string, in []Input) ([]Result, error) {
	out := make([]Result, len(in))
	for i := range in {
		r, err := c.Predict(model, in[i])
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// key hashes the model name and the inputs (RC: "hashing the model name
// and client inputs"); NaN inputs hash alike.
func (c *Client) key(model string, x []float32) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(model)
	var b [4]byte
	for _, v := range x {
		u := math.Float32bits(v)
		if v != v {
			u = 0x7fc00000
		}
		binary.LittleEndian.PutUint32(b[:], u)
		h.Write(b[:])
	}
	return h.Sum64()
}
