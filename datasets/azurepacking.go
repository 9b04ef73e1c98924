package datasets

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	_ "modernc.org/sqlite" // driver "sqlite", pure Go

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "azure-packing",
		Summary: "Azure packing trace 2020 (packing_trace_zone_a_v1.sqlite: tables vm and vmType)",
		Help: `One SQLite file of the Azure VM packing trace 2020 (the trace of the Protean paper,
OSDI 2020; CC-BY), opened read-only. Unzip AzurePackingTraceV1.zip first. It must
hold the two tables of the published schema:

  vmType(id, vmTypeId, machineId, core, memory, hdd, ssd, nic)
      One row per (VM type, hardware type) a VM type can run on; each demand is
      a fraction of one machine of hardware type machineId.
      -> sku "m<machineId>": capacities 1.0 (cores, memory, ssd, hdd, nic: one
         machine unit), gpus 0, generation NULL.
      -> vm_type "t<vmTypeId>" with NULL nominal sizes.
      -> vm_type_demand (t<vmTypeId>, m<machineId>): the fractions as given
         (gpu 0). core must be in (0, 1]; memory, hdd, ssd, nic in [0, 1]
         (NULL reads as 0). Row numbers in errors are vmType.id.
  vm(vmId, tenantId, vmTypeId, priority, starttime, endtime)
      -> vm: name = vmId, tenant = tenantId, vm_type = t<vmTypeId>,
         priority 0 (high) or 1 (low, evictable), start_s = starttime*86400,
         end_s = endtime*86400 (times are fractional days; a negative start is a
         VM alive before collection began; NULL end, still alive, stays NULL).
         vm_id is dense in table order. Row numbers in errors are the rowid.

Rejected: a file that is not SQLite or lacks a table or column; a vmType row
with a missing or out-of-range fraction or a repeated (vmTypeId, machineId); a
VM with an empty or repeated vmId, an empty tenantId, a vmTypeId with no vmType
row (unknown VM type), a priority other than 0 or 1, a missing or non-numeric
time, endtime < starttime, or a time beyond ±30 years (MaxTraceSeconds).

machineId is a hardware type, not a server, and the trace holds no placements,
so no machines are written unless --inventory asks: per-sku:N gives N machines
of every m<machineId> (the demands already cover them). Other specs add SKUs
that no VM type has a demand on.`,
		Load: loadAzurePacking,
	})
}

var packingTables = []struct {
	name string
	cols []string
}{
	{"vmType", []string{"id", "vmTypeId", "machineId", "core", "memory", "hdd", "ssd", "nic"}},
	{"vm", []string{"vmId", "tenantId", "vmTypeId", "priority", "starttime", "endtime"}},
}

func loadAzurePacking(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	if len(paths) != 1 {
		return fmt.Errorf("datasets: azure-packing reads one SQLite file per ingest (ids are per file), got %d", len(paths))
	}
	path := paths[0]
	if err := checkSQLiteFile(path); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return &RowError{File: path, Err: err}
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()+"?mode=ro")
	if err != nil {
		return &RowError{File: path, Err: err}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	p := &packingLoader{ctx: ctx, w: w, rej: rejecter{w, opts.MaxRejects}, db: db, path: path,
		skus: map[string]bool{}, types: map[string]bool{}, pairs: map[[2]string]bool{}}
	if st, err := os.Stat(path); err == nil {
		p.size = st.Size()
	}
	p.report = opts.Progress
	for _, t := range packingTables {
		if err := p.checkTable(t.name, t.cols); err != nil {
			return err
		}
	}
	if err := p.loadTypes(); err != nil {
		return err
	}
	if err := p.loadVMs(); err != nil {
		return err
	}
	if opts.Inventory == "" {
		return nil
	}
	return attachInventory(w, opts)
}

// checkSQLiteFile reads the 16-byte SQLite header, so that a wrong file gets
// a clear error instead of the driver's.
func checkSQLiteFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return &RowError{File: path, Err: err}
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	head = head[:n]
	if bytes.Equal(head, []byte("SQLite format 3\x00")) {
		return nil
	}
	what := "not a SQLite database"
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		what += " (a zip archive: unzip it and give the .sqlite file inside)"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		what += " (gzip data: gunzip it first)"
	case n == 0:
		what += " (empty file)"
	}
	return &RowError{File: path, Err: fmt.Errorf("%w: %s", ErrMalformed, what)}
}

type packingLoader struct {
	ctx    context.Context
	w      *store.Writer
	rej    rejecter
	db     *sql.DB
	path   string
	size   int64
	report Progress
	skus   map[string]bool
	types  map[string]bool
	pairs  map[[2]string]bool
}

