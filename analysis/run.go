package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"placelab/analysis/replay"
	"slices"
	"time"

	"placelab/optimizer"
	store "placelab/sql"
)

// RunMeta is what the run table records besides the results.
type RunMeta struct {
	Engine, Policy, Dataset, Version string
	// LoadID is the load of Dataset the run read (0: none).
	LoadID  int64
	Seed    uint64
	Params  any // marshalled to JSON
	Started time.Time
}

func LoadID(id int64) any {
	if id <= 0 {
		return nil
	}
	return id
}

// WriteRun stores a replay's run, placement, explain, gang_vm and
// run_metric rows — and, for a run with availability, its outage, vm_move
// and placement_domain rows — in one transaction and returns the run id.
func WriteRun(ctx context.Context, db *store.DB, meta RunMeta, res *replay.Result) (int64, error) {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return 0, err
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error { return writeRun(w, id, meta, res, &quoted{}) })
	if err != nil {
		return 0, fmt.Errorf("analysis: write run: %w", err)
	}
	res.Summary.RunID = id
	return id, nil
}

// writeRun appends run id's rows inside a transaction: res.Placements (the
// rows a Sink did not take already) and everything else.
func writeRun(w *store.Writer, id int64, meta RunMeta, res *replay.Result, q *quoted) error {
	params, err := json.Marshal(meta.Params)
	if err != nil {
		return err
	}
	if err := w.Append("run", id, meta.Engine, meta.Policy, string(params), int64(meta.Seed), meta.Dataset,
		meta.Version, meta.Started.UTC(), res.Summary.Seconds, "done", LoadID(meta.LoadID)); err != nil {
		return err
	}
	for i := range res.Placements {
		if err := appendPlacement(w, id, &res.Placements[i], res.Trace, q); err != nil {
			return err
		}
	}
	for _, o := range res.Outages {
		var rack any
		if o.Rack != "" {
			rack = o.Rack
		}
		if err := w.Append("outage", id, o.Machine, o.T, o.Duration, o.Kind, rack, o.Source); err != nil {
			return err
		}
	}
	for _, g := range res.Gangs {
		var machine any
		if g.Machine >= 0 {
			machine = g.Machine
		}
		if err := w.Append("gang_vm", id, g.Request, g.VM, int32(g.Position), g.Role, machine); err != nil {
			return err
		}
	}
	for _, m := range res.Moves {
		var to, placed, rule any
		if m.To >= 0 {
			to, placed = m.To, m.Placed
		} else if m.FailedRule != "" {
			rule = m.FailedRule
		}
		if err := w.Append("vm_move", id, m.VM, m.Seq, m.T, m.From, to, placed, "heal", rule); err != nil {
			return err
		}
	}
	for _, m := range res.Metrics {
		if err := w.Append("run_metric", id, m.T, m.Metric, m.Value); err != nil {
			return err
		}
	}
	return nil
}

// appendPlacement appends one VM's placement row, with its explanation and
// its availability-set domains when it has them.
func appendPlacement(w *store.Writer, id int64, p *replay.PlacementRow, tr *replay.Trace, q *quoted) error {
	var machine, reason, evicted, response any
	if p.Machine >= 0 {
		machine = p.Machine
	}
	if p.Reason != "" {
		reason = p.Reason
	}
	if !math.IsNaN(p.EvictedAt) {
		evicted = p.EvictedAt
	}
	if !math.IsNaN(p.ResponseS) {
		response = p.ResponseS
	}
	if err := w.Append("placement", id, p.VM, p.T, machine, int16(p.Agent), int32(p.Retries), p.LatencyUS, p.Outcome, reason, evicted, response); err != nil {
		return err
	}
	if p.Explain != nil {
		if err := appendExplain(w, id, p.Explain, tr, q); err != nil {
			return err
		}
	}
	if p.Spread {
		if err := w.Append("placement_domain", id, p.VM, Domain(p.FaultDomain), Domain(p.UpdateDomain)); err != nil {
			return err
		}
	}
	return nil
}

