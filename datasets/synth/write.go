package synth

import (
	"context"
	"fmt"
	"strconv"

	store "placelab/sql"
)

// Stats summarizes a written trace.
type Stats struct {
	Machines       int
	ZoneCores      float64
	VMTypes        int
	VMs            int
	InitialVMs     int // alive at t = 0 (negative start)
	Requests       int // service requests (tenants)
	Subscriptions  int
	Censored       int // still alive at the trace end (NULL end)
	InitialCores   float64
	LoadAtStart    float64 // InitialCores / ZoneCores
	LongMedianDays float64 // see Trace.LongMedianDays
	Stationary     bool    // arrivals balance departures (see Trace)
	SeriesVMs      int
	Readings       int64
	Rows           int64 // rows appended, all tables
}

// Stats computes the summary of a generated trace.
func (tr *Trace) Stats() Stats {
	st := Stats{
		Machines:       len(tr.Zone.Machines),
		ZoneCores:      tr.Zone.Cores(),
		VMTypes:        len(tr.Types),
		VMs:            len(tr.VMs),
		InitialVMs:     tr.InitialVMs,
		Requests:       tr.Requests,
		Subscriptions:  tr.Subscriptions,
		LongMedianDays: tr.LongMedianDays,
		Stationary:     tr.Stationary,
		SeriesVMs:      len(tr.Series),
	}
	for _, v := range tr.VMs {
		if v.Censored {
			st.Censored++
		}
		if v.Start < 0 {
			st.InitialCores += tr.Types[v.Type].Cores
		}
	}
	if st.ZoneCores > 0 {
		st.LoadAtStart = st.InitialCores / st.ZoneCores
	}
	for _, s := range tr.Series {
		st.Readings += int64(len(s.Readings))
	}
	st.Rows = int64(len(tr.Zone.SKUs)+len(tr.Zone.Machines)+len(tr.Types)+len(tr.VMs)) + st.Readings
	return st
}

// Names of generated entities.
func vmName(id int64) string          { return "vm" + strconv.FormatInt(id, 10) }
func tenantName(r int32) string       { return "t" + strconv.FormatInt(int64(r), 10) }
func subscriptionName(s int32) string { return "sub" + strconv.FormatInt(int64(s), 10) }

const progressEvery = 1 << 14 // rows between progress calls and ctx checks

// Ingest generates cfg's zone and trace into db as dataset name, in one
// ingest transaction (format "synthetic"; source names the caller).
func Ingest(ctx context.Context, db *store.DB, name, source string, cfg Config) error {
	_, err := db.Ingest(ctx, store.IngestInfo{Dataset: name, Format: "synthetic", Source: source}, func(w *store.Writer) error {
		_, err := Write(ctx, w, cfg, nil)
		return err
	})
	return err
}

// Write generates cfg's zone and trace and appends them to the ingest w:
// sku, machine, vm_type, vm and cpu_reading rows, then vm_type_demand
// derived from the nominal sizes (the named query derive_type_demand).
// progress, if set, is called with rows written and rows to write. It adds
// the rows written to w.Counts.RowsRead and RowsLoaded.
func Write(ctx context.Context, w *store.Writer, cfg Config, progress func(done, total int64)) (Stats, error) {
	tr, err := Generate(cfg)
	if err != nil {
		return Stats{}, err
	}
	st := tr.Stats()
	var done int64
	tick := func() error {
		done++
		if done%progressEvery == 0 {
			if progress != nil {
				progress(done, st.Rows)
			}
			return ctx.Err()
		}
		return nil
	}
	if err := writeSKUs(w, tr.Zone.SKUs); err != nil {
		return st, err
	}
	done += int64(len(tr.Zone.SKUs))
	for _, m := range tr.Zone.Machines {
		if err := writeMachines(w, []Machine{m}, nil); err != nil {
			return st, err
		}
		if err := tick(); err != nil {
			return st, err
		}
	}
	for _, t := range tr.Types {
		if err := w.Append("vm_type", t.Name, t.Family, t.Cores, t.MemoryGB, t.SSDGB, t.HDDGB, t.NICGbps, 0.0); err != nil {
			return st, fmt.Errorf("synth: vm_type %s: %w", t.Name, err)
		}
		done++
	}
	for _, v := range tr.VMs {
		var end, period any
		if !v.Censored {
			end = v.End
		}
		if p := v.PeriodHours(); p > 0 {
			period = p
		}
		if err := w.Append("vm", v.ID, vmName(v.ID), tenantName(v.Request), subscriptionName(v.Subscription),
			tr.Types[v.Type].Name, int16(v.Priority), v.Start, end, v.Category,
			v.CPUAvg, v.CPUMax, v.CPUP95Max, period); err != nil {
			return st, fmt.Errorf("synth: vm %d: %w", v.ID, err)
		}
		if err := tick(); err != nil {
			return st, err
		}
	}
	for _, s := range tr.Series {
		for _, r := range s.Readings {
			if err := w.Append("cpu_reading", s.VMID, r.TS, r.Min, r.Max, r.Avg); err != nil {
				return st, fmt.Errorf("synth: cpu_reading vm %d at %g: %w", s.VMID, r.TS, err)
			}
			if err := tick(); err != nil {
				return st, err
			}
		}
	}
	if err := w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID()); err != nil {
		return st, fmt.Errorf("synth: derive_type_demand: %w", err)
	}
	w.Counts.RowsRead += st.Rows
	w.Counts.RowsLoaded += st.Rows
	if progress != nil {
		progress(st.Rows, st.Rows)
	}
	return st, nil
}
