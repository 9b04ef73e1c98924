package datasets

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "azure-vmtable",
		Summary: "Azure VM trace V1/V2 vmtable (11 columns) and vm_cpu_readings (5 columns), header-less CSV, .gz fine",
		Help: `Header-less CSV files (gzip is fine) of the Azure public VM traces V1 (2017) and
V2 (2019), CC-BY. Each file is told apart by its column count and vmtable files
load first, whatever the order given:

  vmtable (11 columns): vmid, subscriptionid, deploymentid, vmcreated, vmdeleted,
    maxcpu, avgcpu, p95maxcpu, vmcategory, vmcorecount, vmmemory
      -> vm: name = vmid, tenant = deploymentid, subscription = subscriptionid,
         priority 0, start_s = vmcreated, end_s = vmdeleted (s from trace start),
         category = vmcategory (the trace's misspelt "Unkown" becomes "Unknown"),
         cpu_max/cpu_avg/cpu_p95max = maxcpu/avgcpu/p95maxcpu (percent, may be
         empty). The VM type is the distinct (cores, memory GB) pair, named like
         c8m56, with a vm_type row.
      V2 gives cores and memory as buckets; a plain bucket ("2", "4", "8", "24";
      memory "2", "4", "8", "32", "64") is its upper bound and is used as is. An
      open bucket ">N" (">24" cores, ">64" GB) has no upper bound; it is mapped to
      the next power of two above N: ">24" -> 32 cores, ">64" -> 128 GB.
  vm_cpu_readings (5 columns): timestamp, vmid, mincpu, maxcpu, avgcpu
      -> cpu_reading: ts_s = timestamp, cpu_min/cpu_max/cpu_avg (percent).
         vm_id comes from the vmids of the vmtable files of this ingest. A reading
         of a VM that no vmtable file of this ingest lists still loads, under a
         fresh vm_id after the vmtable's, but gets no vm row (join cpu_reading to
         vm with a LEFT JOIN): the real trace spreads readings over 125 files and
         its public sample's 100 readings are of VMs other than its 10 vmtable rows.

Rejected: a row whose column count is not its file's (11 or 5); an empty vmid or
deploymentid; a non-numeric time, size or CPU value; cores or memory <= 0; a
negative CPU value; vmdeleted < vmcreated; a time beyond ±30 years
(MaxTraceSeconds); a vmid listed twice in the vmtable; a repeated (vmid, timestamp)
reading. The trace has no servers: give --inventory.`,
		Load: loadAzureVM,
	})
}

const (
	vmtableCols  = 11
	readingsCols = 5
)

func loadAzureVM(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	// Tell the files apart by the first record's column count; vmtable files first.
	kind := map[string]int{}
	var tables, readings []string
	for _, p := range paths {
		n, err := firstRecordWidth(p)
		if err != nil {
			return err
		}
		switch n {
		case vmtableCols:
			tables = append(tables, p)
		case readingsCols:
			readings = append(readings, p)
		default:
			return &RowError{File: p, Row: 1, Err: fmt.Errorf("%w: %d columns: expected %d (vmtable) or %d (vm_cpu_readings)",
				ErrMalformed, n, vmtableCols, readingsCols)}
		}
		kind[p] = n
	}
	ld := &azureVMLoader{ctx: ctx, w: w, rej: rejecter{w, opts.MaxRejects}, types: newVMTypes(w),
		ids: map[string]int64{}, inTable: map[string]bool{}}
	err := eachFile(append(tables, readings...), opts.Progress, func(src *source) error {
		c, err := newCSV(src, ',', false)
		if err != nil {
			return err
		}
		row := ld.vmtableRow
		if kind[src.name] == readingsCols {
			row = ld.readingRow
		}
		return ld.each(c, kind[src.name], row)
	})
	if err != nil {
		return err
	}
	return attachInventory(w, opts)
}

type azureVMLoader struct {
	ctx     context.Context
	w       *store.Writer
	rej     rejecter
	types   *vmTypes
	ids     map[string]int64 // vmid -> vm_id, shared by vmtable and readings
	inTable map[string]bool  // vmids with a vmtable row
	series  []tsSet          // by vm_id
}

// firstRecordWidth returns the number of fields of a file's first record.
func firstRecordWidth(path string) (int, error) {
	src, err := openSource(path)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	c, err := newCSV(src, ',', false)
	if err != nil {
		return 0, err
	}
	rec, err := c.next()
	if err == io.EOF {
		return 0, &RowError{File: path, Err: fmt.Errorf("%w: empty file", ErrMalformed)}
	}
	if err != nil {
		return 0, err
	}
	return len(rec), nil
}

// each runs row on every record of c, which must have width fields.
func (l *azureVMLoader) each(c *csvFile, width int, row func(c *csvFile) error) error {
	return c.each(l.ctx, l.rej, func() error {
		if len(c.rec) != width {
			return c.errf("", "", fmt.Errorf("%w: %d fields, expected %d like the file's first row", ErrMalformed, len(c.rec), width))
		}
		return row(c)
	})
}

