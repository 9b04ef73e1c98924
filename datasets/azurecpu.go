package datasets

import (
	"context"
	"strconv"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "azure-cpu",
		Summary: "Azure VM trace V1 5-minute CPU series (azure_v1_cpu_*_5min.csv.gz: vm,[period_hours,]step,minute,avg_cpu,max_cpu)",
		Help: `CSV files (gzip is fine) with a header: vm, step, minute, avg_cpu, max_cpu, and
optionally period_hours (the labelled periodic set: 1, 8 or 24). One row is one
5-minute reading of one VM of the Azure VM trace V1 (2017, CC-BY).

  cpu_reading  one row per input row: ts_s = minute*60, cpu_avg = avg_cpu,
               cpu_max = max_cpu (percent), cpu_min NULL. step is ignored.
  vm           one row per series, vm_id in order of first appearance:
               start_s = first minute*60, end_s = last minute*60 + 300 (the
               end of the last 5-minute interval), vm_type "unknown" (a
               vm_type row with NULL sizes: the series carry no VM size),
               tenant = vm, priority 0, period_hours from the file.
               cpu_avg (mean of avg_cpu), cpu_max (max of max_cpu) and
               cpu_p95max (95th percentile of max_cpu) are computed from the
               readings after the load, as in the V1 vmtable.

A series is one vm, or one (vm, period_hours) pair when the file labels periods:
the periodic file lists VM "83972" twice, under 1 h and 24 h, so it loads as 78
series named like the upstream columns, "<vm> <period_hours>" ("83972 24"), with
tenant = vm. Readings of one series may be spread over several files.

Rejected: an empty vm, a non-numeric minute, avg_cpu or max_cpu, a minute beyond
±30 years (MaxTraceSeconds), a negative avg_cpu or max_cpu, a period_hours <= 0, a repeated (series, minute). The files
hold no inventory and no VM sizes; this format is for utilization analysis.`,
		Load: loadAzureCPU,
	})
}

// cpuSeries is one VM's readings while they load.
type cpuSeries struct {
	id           int64
	name, tenant string
	period       any // float64 or nil
	first, last  float64
	ts           tsSet
}

type cpuSeriesKey struct {
	vm     string
	period float64 // 0: the file has no period_hours
}

func loadAzureCPU(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	rej := rejecter{w, opts.MaxRejects}
	byKey := map[cpuSeriesKey]*cpuSeries{}
	var series []*cpuSeries
	err := eachFile(paths, opts.Progress, func(src *source) error {
		c, err := newCSV(src, ',', true)
		if err != nil {
			return err
		}
		var iVM, iMin, iAvg, iMax int
		for _, col := range []struct {
			name string
			i    *int
		}{{"vm", &iVM}, {"minute", &iMin}, {"avg_cpu", &iAvg}, {"max_cpu", &iMax}} {
			if *col.i, err = c.col(col.name); err != nil {
				return err
			}
		}
		iPeriod, hasPeriod := c.header["period_hours"]
		return c.each(ctx, rej, func() error {
			vm, err := textField(c, iVM, "vm")
			if err != nil {
				return err
			}
			if vm == "" {
				return c.errf("vm", "", ErrMissingField)
			}
			key := cpuSeriesKey{vm: vm}
			if hasPeriod {
				if key.period, err = c.positive(iPeriod, "period_hours"); err != nil {
					return err
				}
			}
			minute, err := c.float(iMin, "minute")
			if err != nil {
				return err
			}
			ts := minute * 60
			if err := c.checkTime(iMin, "minute", ts); err != nil {
				return err
			}
			avg, err := c.nonNegative(iAvg, "avg_cpu")
			if err != nil {
				return err
			}
			mx, err := c.nonNegative(iMax, "max_cpu")
			if err != nil {
				return err
			}
			s := byKey[key]
			if s == nil {
				s = &cpuSeries{id: int64(len(series)), name: vm, tenant: vm, first: minute, last: minute}
				if hasPeriod {
					s.name = vm + " " + strconv.FormatFloat(key.period, 'g', -1, 64)
					s.period = key.period
				}
				byKey[key] = s
				series = append(series, s)
			}
			if !s.ts.add(ts) {
				return c.errf("minute", c.rec[iMin], ErrDuplicateID)
			}
			s.first, s.last = min(s.first, minute), max(s.last, minute)
			if err := w.Append("cpu_reading", s.id, ts, nil, mx, avg); err != nil {
				return err
			}
			w.Counts.RowsLoaded++
			return nil
		})
	})
	if err != nil {
		return err
	}
	if len(series) == 0 {
		return nil
	}
	if err := w.Append("vm_type", "unknown", nil, nil, nil, nil, nil, nil, nil); err != nil {
		return err
	}
	for _, s := range series {
		if err := w.Append("vm", s.id, s.name, s.tenant, nil, "unknown", int16(0),
			s.first*60, s.last*60+300, nil, nil, nil, nil, s.period); err != nil {
			return err
		}
	}
	return w.Exec(store.MustQuery("azure_cpu_summaries"), w.Dataset(), w.LoadID())
}

// tsSet detects a repeated timestamp within one series. Readings usually
// arrive in time order on a regular grid, so the timestamps seen so far are
// kept as arithmetic runs (start, step, count): an in-order series costs a
// comparison per reading and a few words of memory. The first out-of-order
// timestamp turns the runs into a set.
type tsSet struct {
	runs []tsRun
	last float64
	set  map[float64]struct{}
}

type tsRun struct {
	start, step float64
	n           int
}

// add records ts and reports whether it is new.
func (s *tsSet) add(ts float64) bool {
	if s.set == nil {
		if len(s.runs) == 0 {
			s.runs = append(s.runs, tsRun{start: ts, n: 1})
			s.last = ts
			return true
		}
		if ts > s.last {
			r := &s.runs[len(s.runs)-1]
			switch {
			case r.n == 1 && r.start+(ts-r.start) == ts:
				r.step, r.n = ts-r.start, 2
			case r.n > 1 && ts == r.start+r.step*float64(r.n):
				r.n++
			default:
				s.runs = append(s.runs, tsRun{start: ts, n: 1})
			}
			s.last = ts
			return true
		}
		n := 0
		for _, r := range s.runs {
			n += r.n
		}
		s.set = make(map[float64]struct{}, n+1)
		for _, r := range s.runs {
			for i := 0; i < r.n; i++ {
				s.set[r.start+r.step*float64(i)] = struct{}{}
			}
		}
		s.runs = nil
	}
	if _, dup := s.set[ts]; dup {
		return false
	}
	s.set[ts] = struct{}{}
	return true
}