// dbErr wraps a SQLite error (corrupt file, I/O) so that it names the file.
func (p *packingLoader) dbErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &RowError{File: p.path, Err: fmt.Errorf("%w: sqlite: %v", ErrMalformed, err)}
}

// checkTable verifies that table exists with the given columns.
func (p *packingLoader) checkTable(table string, cols []string) error {
	rows, err := p.db.QueryContext(p.ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return p.dbErr(err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return p.dbErr(err)
		}
		have[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return p.dbErr(err)
	}
	if len(have) == 0 {
		return &RowError{File: p.path, Field: table, Err: fmt.Errorf("%w: no table %s(%s): is this the Azure packing trace?",
			ErrMissingField, table, strings.Join(cols, ", "))}
	}
	for _, c := range cols {
		if !have[strings.ToLower(c)] {
			return &RowError{File: p.path, Field: table + "." + c, Err: fmt.Errorf("%w: table %s has no column %s",
				ErrMissingField, table, c)}
		}
	}
	return nil
}

// packingRow holds one result row's values with the row number errors name.
type packingRow struct {
	file string
	row  int64
	vals []any
}

func (r *packingRow) errf(field string, v any, err error) *RowError {
	s := ""
	if v != nil {
		s = fmt.Sprint(v)
		if b, ok := v.([]byte); ok {
			s = string(b)
		}
	}
	return &RowError{File: r.file, Row: r.row, Field: field, Value: s, Err: err}
}

// id reads column i as an identifier: integers print without a decimal
// point; NULL or empty is a missing field.
func (r *packingRow) id(i int, field string) (string, error) {
	var s string
	switch v := r.vals[i].(type) {
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			s = strconv.FormatInt(int64(v), 10)
		} else {
			s = strconv.FormatFloat(v, 'g', -1, 64)
		}
	case string:
		s = strings.TrimSpace(v)
	case []byte:
		s = strings.TrimSpace(string(v))
	}
	if s == "" {
		return "", r.errf(field, nil, ErrMissingField)
	}
	if !utf8.ValidString(s) {
		return "", r.errf(field, strings.ToValidUTF8(s, "\uFFFD"), fmt.Errorf("%w: not UTF-8 text", ErrMalformed))
	}
	return s, nil
}

// num reads column i as a finite number; ok is false for NULL.
func (r *packingRow) num(i int, field string) (v float64, ok bool, err error) {
	switch x := r.vals[i].(type) {
	case nil:
		return 0, false, nil
	case int64:
		return float64(x), true, nil
	case float64:
		v = x
	case string:
		if v, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false, r.errf(field, x, ErrNotNumber)
		}
	case []byte:
		if v, err = strconv.ParseFloat(strings.TrimSpace(string(x)), 64); err != nil {
			return 0, false, r.errf(field, x, ErrNotNumber)
		}
	default:
		return 0, false, r.errf(field, x, ErrNotNumber)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e300 {
		return 0, false, r.errf(field, r.vals[i], ErrNotNumber)
	}
	return v, true, nil
}

// fraction reads a fraction of a machine in [0, 1] (NULL: 0); positive
// requires > 0 and no NULL.
func (r *packingRow) fraction(i int, field string, positive bool) (float64, error) {
	v, ok, err := r.num(i, field)
	switch {
	case err != nil:
		return 0, err
	case !ok && positive:
		return 0, r.errf(field, nil, ErrMissingField)
	case positive && v <= 0:
		return 0, r.errf(field, r.vals[i], ErrNonPositive)
	case v < 0:
		return 0, r.errf(field, r.vals[i], ErrNegative)
	case v > 1:
		return 0, r.errf(field, r.vals[i], fmt.Errorf("%w: a fraction of one machine must be <= 1", ErrMalformed))
	}
	return v, nil
}

// scan runs query and calls fn for each row; rowNum picks a row's number.
func (p *packingLoader) scan(query string, fn func(r *packingRow) error, rowNum func(r *packingRow, pos int64) int64) error {
	rows, err := p.db.QueryContext(p.ctx, query)
	if err != nil {
		return p.dbErr(err)
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return p.dbErr(err)
	}
	r := &packingRow{file: p.path, vals: make([]any, len(cols))}
	ptrs := make([]any, len(cols))
	for i := range ptrs {
		ptrs[i] = &r.vals[i]
	}
	var pos int64
	for rows.Next() {
		pos++
		if pos%65536 == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		if err := rows.Scan(ptrs...); err != nil {
			return p.dbErr(err)
		}
		r.row = rowNum(r, pos)
		p.w.Counts.RowsRead++
		if err := fn(r); err != nil {
			if err := p.rej.handle(err); err != nil {
				return err
			}
		}
	}
	return p.dbErr(rows.Err())
}

