package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"

	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/datasets"
	store "placelab/sql"
)

// ReadFailureFile reads the spec's failure file (CSV or Parquet) and pins
// it by its SHA-256 (recorded in the run's params).
func (s *Spec) ReadFailureFile(ctx context.Context, db *store.DB) error {
	f, err := os.Open(s.FailureFile)
	if err != nil {
		return fmt.Errorf("%w: failure file: %v", ErrBadSpec, err)
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%w: failure file %s: %v", ErrBadSpec, s.FailureFile, err)
	}
	rows, err := datasets.ReadFailureFile(ctx, db, s.FailureFile)
	if err != nil {
		return err
	}
	s.FailureRows = make([]outage.FileRow, len(rows))
	for i, r := range rows {
		s.FailureRows[i] = outage.FileRow{Row: r.Row, T: r.T, Duration: r.Duration, Machine: r.Machine, Rack: r.Rack, Kind: r.Kind}
	}
	s.failureSHA = hex.EncodeToString(h.Sum(nil))
	return nil
}

// window is the span of trace time a run replays, as the replay takes it:
// from its first request — From (0 when unbounded), or the first arrival
// when that is later — to To, or to the last arrival when To is unbounded.
// Outages are drawn over it, so a trace that starts late (the Azure V1 dev
// split starts at 1,800,000 s) loses none to the time before its first VM.
func (s *Spec) window(tr *replay.Trace) (from, to float64) {
	from, to = s.From, s.To
	if math.IsInf(from, -1) {
		from = 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, v := range tr.VMs {
		first, last = math.Min(first, v.Start), math.Max(last, v.Start)
	}
	from = math.Max(from, first)
	if math.IsInf(to, 1) {
		to = math.Max(from, last)
	}
	return from, to
}

// availability builds the replay's outages and availability sets from the
// spec: failures drawn from the model over the run's window (seeded by the
// run's seed), the failure file's events, and the maintenance windows. It
// is nil when the spec asks for none of them.
func (s *Spec) availability(tr *replay.Trace) (*replay.Availability, error) {
	model, failuresOn, err := outage.ParseModel(s.Failures)
	if err != nil {
		return nil, err
	}
	maint, maintOn, err := outage.ParseMaintenance(s.Maintenance)
	if err != nil {
		return nil, err
	}
	if s.FailureFile != "" && s.FailureRows == nil {
		return nil, fmt.Errorf("%w: failure file %s was not read (runs with a failure file go through Run)", ErrBadSpec, s.FailureFile)
	}
	if !failuresOn && !maintOn && s.FailureFile == "" && s.FaultDomains == 0 && s.UpdateDomains == 0 {
		return nil, nil
	}
	if !failuresOn {
		// a failure file or maintenance alone heals as the default model does
		def := outage.DefaultModel()
		model.HealMin, model.Heal = def.HealMin, def.Heal
	}
	av := &replay.Availability{HealDelay: model.HealSeconds(), HealZone: model.Heal == outage.HealZone,
		FaultDomains: s.FaultDomains, UpdateDomains: s.UpdateDomains}
	from, to := s.window(tr)
	add := func(os []outage.Outage, src string) {
		for _, o := range os {
			av.Outages = append(av.Outages, replay.Outage{Outage: o, Source: src})
		}
	}
	if failuresOn {
		if err := s.Interruptions.Validate(); err != nil {
			return nil, err
		}
		add(outage.GenerateWith(tr.Inv, model, s.Interruptions, from, to, s.Engine.Seed), replay.SourceModel)
	}
	if s.FailureFile != "" {
		os, err := outage.FromRows(tr.Inv, s.FailureFile, s.FailureRows)
		if err != nil {
			return nil, err
		}
		add(os, replay.SourceFile)
	}
	if maintOn {
		ws, err := maint.Windows(tr.Inv, from, to)
		if err != nil {
			return nil, err
		}
		if len(ws) == 0 && to > from {
			// A setting that would change nothing is refused, not recorded.
			return nil, fmt.Errorf("%w: --maintenance: the first round, every = %.4g d after the window's start, falls after its end (the window spans %.4g d): no maintenance would run; give a shorter every= or --maintenance none",
				ErrBadSpec, maint.Every/86400, (to-from)/86400)
		}
		add(ws, replay.SourceMaintenance)
	}
	return av, nil
}