// vmID returns the vm_id of vmid, assigning the next one if new.
func (l *azureVMLoader) vmID(vmid string) int64 {
	id, ok := l.ids[vmid]
	if !ok {
		id = int64(len(l.ids))
		l.ids[vmid] = id
		l.series = append(l.series, tsSet{})
	}
	return id
}

func (l *azureVMLoader) vmtableRow(c *csvFile) error {
	vmid, err := textField(c, 0, "vmid")
	if err != nil {
		return err
	}
	if vmid == "" {
		return c.errf("vmid", "", ErrMissingField)
	}
	sub, err := textField(c, 1, "subscriptionid")
	if err != nil {
		return err
	}
	tenant, err := textField(c, 2, "deploymentid")
	if err != nil {
		return err
	}
	if tenant == "" {
		return c.errf("deploymentid", "", ErrMissingField)
	}
	start, err := c.seconds(3, "vmcreated", 1)
	if err != nil {
		return err
	}
	end, err := c.seconds(4, "vmdeleted", 1)
	if err != nil {
		return err
	}
	if end < start {
		return c.errf("vmdeleted", c.rec[4], ErrEndBeforeStart)
	}
	var cpu [3]any // avg, max, p95max: the vm table's order
	for i, f := range []struct {
		col  int
		name string
	}{{6, "avgcpu"}, {5, "maxcpu"}, {7, "p95maxcpu"}} {
		v, ok, err := c.optFloat(f.col, f.name)
		if err != nil {
			return err
		}
		if ok && v < 0 {
			return c.errf(f.name, c.rec[f.col], ErrNegative)
		}
		cpu[i] = nullFloat(v, ok)
	}
	category, err := textField(c, 8, "vmcategory")
	if err != nil {
		return err
	}
	if category == "Unkown" {
		category = "Unknown"
	}
	cores, err := sizeBucket(c, 9, "vmcorecount")
	if err != nil {
		return err
	}
	mem, err := sizeBucket(c, 10, "vmmemory")
	if err != nil {
		return err
	}
	if l.inTable[vmid] {
		return c.errf("vmid", vmid, ErrDuplicateID)
	}
	typ, err := l.types.name(typeShape{cores: typeSize(cores), mem: typeSize(mem)})
	if err != nil {
		return err
	}
	l.inTable[vmid] = true
	id := l.vmID(vmid)
	if err := l.w.Append("vm", id, vmid, tenant, nullStr(sub), typ, int16(0), start, end, nullStr(category),
		cpu[0], cpu[1], cpu[2], nil); err != nil {
		return err
	}
	l.w.Counts.RowsLoaded++
	return nil
}

func (l *azureVMLoader) readingRow(c *csvFile) error {
	ts, err := c.seconds(0, "timestamp", 1)
	if err != nil {
		return err
	}
	vmid, err := c.str(1, "vmid")
	if err != nil {
		return err
	}
	if vmid == "" {
		return c.errf("vmid", "", ErrMissingField)
	}
	var cpu [2]any // min, max
	for i, f := range []struct {
		col  int
		name string
	}{{2, "mincpu"}, {3, "maxcpu"}} {
		v, ok, err := c.optFloat(f.col, f.name)
		if err != nil {
			return err
		}
		if ok && v < 0 {
			return c.errf(f.name, c.rec[f.col], ErrNegative)
		}
		cpu[i] = nullFloat(v, ok)
	}
	avg, err := c.nonNegative(4, "avgcpu")
	if err != nil {
		return err
	}
	id := l.vmID(vmid)
	if !l.series[id].add(ts) {
		return c.errf("timestamp", c.rec[0], ErrDuplicateID)
	}
	if err := l.w.Append("cpu_reading", id, ts, cpu[0], cpu[1], avg); err != nil {
		return err
	}
	l.w.Counts.RowsLoaded++
	return nil
}

// textField is str for a value stored as text: DuckDB takes only UTF-8.
func textField(c *csvFile, i int, field string) (string, error) {
	s, err := c.str(i, field)
	if err == nil && !utf8.ValidString(s) {
		err = c.errf(field, strings.ToValidUTF8(s, "\uFFFD"), fmt.Errorf("%w: not UTF-8 text", ErrMalformed))
	}
	return s, err
}

// sizeBucket parses a V1 size or a V2 size bucket: a number, or ">N" for the
// open top bucket, read as the next power of two above N.
func sizeBucket(c *csvFile, i int, field string) (float64, error) {
	s, err := c.str(i, field)
	if err != nil {
		return 0, err
	}
	num, open := strings.CutPrefix(s, ">")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, c.errf(field, s, ErrNotNumber)
	}
	if v <= 0 {
		return 0, c.errf(field, s, ErrNonPositive)
	}
	if open {
		p := 1.0
		for p <= v {
			p *= 2
		}
		v = p
	}
	return v, nil
}
