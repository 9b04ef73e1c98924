package datasets

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	store "placelab/sql"
)

// Sentinel errors of workload files; a *RowError wraps one of them.
var (
	ErrTypeDisagrees  = errors.New("VM type sizes differ from the type's first row")
	ErrTypeUndefined  = errors.New("VM type has no sizes on any row (give cores and memory_gb on one row of the type)")
	ErrUnknownMachine = errors.New("no machine of that name in the inventory")
	ErrPriority       = errors.New("priority must be 0 (high) or 1 (low, evictable)")
	ErrNoSkipping     = errors.New("--max-rejects does not apply")
	ErrNeedInventory  = errors.New("needs --inventory: the machines VMs run on (your fleet as FILE.csv or FILE.parquet, or synthetic:N)")
)

func init() {
	register(Format{
		Name:    "placelab",
		Summary: "your own workload: one VM per row (CSV or Parquet), optionally where it ran (an observed run)",
		Help:    WorkloadFileHelp,
		Load:    loadWorkloadFile,
	})
}

// WorkloadFileHelp documents the native workload format.
const WorkloadFileHelp = `One file, CSV (with a header) or Parquet, one VM per row; give --inventory for the
machines (your fleet: an inventory file, "placelab ingest help-format inventory"; or
synthetic:N). Columns (names case-insensitive, any order; an optional column may be
absent or its cell empty):
  id          the VM's id, unique in the file                              required
  tenant      the deployment / service it belongs to                       required
  type        a VM type name                                               optional
  cores       vCPUs, >= 0; memory_gb >= 0 (+ ssd_gb, hdd_gb, nic_gbps,     with type: optional
              gpus >= 0): the VM's demand                                   (on one row of the type)
  priority    0 high (default), 1 low (evictable)                          optional
  start_s     arrival, seconds from the start of the trace (may be < 0)    required
  end_s       departure, seconds; empty = still running                    optional
  machine     the inventory machine it ran on (name)                       optional
A row gives its demand (cores and memory_gb at least), or a type whose demand some row
of that type gives; rows of one type must agree on sizes. VMs of a tenant arriving at
the same start_s are one request. Rows with a machine become an observed run (engine
observed, policy recorded; "ingest --format json" prints its id as observed_run): the
VM on that machine from start_s, which placelab check verifies and lpbound, whatif drain
and explain --machine read. A bad row stops the ingest with an error naming the file,
row and field, and nothing changes; a CSV row is its line in the file (the header is
line 1, blank lines count), a Parquet row its data row from 1. A row with fewer or
more fields than the header is a bad row. --max-rejects does not apply: the file
loads whole or not at all.
What loads but looks wrong is a named warning, printed, in "ingest --format json"
under warnings (source, object, row, count, code, message) and in table
ingest_warning; one warning per kind and file however many rows raise it, with their
count and the first 3 (file row, VM and machine names, sizes):
  vm-fits-no-sku           a VM no SKU of the inventory can host (larger than every
                           SKU in some size, or than each in a different one)
  machine-over-capacity    the VMs recorded on a machine sum to more than its SKU's
                           cores, memory_gb, ssd_gb, hdd_gb, nic_gbps or gpus at some
                           instant (names the machine, the peak and the VMs on it)
  vm-on-unhealthy-machine  a VM recorded on a machine the inventory marks offline or
                           unhealthy
  vm-zero-cores            a VM of 0 cores (it takes none, so it fits anywhere)
  vm-zero-memory           a VM of 0 GB memory
Example:
  id,tenant,cores,memory_gb,priority,start_s,end_s,machine
  vm1,web,4,16,0,0,,c1-r1-m1
  vm2,web,4,16,0,0,3600,c1-r1-m2
  vm3,batch,2,8,1,120,900,`

// workloadColumns are the native workload format's columns in select order.
var workloadColumns = []inventoryColumn{
	{"id", true}, {"tenant", true}, {"type", false}, {"cores", false}, {"memory_gb", false},
	{"ssd_gb", false}, {"hdd_gb", false}, {"nic_gbps", false}, {"gpus", false}, {"priority", false},
	{"start_s", true}, {"end_s", false}, {"machine", false},
}

const (
	wcID = iota
	wcTenant
	wcType
	wcCores
	wcMemory
	wcSSD
	wcHDD
	wcNIC
	wcGPUs
	wcPriority
	wcStart
	wcEnd
	wcMachine
	wcCount
)

