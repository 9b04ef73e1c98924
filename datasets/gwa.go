package datasets

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "gwa",
		Summary: "Bitbrains/GWA-T-12 per-VM utilization (raw GWA per-VM files or the combined vm_id,ts,... CSV)",
		Help: `Bitbrains (GWA-T-12) per-VM utilization, 5-minute readings. PATH is a file or a
directory (walked for *.csv and *.csv.gz); each file's layout is told apart by its header:
  raw GWA per-VM file, ';'+tab separated, header "Timestamp [ms];	CPU cores;	CPU capacity
    provisioned [MHZ];	CPU usage [MHZ];	CPU usage [%];	Memory capacity provisioned [KB];
    Memory usage [KB];	Disk ...;	Network ..." — the VM id is the file's base name without
    extension (1.csv is VM "1");
  combined CSV, header vm_id,ts,cpu_cores,cpu_cap_mhz,cpu_usage_mhz,cpu_usage_pct,
    mem_cap_kb,mem_usage_kb,disk_*,net_* (one file, many VMs).
Timestamps are labelled ms but are seconds; values > 1e11 are taken as ms. They are kept to
the millisecond and written relative to the earliest timestamp of the whole ingest.
Tables:
  vm           one row per VM: name = tenant = the VM id (grouping VMs into tenants is a
               later analysis), priority 0, start_s/end_s = its first/last reading,
               cpu_avg/cpu_max/cpu_p95max = mean/max/P95 of its cpu_usage_pct readings;
  vm_type      from the VM's first reading with cpu_cores > 0 and mem_cap > 0 (cores,
               mem_cap_kb / 1048576 GB), named like c2m7.83789; a VM without such a reading
               gets the type "unknown" (NULL sizes);
  cpu_reading  ts_s, cpu_avg = cpu_usage_pct (percent, may exceed 100), cpu_min/max NULL;
  demand_curve tenant = VM id, t_s = seconds since that VM's first reading,
               cpu_cores = cpu_usage_mhz / (cpu_cap_mhz / cpu_cores) (NULL when the reading
               has no capacity: cores or cap = 0), memory_gb = mem_usage_kb / 1048576,
               disk_gb NULL.
Disk and network columns are not read. Rows need not be in time order.
Rejected: unparsable or negative numbers in the columns above, a negative or too large
(> 1e14) timestamp, readings more than 30 years apart (MaxTraceSeconds: the error
names the latest), an empty vm_id, and a second reading of the same VM at the same
timestamp (duplicate id; the real Rnd 2013-7 file has 71,664 of these in 13 VMs, so load it
with --max-rejects). The trace has no servers: give --inventory to add some.`,
		Load: loadGWA,
	})
}

// gwaCols are the columns a GWA file must have, in gwaRow order, under the
// combined and the raw header.
var (
	gwaCombinedCols = [7]string{"ts", "cpu_cores", "cpu_cap_mhz", "cpu_usage_mhz", "cpu_usage_pct", "mem_cap_kb", "mem_usage_kb"}
	gwaRawCols      = [7]string{"timestamp [ms]", "cpu cores", "cpu capacity provisioned [mhz]", "cpu usage [mhz]",
		"cpu usage [%]", "memory capacity provisioned [kb]", "memory usage [kb]"}
)

const (
	kbPerGB = 1048576
	// gwaMaxMs bounds timestamps so that millisecond arithmetic is exact.
	gwaMaxMs = 1e14
)

// gwaFile is one opened GWA file and its layout.
type gwaFile struct {
	c     *csvFile
	vmCol int    // -1: raw layout, the VM id is vm
	vm    string // raw layout: the file's VM id
	col   [7]int
	names *[7]string
}

type gwaRow struct {
	ms                                             int64 // timestamp, ms
	cores, capMHz, useMHz, pct, memCapKB, memUseKB float64
}

