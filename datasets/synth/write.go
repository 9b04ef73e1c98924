package synth

import (
	"context"
	"fmt"
	"sort"
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
	if err := writeVMs(w, tr); err != nil {
		return st, err
	}
	done += int64(len(tr.VMs))
	if progress != nil {
		progress(done, st.Rows)
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if err := writeReadings(w, tr.Series); err != nil {
		return st, err
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

// writeVMs inserts the trace's VMs in one parallel bulk insert. Names are
// built in SQL from the ids, as vmName, tenantName and subscriptionName
// build them; the VM type is an index into the trace's type names.
func writeVMs(w *store.Writer, tr *Trace) error {
	names := make([]string, len(tr.Types))
	for i, t := range tr.Types {
		names[i] = t.Name
	}
	vms := tr.VMs
	src := store.BulkSource{
		Columns: []store.BulkColumn{
			{Name: "id", Type: store.BulkBigint}, {Name: "request", Type: store.BulkBigint},
			{Name: "subscription", Type: store.BulkBigint}, {Name: "type", Type: store.BulkSmallint},
			{Name: "priority", Type: store.BulkSmallint}, {Name: "start_s", Type: store.BulkDouble},
			{Name: "end_s", Type: store.BulkDouble}, {Name: "category", Type: store.BulkVarchar},
			{Name: "cpu_avg", Type: store.BulkDouble}, {Name: "cpu_max", Type: store.BulkDouble},
			{Name: "cpu_p95max", Type: store.BulkDouble}, {Name: "period_hours", Type: store.BulkDouble},
		},
		Rows: len(vms),
		Fill: func(r store.BulkRow, i int) error {
			v := &vms[i]
			r.Int64(0, v.ID)
			r.Int64(1, int64(v.Request))
			r.Int64(2, int64(v.Subscription))
			r.Int16(3, v.Type)
			r.Int16(4, int16(v.Priority))
			r.Float64(5, v.Start)
			if v.Censored {
				r.Null(6)
			} else {
				r.Float64(6, v.End)
			}
			r.String(7, v.Category)
			r.Float64(8, v.CPUAvg)
			r.Float64(9, v.CPUMax)
			r.Float64(10, v.CPUP95Max)
			if p := v.PeriodHours(); p > 0 {
				r.Float64(11, p)
			} else {
				r.Null(11)
			}
			return nil
		},
	}
	if err := w.InsertFrom("vm", src,
		"id", "'vm' || id", "'t' || request", "'sub' || subscription", store.StringList(names)+"[type + 1]",
		"priority", "start_s", "end_s", "category", "cpu_avg", "cpu_max", "cpu_p95max", "period_hours"); err != nil {
		return fmt.Errorf("synth: vm rows: %w", err)
	}
	return nil
}

// writeReadings inserts the CPU series in one parallel bulk insert; row i
// is found by a binary search over the series' first rows.
func writeReadings(w *store.Writer, series []Series) error {
	first := make([]int, len(series)+1) // first[k]: row of series k's first reading
	for k, s := range series {
		first[k+1] = first[k] + len(s.Readings)
	}
	src := store.BulkSource{
		Columns: []store.BulkColumn{
			{Name: "vm_id", Type: store.BulkBigint}, {Name: "ts_s", Type: store.BulkDouble},
			{Name: "cpu_min", Type: store.BulkDouble}, {Name: "cpu_max", Type: store.BulkDouble},
			{Name: "cpu_avg", Type: store.BulkDouble},
		},
		Rows: first[len(series)],
		Fill: func(r store.BulkRow, i int) error {
			k := sort.SearchInts(first, i+1) - 1 // last series starting at or before i
			s := &series[k]
			x := &s.Readings[i-first[k]]
			r.Int64(0, s.VMID)
			r.Float64(1, x.TS)
			r.Float64(2, x.Min)
			r.Float64(3, x.Max)
			r.Float64(4, x.Avg)
			return nil
		},
	}
	if err := w.InsertFrom("cpu_reading", src, "vm_id", "ts_s", "cpu_min", "cpu_max", "cpu_avg"); err != nil {
		return fmt.Errorf("synth: cpu_reading rows: %w", err)
	}
	return nil
}