// workloadRow is one checked row.
type workloadRow struct {
	row          int64 // as the user sees it (tableFile.row)
	numbering    string
	id, tenant   string
	typ          string
	sized        bool
	shape        typeShape
	priority     int16
	start        float64
	end          float64
	ended        bool
	machine      string
	machineGiven bool
}

func loadWorkloadFile(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	if opts.Inventory == "" {
		return fmt.Errorf("datasets: placelab: %w", ErrNeedInventory)
	}
	if opts.MaxRejects > 0 {
		return fmt.Errorf("%w: ingest placelab loads a workload file whole (a bad row is an error naming file, row and field)", ErrNoSkipping)
	}
	if len(paths) != 1 {
		return fmt.Errorf("datasets: placelab: one workload file, got %d", len(paths))
	}
	path := paths[0]
	rows, err := readWorkloadFile(ctx, w, path)
	if err != nil {
		return err
	}
	// The inventory first: the machine column names its machines.
	if path, ok := InventoryFilePath(opts.Inventory); ok {
		_, err = WriteInventoryFile(w, path)
	} else {
		err = writeSyntheticInventory(w, opts)
	}
	if err != nil {
		return fmt.Errorf("datasets: --inventory %q: %w", opts.Inventory, err)
	}
	machines := map[string]int32{}
	health := map[int32]string{}
	if err := w.QueryRows("SELECT name, machine_id, health FROM machine WHERE load_id = $1", func(r []driver.Value) error {
		machines[r[0].(string)] = r[1].(int32)
		health[r[1].(int32)], _ = r[2].(string)
		return nil
	}, w.LoadID()); err != nil {
		return err
	}
	// Types: a named type takes the sizes of its first sized row.
	named := map[string]workloadRow{}
	for _, r := range rows {
		if r.typ == "" || !r.sized {
			continue
		}
		if first, ok := named[r.typ]; ok {
			if d := shapeDiff(first.shape, r.shape); d != "" {
				return r.err(path, d, "", fmt.Errorf("%w: type %q, row %d", ErrTypeDisagrees, r.typ, first.row))
			}
			continue
		}
		named[r.typ] = r
	}
	types := newVMTypes(w)
	written := map[string]bool{}
	var obs []observedPlacement
	shapes := make([]typeShape, len(rows)) // by vm_id, for the warnings
	for i, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		typ := r.typ
		switch {
		case typ != "":
			def, ok := named[typ]
			if !ok {
				return r.err(path, "type", typ, ErrTypeUndefined)
			}
			if !written[typ] {
				s := def.shape
				if err := w.Append("vm_type", typ, nil, s.cores, s.mem, s.ssd, s.hdd, s.nic, s.gpus); err != nil {
					return err
				}
				written[typ] = true
			}
			shapes[i] = def.shape
		default:
			shapes[i] = r.shape
			if typ, err = types.name(r.shape); err != nil {
				return err
			}
			if _, clash := named[typ]; clash {
				return r.err(path, "type", "",
					fmt.Errorf("%w: this row's sizes are named %q, which the file also uses as a type name: give the row that type or rename it", ErrTypeDisagrees, typ))
			}
		}
		var end any
		if r.ended {
			end = r.end
		}
		if err := w.Append("vm", int64(i), r.id, r.tenant, nil, typ, r.priority, r.start, end, nil, nil, nil, nil, nil); err != nil {
			return err
		}
		w.Counts.RowsLoaded++
		if r.machineGiven {
			m, ok := machines[r.machine]
			if !ok {
				return r.err(path, "machine", r.machine, ErrUnknownMachine)
			}
			obs = append(obs, observedPlacement{vm: int64(i), t: r.start, machine: m})
		}
	}
	if err := deriveDemand(w); err != nil {
		return err
	}
	if err := writeObservedRun(w, ObservedEngine, ObservedRecorded, opts.Version, map[string]any{"file": path}, obs); err != nil {
		return err
	}
	return warnWorkload(w, path, rows, shapes, health, obs)
}

// err is a *RowError at the row.
func (r workloadRow) err(path, field, value string, err error) *RowError {
	return &RowError{File: path, Row: r.row, Numbering: r.numbering, Field: field, Value: value, Err: err}
}

// shapeDiff names the first size column in which two shapes differ.
func shapeDiff(a, b typeShape) string {
	x := [...]float64{a.cores, a.mem, a.ssd, a.hdd, a.nic, a.gpus}
	y := [...]float64{b.cores, b.mem, b.ssd, b.hdd, b.nic, b.gpus}
	for i := range x {
		if x[i] != y[i] {
			return workloadColumns[wcCores+i].name
		}
	}
	return ""
}

