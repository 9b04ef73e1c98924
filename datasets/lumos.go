package datasets

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "lumos",
		Summary: "Lumos cloud run times (lumos_runs.csv) → app_score 'platform' matrix; incomplete runs are read, not loaded",
		Help: `Lumos big-data run times (lumos_runs.csv: provider, sar_interval, vm_type, workload_id,
repeat, framework, workload, datasize, completed, elapsed_time_s, ...): Hadoop and Spark
workloads run repeatedly on VM types of several clouds.
Table app_score, matrix 'platform', one row per (workload, platform) with completed runs:
  app     = workload_id (e.g. hadoop_aggregation_huge);
  col     = provider + "/" + vm_type (e.g. aws/m5.large);
  raw     = median elapsed_time_s (seconds) over the completed runs (completed = True),
            the mean of the two middle runs for an even count;
  samples = the number of those runs;
  score   = the workload's smallest median over all its platforms / raw, so 1 = the
            fastest platform and 0.5 = twice as slow;
  application = framework + "_" + workload (e.g. hadoop_aggregation: the program,
            whatever its data size) when the file has both columns, else NULL (the
            workload is its own application); a workload_id whose framework or
            workload changes between rows is rejected.
Table app_run, one row per completed run: app, col, campaign = sar_interval ('' when
absent), repeat, value = elapsed_time_s (the repeats behind the median, for the repeat
ceiling of placelab paragon classify).
Runs with completed = False are counted as read but not loaded (rows_read - rows_loaded);
they are not errors. Rejected: an empty provider, vm_type or workload_id, a completed value
that is not a boolean, a completed run whose elapsed_time_s is not a number > 0, and a
second run with the same (provider, sar_interval, vm_type, workload_id, repeat) (duplicate
id; the same repeat number is reused across sar_interval settings, which are distinct runs).`,
		Load: loadLumos,
	})
}

type lumosCell struct{ app, col string }

type lumosRun struct {
	cell             lumosCell
	campaign, repeat string
	elapsed          float64
}

func loadLumos(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	rej := rejecter{w, opts.MaxRejects}
	runs := map[lumosCell][]float64{}
	var all []lumosRun
	application := map[string]string{}
	seen := map[string]struct{}{}
	err := eachFile(paths, opts.Progress, func(src *source) error {
		c, err := newCSV(src, ',', true)
		if err != nil {
			return err
		}
		names := []string{"provider", "vm_type", "workload_id", "repeat", "completed", "elapsed_time_s"}
		var idx [6]int
		for i, name := range names {
			if idx[i], err = c.col(name); err != nil {
				return err
			}
		}
		sar, hasSar := c.header["sar_interval"]
		fw, hasFw := c.header["framework"]
		wl, hasWl := c.header["workload"]
		return c.each(ctx, rej, func() error {
			var f [5]string
			for i := range f {
				var err error
				if f[i], err = c.str(idx[i], names[i]); err != nil {
					return err
				}
				if f[i] == "" && i < 3 {
					return c.errf(names[i], "", ErrMissingField)
				}
				if !utf8.ValidString(f[i]) {
					return c.errf(names[i], f[i], fmt.Errorf("%w: not UTF-8", ErrMalformed))
				}
			}
			done, err := strconv.ParseBool(f[4])
			if err != nil {
				return c.errf("completed", f[4], fmt.Errorf("%w: want True or False", ErrMalformed))
			}
			var elapsed float64
			if done {
				if elapsed, err = c.positive(idx[5], "elapsed_time_s"); err != nil {
					return err
				}
			}
			interval := ""
			if hasSar && sar < len(c.rec) {
				interval = strings.TrimSpace(c.rec[sar])
			}
			key := strings.Join([]string{f[0], interval, f[1], f[2], f[3]}, "\x00")
			if _, dup := seen[key]; dup {
				return c.errf("repeat", f[3], fmt.Errorf("%w: run %s on %s/%s (sar_interval %q) repeat %s appears twice", ErrDuplicateID, f[2], f[0], f[1], interval, f[3]))
			}
			seen[key] = struct{}{}
			if hasFw && hasWl && fw < len(c.rec) && wl < len(c.rec) {
				framework, workload := strings.TrimSpace(c.rec[fw]), strings.TrimSpace(c.rec[wl])
				if framework != "" && workload != "" {
					a := framework + "_" + workload
					if prev, ok := application[f[2]]; ok && prev != a {
						return c.errf("workload", workload, fmt.Errorf("%w: workload_id %s is application %s here and %s on an earlier row", ErrMalformed, f[2], a, prev))
					}
					application[f[2]] = a
				}
			}
			if done {
				cell := lumosCell{app: f[2], col: f[0] + "/" + f[1]}
				runs[cell] = append(runs[cell], elapsed)
				all = append(all, lumosRun{cell: cell, campaign: interval, repeat: f[3], elapsed: elapsed})
				w.Counts.RowsLoaded++
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	cells := make([]lumosCell, 0, len(runs))
	medians := make(map[lumosCell]float64, len(runs))
	best := map[string]float64{}
	for cell, ts := range runs {
		cells = append(cells, cell)
		m := median(ts)
		medians[cell] = m
		if b, ok := best[cell.app]; !ok || m < b {
			best[cell.app] = m
		}
	}
	slices.SortFunc(cells, func(a, b lumosCell) int {
		if c := strings.Compare(a.app, b.app); c != 0 {
			return c
		}
		return strings.Compare(a.col, b.col)
	})
	for _, cell := range cells {
		m := medians[cell]
		var app any
		if a, ok := application[cell.app]; ok {
			app = a
		}
		if err := w.Append("app_score", "platform", cell.app, cell.col, best[cell.app]/m, m, int32(len(runs[cell])), app); err != nil {
			return err
		}
	}
	for _, r := range all {
		if err := w.Append("app_run", "platform", r.cell.app, r.cell.col, r.campaign, r.repeat, r.elapsed); err != nil {
			return err
		}
	}
	return nil
}

// median sorts xs and returns its median (the mean of the middle two for
// an even count).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
