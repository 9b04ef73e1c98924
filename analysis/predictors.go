package analysis

import (
	"context"
	"fmt"
	"placelab/predict"
	"placelab/predict/client"
	store "placelab/sql"
)

// DatasetClient is RC's client over dataset's models, initialized.
func DatasetClient(ctx context.Context, db *store.DB, dataset string) (*client.Client, error) {
	o := client.DefaultOptions()
	o.Datasets = []string{dataset}
	c, err := client.New(db, o)
	if err != nil {
		return nil, err
	}
	if err := c.Initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ClientPredictor is ModelPredictor served by c (which the caller closes).
func ClientPredictor(c *client.Client, dataset string, metric predict.Metric, approach string) (func(int64) (int8, float64), float64, error) {
	if approach == "" {
		approach = metric.Approach()
	}
	name := predict.ModelName(dataset, metric, approach)
	m := c.Model(name)
	if m == nil {
		return nil, 0, fmt.Errorf("%w %q (placelab predict train --dataset %s --metric %s)", predict.ErrNoModel, name, dataset, metric)
	}
	pred := func(vm int64) (int8, float64) {
		r, err := c.Predict(name, client.Input{VM: vm})
		if err != nil || r.Bucket == 0 {
			return 0, 0
		}
		return r.Bucket, r.Score
	}
	return pred, m.TrainTo, nil
}