// readWorkloadFile reads and checks every row (see WorkloadFileHelp).
func readWorkloadFile(ctx context.Context, w *store.Writer, path string) ([]workloadRow, error) {
	tf, err := openTableFile(path)
	if err != nil {
		return nil, err
	}
	sel, have, err := selectColumns(w, tf, workloadColumns,
		"a workload file has id, tenant, start_s and optional type, cores, memory_gb, ssd_gb, hdd_gb, nic_gbps, gpus, priority, end_s, machine")
	if err != nil {
		return nil, err
	}
	if !have["cores"] {
		if !have["type"] {
			return nil, tf.headerErr("cores", fmt.Errorf("%w: neither a type nor a cores column: a VM's demand is unknown", ErrMissingField))
		}
	}
	var out []workloadRow
	ids := map[string]int64{}
	rec := int64(-1)
	err = w.QueryRows("SELECT "+sel+" FROM "+tf.src, func(row []driver.Value) error {
		rec++
		if rec%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var v [wcCount]string
		for i := range v {
			s, _ := row[i].(string)
			v[i] = strings.TrimSpace(s)
		}
		r, err := checkWorkloadRow(tf, rec, v, ids)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		var re *RowError
		if errors.As(err, &re) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, tf.dbErr(err)
	}
	w.Counts.RowsRead = int64(len(out))
	if len(out) == 0 {
		return nil, &RowError{File: path, Err: fmt.Errorf("%w: 0 rows: the file lists no VMs", ErrMalformed)}
	}
	return out, nil
}

// checkWorkloadRow checks data record rec (values in workloadColumns
// order); ids maps the ids seen so far to their rows.
func checkWorkloadRow(tf *tableFile, rec int64, v [wcCount]string, ids map[string]int64) (workloadRow, error) {
	n := tf.row(rec)
	bad := func(i int, err error) (workloadRow, error) {
		return workloadRow{}, tf.rowErr(rec, workloadColumns[i].name, v[i], err)
	}
	for i, col := range workloadColumns {
		if col.required && v[i] == "" {
			return bad(i, fmt.Errorf("%w: empty", ErrMissingField))
		}
	}
	num := func(i int) (float64, bool, error) {
		if v[i] == "" {
			return 0, false, nil
		}
		x, err := strconv.ParseFloat(v[i], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false, ErrNotNumber
		}
		return x, true, nil
	}
	r := workloadRow{row: n, numbering: tf.numbering(), id: v[wcID], tenant: v[wcTenant], typ: v[wcType], machine: v[wcMachine], machineGiven: v[wcMachine] != ""}
	if prev, dup := ids[r.id]; dup {
		return bad(wcID, fmt.Errorf("%w: also row %d", ErrDuplicateID, prev))
	}
	ids[r.id] = n
	var sizes [wcGPUs - wcCores + 1]float64
	any := false
	for i := wcCores; i <= wcGPUs; i++ {
		x, ok, err := num(i)
		if err != nil {
			return bad(i, err)
		}
		if x < 0 {
			return bad(i, ErrNegative)
		}
		sizes[i-wcCores] = x
		any = any || ok
	}
	if any || r.typ == "" {
		for _, i := range []int{wcCores, wcMemory} {
			if v[i] == "" {
				return bad(i, fmt.Errorf("%w: a row without a type gives cores and memory_gb", ErrMissingField))
			}
		}
		r.sized = true
		r.shape = typeShape{cores: sizes[0], mem: sizes[1], ssd: sizes[2], hdd: sizes[3], nic: sizes[4], gpus: sizes[5]}
	}
	switch v[wcPriority] {
	case "", "0":
	case "1":
		r.priority = 1
	default:
		return bad(wcPriority, ErrPriority)
	}
	start, _, err := num(wcStart)
	if err != nil {
		return bad(wcStart, err)
	}
	if math.Abs(start) > MaxTraceSeconds {
		return bad(wcStart, fmt.Errorf("%w: beyond ±%g s", ErrMalformed, MaxTraceSeconds))
	}
	r.start = start
	end, ok, err := num(wcEnd)
	if err != nil {
		return bad(wcEnd, err)
	}
	if ok {
		if end < start {
			return bad(wcEnd, ErrEndBeforeStart)
		}
		if math.Abs(end) > MaxTraceSeconds {
			return bad(wcEnd, fmt.Errorf("%w: beyond ±%g s", ErrMalformed, MaxTraceSeconds))
		}
		r.end, r.ended = end, true
	}
	return r, nil
}
