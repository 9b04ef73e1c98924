// Package xgboost is placelab's binding to XGBoost's C API (Debian's
// libxgboost-dev, XGBoost 1.7, found with pkg-config): it trains
// multi-class tree models and accelerated-failure-time survival models,
// predicts class probabilities or survival times, saves and loads models
// and reports feature importance. XGBoost does the learning; the package
// checks inputs, owns the handles and copies results out.
//
// # Resource Central's models
//
// Resource Central (RC, SOSP'17) predicts each metric as a bucket (Table 3)
// with a classifier, and its Table 1 names the kind per metric:
//
//	metric                          RC Table 1                       here
//	average CPU utilization         Random Forest                    DefaultForest
//	P95 of max CPU utilization      Random Forest                    DefaultForest
//	deployment size in VMs          Extreme Gradient Boosting Tree   DefaultBoosted
//	deployment size in cores        Extreme Gradient Boosting Tree   DefaultBoosted
//	lifetime                        Extreme Gradient Boosting Tree   DefaultBoosted
//	workload class                  FFT + Extreme Gradient Boosting  DefaultBoosted
//
// Both kinds are XGBoost gradient-tree boosters with the multi:softprob
// objective, so a prediction is a probability per bucket and its largest
// value is RC's score. DefaultBoosted is boosting: DefaultRounds rounds, each
// adding one tree per class that corrects the sum so far. DefaultForest is
// XGBoost's random-forest mode: a single round of DefaultForestTrees trees per
// class, each grown on a random DefaultForestSubsample of the rows with a
// random DefaultForestColsample of the features offered at each split, and
// learning rate 1, which XGBoost spreads over the round's trees so that the
// forest averages them. RC gives no settings for either; the defaults are
// XGBoost's own and its random-forest tutorial's.
//
// # Survival: lifetimes with censoring
//
// Beyond RC's buckets, TrainSurvival fits XGBoost's own survival:aft
// objective (AFT): ln T = μ(x) + σ·Z with Z normal, logistic or extreme
// (Params.AFTDistribution) and a fixed σ (Params.AFTScale), learned from
// interval labels — XGBoost's label_lower_bound and label_upper_bound
// float fields: lower = upper for an observed lifetime, upper = +Inf for a
// right-censored one (a VM still running, known only to outlive its age).
// Lower bounds must be > 0 (the model is of ln T); callers floor zero
// times. An AFT model has one output per row (NumClass 1): Predict returns
// XGBoost's prediction exp(μ), the median time for the symmetric
// distributions, and PredictMargin μ itself. XGBoost 1.7 starts every model
// at base_score, 0.5 by default — far below lifetimes in seconds — so
// TrainSurvival starts from the geometric mean of the lower bounds unless
// Params.BaseScore says otherwise; the start is saved with the model. A
// loaded model knows its objective, distribution and σ (Booster.Survival).
//
//	p := xgboost.DefaultSurvival(xgboost.AFTNormal, 1.5)
//	b, err := xgboost.TrainSurvival(ctx, x, rows, cols, lower, upper, nil, p)
//	mu, err := b.PredictMargin(x, rows, cols) // μ per row; Predict gives exp(μ)
//
// # Use
//
//	p := xgboost.DefaultBoosted(4)           // or DefaultForest; p.Validate() says what is wrong
//	b, err := xgboost.Train(ctx, x, rows, cols, labels, nil, p)
//	defer b.Close()
//	probs, err := b.Predict(x, rows, cols)   // rows × 4, row-major
//	err = b.PredictRow(row, out)             // one row, no allocation: serving
//	buf, err := b.Save()                     // UBJSON; xgboost.Load(buf) reads it back
//	gain, err := b.Importance(xgboost.ImportanceTotalGain) // one value per feature
//
// Matrices are row-major []float32; NaN marks a missing value, an infinite
// value is refused. Labels are the class numbers 0 … NumClass-1 as floats.
// Every bad shape, label, weight or parameter is refused in Go with an error
// wrapping ErrInvalid that names it; what XGBoost refuses comes back wrapping
// ErrXGBoost with XGBoost's own message.
//
// # Reproducibility
//
// The same data and Params give byte-identical saved models. XGBoost 1.7
// keeps its random generator per OS thread and seeds it when a booster is
// first configured, so Train runs all rounds on one locked thread and sets
// seed_per_iteration, which reseeds the generator from Seed at every round;
// the package tests train concurrently and compare bytes. XGBoost seeds a
// 32-bit Mersenne Twister, so seeds above MaxSeed are refused rather than
// aliased. NThread is part of Params because a model's bits could depend on
// it (see Params.NThread); on the tested data 1 and 2 threads agree.
//
// # Concurrency and memory
//
// Predict and PredictRow may run from many goroutines at once on one
// Booster (XGBoost's in-place prediction is safe to run concurrently);
// Save, Importance and Close wait for them and run alone. XGBoost hands out
// results and error messages in thread-local buffers, so every result is
// copied before the calling goroutine can move to another thread. A Booster
// holds an XGBoost handle and a few proxy matrices; Close frees them, and
// the garbage collector frees those of a Booster dropped without Close.
// XGBoost itself keeps its return buffers (last prediction, last saved
// model) per OS thread and booster, and frees them only on the thread that
// frees the booster; a new booster at a freed address reuses them. In 300
// load-predict-save-close cycles from 4 goroutines the process's resident
// memory levelled off (at about 30 MB), so the binding does not work around
// it.
//
// # Speed
//
// On this shared 2-core machine (medians of 3 runs of go test -run '^$'
// -bench . -count 3 ./predict/xgboost/), for the goal model of 100 rounds
// of depth-6 trees over 4 classes and 30 features (400 trees): PredictRow
// 22 µs per row, against 40 µs through a DMatrix made per call
// (BenchmarkPredictRow); batch Predict 8.6 µs per row. Predictions use one
// OpenMP thread (predictThreads; BenchmarkPredictThreads shows why).
package xgboost