func (p *packingLoader) loadTypes() error {
	q := "SELECT id, vmTypeId, machineId, core, memory, hdd, ssd, nic FROM vmType"
	return p.scan(q, func(r *packingRow) error {
		typeID, err := r.id(1, "vmTypeId")
		if err != nil {
			return err
		}
		machineID, err := r.id(2, "machineId")
		if err != nil {
			return err
		}
		var f [5]float64 // core, memory, hdd, ssd, nic
		for i, name := range []string{"core", "memory", "hdd", "ssd", "nic"} {
			if f[i], err = r.fraction(3+i, name, i == 0); err != nil {
				return err
			}
		}
		typ, sku := "t"+typeID, "m"+machineID
		if p.pairs[[2]string{typ, sku}] {
			return r.errf("machineId", "vmTypeId "+typeID+", machineId "+machineID, ErrDuplicateID)
		}
		p.pairs[[2]string{typ, sku}] = true
		if !p.skus[sku] {
			p.skus[sku] = true
			if err := p.w.Append("sku", sku, nil, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, nil); err != nil {
				return err
			}
		}
		if !p.types[typ] {
			p.types[typ] = true
			if err := p.w.Append("vm_type", typ, nil, nil, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		// vm_type_demand columns: cores, memory, ssd, hdd, nic, gpu.
		if err := p.w.Append("vm_type_demand", typ, sku, f[0], f[1], f[3], f[2], f[4], 0.0); err != nil {
			return err
		}
		p.w.Counts.RowsLoaded++
		return nil
	}, func(r *packingRow, pos int64) int64 {
		if id, ok := r.vals[0].(int64); ok && id > 0 {
			return id
		}
		return pos
	})
}

func (p *packingLoader) loadVMs() error {
	var total int64
	if err := p.db.QueryRowContext(p.ctx, "SELECT count(*) FROM vm").Scan(&total); err != nil {
		return p.dbErr(err)
	}
	cols := "vmId, tenantId, vmTypeId, priority, starttime, endtime"
	q, off := "SELECT rowid, "+cols+" FROM vm", 1
	if rows, err := p.db.QueryContext(p.ctx, "SELECT rowid FROM vm LIMIT 0"); err != nil {
		q, off = "SELECT "+cols+" FROM vm", 0 // a WITHOUT ROWID table: number rows by position
	} else {
		rows.Close()
	}
	seen := map[string]struct{}{}
	var vmID, done int64
	return p.scan(q, func(r *packingRow) error {
		done++
		if p.report != nil && (done%65536 == 0 || done == total) {
			p.report(p.size*done/max(total, 1), p.size)
		}
		name, err := r.id(off, "vmId")
		if err != nil {
			return err
		}
		tenant, err := r.id(off+1, "tenantId")
		if err != nil {
			return err
		}
		typeID, err := r.id(off+2, "vmTypeId")
		if err != nil {
			return err
		}
		prio, ok, err := r.num(off+3, "priority")
		if err != nil {
			return err
		}
		if !ok {
			return r.errf("priority", nil, ErrMissingField)
		}
		if prio != 0 && prio != 1 {
			return r.errf("priority", r.vals[off+3], fmt.Errorf("%w: priority must be 0 (high) or 1 (low)", ErrMalformed))
		}
		start, ok, err := r.num(off+4, "starttime")
		if err != nil {
			return err
		}
		if !ok {
			return r.errf("starttime", nil, ErrMissingField)
		}
		end, hasEnd, err := r.num(off+5, "endtime")
		if err != nil {
			return err
		}
		if hasEnd && end < start {
			return r.errf("endtime", r.vals[off+5], ErrEndBeforeStart)
		}
		if math.Abs(start*86400) > MaxTraceSeconds {
			return r.errf("starttime", r.vals[off+4], ErrTimeRange)
		}
		if hasEnd && math.Abs(end*86400) > MaxTraceSeconds {
			return r.errf("endtime", r.vals[off+5], ErrTimeRange)
		}
		typ := "t" + typeID
		if !p.types[typ] {
			return r.errf("vmTypeId", typeID, ErrUnknownType)
		}
		if _, dup := seen[name]; dup {
			return r.errf("vmId", name, ErrDuplicateID)
		}
		seen[name] = struct{}{}
		if err := p.w.Append("vm", vmID, name, tenant, nil, typ, int16(prio), start*86400,
			nullFloat(end*86400, hasEnd), nil, nil, nil, nil, nil); err != nil {
			return err
		}
		vmID++
		p.w.Counts.RowsLoaded++
		return nil
	}, func(r *packingRow, pos int64) int64 {
		if off == 1 {
			if id, ok := r.vals[0].(int64); ok && id > 0 {
				return id
			}
		}
		return pos
	})
}