// runSink streams a replay's final placement rows into the run's
// transaction (replay.Sink) from a goroutine of its own, so that the
// appends overlap the replay: the replay hands over a copy of each batch
// and goes on, held back only when runSinkDepth batches wait.
type runSink struct {
	ch   chan []replay.PlacementRow
	done chan struct{}
	err  error // the writer's first error, read after done or by Placements
	errc chan error
}

// runSinkDepth is how many batches may wait for the writer.
const runSinkDepth = 4

func startRunSink(w *store.Writer, id int64, tr *replay.Trace, q *quoted) *runSink {
	s := &runSink{ch: make(chan []replay.PlacementRow, runSinkDepth), done: make(chan struct{}), errc: make(chan error, 1)}
	go func() {
		defer close(s.done)
		for rows := range s.ch {
			if s.err != nil {
				continue // drain: the replay stops at its next check
			}
			for i := range rows {
				if err := appendPlacement(w, id, &rows[i], tr, q); err != nil {
					s.err = err
					s.errc <- err
					break
				}
			}
		}
	}()
	return s
}

// Placements implements replay.Sink.
func (s *runSink) Placements(rows []replay.PlacementRow) error {
	select {
	case err := <-s.errc:
		s.errc <- err
		return err
	default:
	}
	s.ch <- slices.Clone(rows)
	return nil
}

// close waits for the writer and returns its error.
func (s *runSink) close() error {
	close(s.ch)
	<-s.done
	return s.err
}

// Domain is a stored fault or update domain: NULL when off (-1).
func Domain(d int16) any {
	if d < 0 {
		return nil
	}
	return d
}

// quoted is a run writer's scratch for the JSON documents of the
// explanations it stores (one buffer, reused VM after VM; the sink and
// writeRun use it in turn, never at once).
type quoted struct {
	buf []byte
}

// doc is the JSON document enc appends, as a string (the buffer is reused).
func (q *quoted) doc(enc func([]byte) []byte) string {
	q.buf = enc(q.buf[:0])
	return string(q.buf)
}

// appendExplain writes a VM's explanation as two rows, cluster level and
// machine level (optimizer.ExplainRow), with the row's own JSON encoders
// (this runs once per VM of a replay; they write what encoding/json
// writes for the same row).
func appendExplain(w *store.Writer, run int64, ex *optimizer.Explanation, tr *replay.Trace, q *quoted) error {
	r := ex.Row(tr.Inv, tr.MachineIDs)
	c, m := &r.Cluster, &r.Machine
	if err := w.Append("explain", run, r.VM, "cluster", int32(c.Candidates),
		q.doc(c.Rejected.AppendJSON), q.doc(c.Top.AppendJSON), nullString(c.FailedRule)); err != nil {
		return err
	}
	return w.Append("explain", run, r.VM, "machine", int32(m.Candidates),
		q.doc(m.Rejected.AppendJSON), q.doc(m.Top.AppendJSON), nullString(m.FailedRule))
}

// nullString is s, or NULL when empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// WriteFigures stores a run whose results are named figures rather than
// placements (an experiment arm, a simulation): one run row and one
// run_metric row per figure, in one transaction. It returns the run id.
func WriteFigures(ctx context.Context, db *store.DB, meta RunMeta, seconds float64, figs []replay.MetricRow) (int64, error) {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return 0, err
	}
	params, err := json.Marshal(meta.Params)
	if err != nil {
		return 0, err
	}
	if meta.Started.IsZero() {
		meta.Started = time.Now()
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Append("run", id, meta.Engine, meta.Policy, string(params), int64(meta.Seed), meta.Dataset,
			meta.Version, meta.Started.UTC(), seconds, "done", LoadID(meta.LoadID)); err != nil {
			return err
		}
		for _, m := range figs {
			if err := w.Append("run_metric", id, m.T, m.Metric, m.Value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("analysis: write run: %w", err)
	}
	return id, nil
}