func openGWA(src *source) (*gwaFile, error) {
	comma := ','
	if br, ok := src.r.(*bufio.Reader); ok {
		head, _ := br.Peek(4096)
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
		if bytes.IndexByte(head, ';') >= 0 {
			comma = ';'
		}
	}
	c, err := newCSV(src, comma, true)
	if err != nil {
		return nil, err
	}
	g := &gwaFile{c: c, vmCol: -1, names: &gwaRawCols}
	if _, ok := c.header["vm_id"]; ok {
		g.names = &gwaCombinedCols
		g.vmCol = c.header["vm_id"]
	} else if _, ok := c.header[gwaRawCols[0]]; ok {
		base := filepath.Base(src.name)
		base = strings.TrimSuffix(base, ".gz")
		g.vm = strings.TrimSuffix(base, filepath.Ext(base))
		if g.vm == "" {
			return nil, &RowError{File: src.name, Field: "vm id", Err: fmt.Errorf("%w: file name gives no VM id", ErrMissingField)}
		}
	} else {
		return nil, &RowError{File: src.name, Row: 1, Err: fmt.Errorf("%w: header is neither the combined GWA CSV (vm_id,ts,...) nor a raw GWA file (Timestamp [ms];...)", ErrMissingField)}
	}
	for i, name := range g.names {
		if g.col[i], err = c.col(name); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// next reads the next record; io.EOF at the end.
func (g *gwaFile) next() error {
	_, err := g.c.next()
	return err
}

// parse validates the current record into r and returns its VM id.
func (g *gwaFile) parse(r *gwaRow) (string, error) {
	c := g.c
	vm := g.vm
	if err := c.extra(); err != nil {
		return "", err
	}
	if g.vmCol >= 0 {
		var err error
		if vm, err = c.str(g.vmCol, "vm_id"); err != nil {
			return "", err
		}
		if vm == "" {
			return "", c.errf("vm_id", "", ErrMissingField)
		}
	}
	ts, err := c.nonNegative(g.col[0], g.names[0])
	if err != nil {
		return "", err
	}
	if ts > 1e11 { // milliseconds
		if ts > gwaMaxMs {
			return "", c.errf(g.names[0], c.rec[g.col[0]], fmt.Errorf("%w: timestamp beyond 1e14 ms", ErrMalformed))
		}
		r.ms = int64(math.Round(ts))
	} else {
		r.ms = int64(math.Round(ts * 1000))
	}
	vals := [6]*float64{&r.cores, &r.capMHz, &r.useMHz, &r.pct, &r.memCapKB, &r.memUseKB}
	for i, p := range vals {
		if *p, err = c.nonNegative(g.col[i+1], g.names[i+1]); err != nil {
			return "", err
		}
	}
	return vm, nil
}

// gwaItem is one parsed record: its values or its error.
type gwaItem struct {
	row   int64
	name  string // VM id
	ts    string // the timestamp as written, for error messages
	r     gwaRow
	err   error
	fatal bool // a read error: the file cannot be read further
}

type gwaBatch struct {
	items []gwaItem
	free  chan *gwaBatch
}

// release hands a consumed batch back for reuse.
func (b *gwaBatch) release() {
	select {
	case b.free <- b:
	default:
	}
}

// parseAhead reads and parses the file's records in a goroutine, sending
// them in batches; stop ends the goroutine and waits for it, so the file
// may be closed afterwards.
func (g *gwaFile) parseAhead() (<-chan *gwaBatch, func()) {
	const batchSize = 2048
	batches := make(chan *gwaBatch, 4)
	free := make(chan *gwaBatch, 6)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer close(batches)
		for {
			var b *gwaBatch
			select {
			case b = <-free:
				b.items = b.items[:0]
			default:
				b = &gwaBatch{items: make([]gwaItem, 0, batchSize), free: free}
			}
			last := false
			for len(b.items) < batchSize {
				err := g.next()
				if err == io.EOF {
					last = true
					break
				}
				b.items = append(b.items, gwaItem{row: g.c.row})
				it := &b.items[len(b.items)-1]
				if err != nil {
					it.err, it.fatal, last = err, true, true
					break
				}
				if it.name, it.err = g.parse(&it.r); it.err == nil {
					// Strings of a record are fresh for each record, so
					// keeping them is safe.
					it.ts = g.c.rec[g.col[0]]
				}
			}
			select {
			case batches <- b:
			case <-done:
				return
			}
			if last {
				return
			}
		}
	}()
	var once sync.Once
	return batches, func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}

// gwaVM is what the first pass learns about one VM.
type gwaVM struct {
	id           int64
	name         string
	minMs, maxMs int64
	typed        bool
	cores, memGB float64
	// Duplicate detection: timestamps while they come in increasing order,
	// a set once they do not.
	seen []int64
	set  map[int64]struct{}
}

// add records a timestamp, reporting false for a duplicate.
func (v *gwaVM) add(ms int64) bool {
	if v.set != nil {
		if _, dup := v.set[ms]; dup {
			return false
		}
		v.set[ms] = struct{}{}
	} else if n := len(v.seen); n == 0 || ms > v.seen[n-1] {
		v.seen = append(v.seen, ms)
	} else if _, dup := slices.BinarySearch(v.seen, ms); dup {
		return false
	} else {
		v.set = make(map[int64]struct{}, n+1)
		for _, t := range v.seen {
			v.set[t] = struct{}{}
		}
		v.set[ms] = struct{}{}
		v.seen = nil
	}
	v.minMs = min(v.minMs, ms)
	v.maxMs = max(v.maxMs, ms)
	return true
}

// loadGWA reads the files once, validating every row, detecting duplicate
// readings and appending the good ones to a staging table in absolute
// milliseconds. Rows need not be sorted, so the origins (the ingest's
// earliest timestamp, each VM's first reading) are known only at the end;
// two INSERT ... SELECT statements then write cpu_reading and demand_curve
// relative to them.
func loadGWA(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	inputs, err := expandInputs(paths, ".csv", ".csv.gz")
	if err != nil {
		return err
	}
	files := make([]string, len(inputs))
	for i, in := range inputs {
		files[i] = in.path
	}
	stage := fmt.Sprintf("gwa_stage_%d", w.LoadID())
	stageVM := stage + "_vm"
	if err := w.Exec("CREATE TEMP TABLE " + stage + ` (dataset VARCHAR, load_id BIGINT, vm_id BIGINT, ms BIGINT,
		pct DOUBLE, cores DOUBLE, mem_gb DOUBLE)`); err != nil {
		return err
	}
	if err := w.Exec("CREATE TEMP TABLE " + stageVM + " (dataset VARCHAR, load_id BIGINT, vm_id BIGINT, name VARCHAR, min_ms BIGINT)"); err != nil {
		return err
	}
	rej := rejecter{w, opts.MaxRejects}
	byName := map[string]*gwaVM{}
	var vms []*gwaVM
	// The earliest and latest readings: times are written relative to the
	// earliest, so their distance must stay within MaxTraceSeconds.
	type reading struct {
		ms    int64
		file  string
		row   int64
		field string
		value string
	}
	var first, last reading
	err = eachFile(files, opts.Progress, func(src *source) error {
		g, err := openGWA(src)
		if err != nil {
			return err
		}
		// Reading and parsing run in their own goroutine, one batch ahead.
		batches, stop := g.parseAhead()
		defer stop()
		for b := range batches {
			for i := range b.items {
				it := &b.items[i]
				if it.fatal {
					return it.err
				}
				g.c.rows++
				w.Counts.RowsRead++
				if w.Counts.RowsRead%65536 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
					if w.Counts.RowsRead%(1<<19) == 0 {
						// The appender holds rows in memory until flushed.
						if err := w.Flush(); err != nil {
							return err
						}
					}
				}
				err := func() error {
					if it.err != nil {
						return it.err
					}
					r, name := &it.r, it.name
					v := byName[name]
					if v == nil {
						if !utf8.ValidString(name) {
							return &RowError{File: src.name, Row: it.row, Field: "vm_id", Value: name, Err: fmt.Errorf("%w: not UTF-8", ErrMalformed)}
						}
						name = strings.Clone(name) // not the whole record
						v = &gwaVM{id: int64(len(vms)), name: name, minMs: r.ms, maxMs: r.ms}
						byName[name] = v
						vms = append(vms, v)
					}
					if !v.add(r.ms) {
						return &RowError{File: src.name, Row: it.row, Field: g.names[0], Value: it.ts,
							Err: fmt.Errorf("%w: the VM has another reading at this time", ErrDuplicateID)}
					}
					if first.file == "" || r.ms < first.ms {
						first = reading{r.ms, src.name, it.row, g.names[0], it.ts}
					}
					if last.file == "" || r.ms > last.ms {
						last = reading{r.ms, src.name, it.row, g.names[0], it.ts}
					}
					if !v.typed && r.cores > 0 && r.memCapKB > 0 {
						v.typed, v.cores, v.memGB = true, canonical(r.cores), canonical(r.memCapKB/kbPerGB)
					}
					var cores any
					if r.cores > 0 && r.capMHz > 0 {
						if c := r.useMHz / (r.capMHz / r.cores); !math.IsInf(c, 0) && !math.IsNaN(c) {
							cores = c
						}
					}
					if err := w.Append(stage, v.id, r.ms, r.pct, cores, r.memUseKB/kbPerGB); err != nil {
						return err
					}
					w.Counts.RowsLoaded++
					return nil
				}()
				if err != nil {
					if err := rej.handle(err); err != nil {
						return err
					}
				}
			}
			b.release()
		}
		return g.c.warnIfEmpty(w)
	})
	if err != nil {
		return err
	}
	if span := float64(last.ms-first.ms) / 1000; span > MaxTraceSeconds {
		return &RowError{File: last.file, Row: last.row, Field: last.field, Value: last.value,
			Err: fmt.Errorf("%w: %.0f s after the earliest reading (%s: row %d, value %q)", ErrTimeRange, span, first.file, first.row, first.value)}
	}

	// VMs and their types.
	if len(vms) > 0 {
		origin := vms[0].minMs
		for _, v := range vms {
			origin = min(origin, v.minMs)
		}
		types := newVMTypes(w)
		unknown := false
		for _, v := range vms {
			typ := "unknown"
			if v.typed {
				if typ, err = types.name(typeShape{cores: v.cores, mem: v.memGB}); err != nil {
					return err
				}
			} else if !unknown {
				unknown = true
				if err := w.Append("vm_type", typ, nil, nil, nil, nil, nil, nil, nil); err != nil {
					return err
				}
			}
			start := float64(v.minMs-origin) / 1000
			end := float64(v.maxMs-origin) / 1000
			if err := w.Append("vm", v.id, v.name, v.name, nil, typ, int16(0), start, end, nil, nil, nil, nil, nil); err != nil {
				return err
			}
			if err := w.Append(stageVM, v.id, v.name, v.minMs); err != nil {
				return err
			}
			v.seen, v.set = nil, nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// Milliseconds are exact in BIGINT; the division matches Go's float64(ms)/1000.
		if err := w.Exec(`INSERT INTO cpu_reading (dataset, load_id, vm_id, ts_s, cpu_avg)
			SELECT dataset, load_id, vm_id, CAST(ms - $1 AS DOUBLE) / 1000, pct FROM `+stage, origin); err != nil {
			return fmt.Errorf("datasets: gwa readings: %w", err)
		}
		if err := w.Exec(`INSERT INTO demand_curve (dataset, load_id, tenant, t_s, cpu_cores, memory_gb)
			SELECT s.dataset, s.load_id, v.name, CAST(s.ms - v.min_ms AS DOUBLE) / 1000, s.cores, s.mem_gb
			FROM ` + stage + " s JOIN " + stageVM + " v USING (vm_id)"); err != nil {
			return fmt.Errorf("datasets: gwa demand curves: %w", err)
		}
		if err := w.Exec(store.MustQuery("gwa_summaries"), w.Dataset(), w.LoadID()); err != nil {
			return fmt.Errorf("datasets: gwa summaries: %w", err)
		}
	}
	if err := w.Exec("DROP TABLE " + stage + "; DROP TABLE " + stageVM); err != nil {
		return err
	}
	// Report the staged rows under the tables they ended in.
	if w.Counts.Tables != nil {
		n := w.Counts.Tables[stage]
		delete(w.Counts.Tables, stage)
		delete(w.Counts.Tables, stageVM)
		if n > 0 {
			w.Counts.Tables["cpu_reading"] += n
			w.Counts.Tables["demand_curve"] += n
		}
	}
	return attachInventory(w, opts)
}

// canonical rounds a size to 6 significant digits, so that capacities that
// differ only in measurement noise make one VM type.
func canonical(v float64) float64 {
	c, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil || c <= 0 {
		return v
	}
	return c
}
