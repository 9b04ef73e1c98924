package datasets

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"placelab/datasets/synth"
	store "placelab/sql"
)

// Sentinel errors of inventory files; a *RowError wraps one of them.
var (
	ErrHealth          = errors.New("health must be healthy, unhealthy or offline")
	ErrSKUDisagrees    = errors.New("SKU capacity differs from the SKU's first row")
	ErrDuplicateName   = errors.New("duplicate machine name")
	ErrUpdateDomain    = fmt.Errorf("update_domain must be an integer in 0..%d", math.MaxInt16)
	ErrSKUAlreadyThere = errors.New("SKU already written by the trace; an inventory file's SKUs must be new")
)

// Defaults of an inventory file's optional location columns: the names the
// synthetic inventory (synth.NewZone) gives its single zone and first
// datacenter.
const (
	DefaultInventoryZone       = "zone1"
	DefaultInventoryDatacenter = "dc1"
)

// InventoryFilePrefix marks an --inventory value as a file whatever its name.
const InventoryFilePrefix = "file:"

// inventoryColumn is a column of an inventory file.
type inventoryColumn struct {
	name     string
	required bool // the column must be present and every cell non-empty
}

// inventoryColumns are the columns of an inventory file, in select order;
// inventoryRow indexes them by these positions.
var inventoryColumns = []inventoryColumn{
	{"name", true}, {"zone", false}, {"datacenter", false}, {"cluster", true}, {"rack", true},
	{"update_domain", false}, {"sku", true}, {"cores", true}, {"memory_gb", true},
	{"ssd_gb", false}, {"hdd_gb", false}, {"nic_gbps", false}, {"gpus", false}, {"health", false},
}

// Positions in inventoryColumns.
const (
	icName = iota
	icZone
	icDatacenter
	icCluster
	icRack
	icUpdateDomain
	icSKU
	icCores
	icMemory
	icSSD
	icHDD
	icNIC
	icGPUs
	icHealth
	icCount
)

// InventoryFileHelp documents the inventory file for a CLI's --help.
const InventoryFileHelp = `An inventory file lists your own fleet, one machine per row, as CSV (with a header) or
Parquet. --inventory takes it when the value ends in .csv, .csv.gz, .parquet or .pq, or
is written file:PATH. Columns (names case-insensitive, any order; an optional column
may be absent or its cell empty):
  name            the machine's name, unique in the file       required
  zone            zone name                                     optional, default zone1
  datacenter      datacenter name                               optional, default dc1
  cluster         cluster name                                  required
  rack            rack (fault domain) name                      required
  update_domain   integer 0..32767                              optional, default 0
  sku             hardware SKU name                             required
  cores           vCPUs per machine, > 0                        required
  memory_gb       memory per machine, GB, > 0                   required
  ssd_gb, hdd_gb  local disk, GB, >= 0                          optional, default 0
  nic_gbps        network, Gbit/s, >= 0                         optional, default 0
  gpus            GPU devices, >= 0                             optional, default 0
  health          healthy, unhealthy or offline                 optional, default healthy
Every row of one SKU must give the same capacities (cores through gpus); machine names
must be unique. Machines are numbered in file order; SKUs get no generation. A bad row
stops the ingest with an error naming the file, row and field (a CSV row is its line in
the file, the header line 1; a Parquet row its data row from 1); a row with fewer or more
fields than the header is a bad row. An inventory's rows are never skipped (--max-rejects
does not apply to them).
Example:
  name,cluster,rack,sku,cores,memory_gb,ssd_gb,health
  c1-r1-m1,c1,c1-r1,gen5,48,384,1024,
  c1-r1-m2,c1,c1-r1,gen5,48,384,1024,offline`

// InventoryFilePath says whether an --inventory value names an inventory
// file rather than a synthetic spec, and returns the file's path: a value
// written file:PATH, or one ending in .csv, .csv.gz, .parquet or .pq (no
// spec ends so). The file need not exist; reading it says if it does not.
func InventoryFilePath(inventory string) (string, bool) {
	if p, ok := strings.CutPrefix(inventory, InventoryFilePrefix); ok {
		return p, true
	}
	lower := strings.ToLower(inventory)
	for _, ext := range []string{".csv", ".csv.gz", ".parquet", ".pq"} {
		if strings.HasSuffix(lower, ext) {
			return inventory, true
		}
	}
	return "", false
}

// WriteInventoryFile reads an inventory file (see InventoryFileHelp; CSV
// with a header, or Parquet by name or magic bytes) through the ingest's own
// connection, every column read as text so that a bad value is seen rather
// than coerced, and writes one sku row per distinct SKU and one machine row
// per file row into w, as synth.WriteInventory does: machine ids continue
// after any already in the ingest, in file order. It returns how many
// machines it wrote. Nothing is written unless the whole file is good; the
// caller's transaction undoes the rest on error.
//
// It refuses with a *RowError naming the file, the row and the field: a
// missing required column (listing the columns present), an empty required
// cell, a size that is not a finite number >= 0, cores or memory_gb <= 0,
// an update_domain that is not an integer in 0..32767, an unknown health, a
// duplicate machine name, a SKU whose capacities differ from its first
// row's, a SKU the trace already wrote, more than synth.MaxMachines rows,
// and a file of 0 rows.
func WriteInventoryFile(w *store.Writer, path string) (machines int, err error) {
	tf, skus, ms, err := readInventoryFile(w, path)
	if err != nil {
		return 0, err
	}
	if err := checkNewSKUs(w, tf, skus); err != nil {
		return 0, err
	}
	first, err := synth.NextMachineID(w)
	if err != nil {
		return 0, err
	}
	for _, s := range skus {
		if err := w.Append("sku", s.Name, nil, s.Cores, s.MemoryGB, s.SSDGB, s.HDDGB, s.NICGbps, s.GPUs, nil); err != nil {
			return 0, fmt.Errorf("datasets: %s: sku %s: %w", path, s.Name, err)
		}
	}
	for i, m := range ms {
		if err := w.Append("machine", int32(first+i), m.Name, m.Zone, m.Datacenter, m.Cluster, m.Rack,
			int16(m.UpdateDomain), m.SKU, m.Health); err != nil {
			return 0, fmt.Errorf("datasets: %s: machine %s: %w", path, m.Name, err)
		}
	}
	return len(ms), nil
}

// invSKU is a SKU with the data record that first defined it.
type invSKU struct {
	synth.SKU
	rec int64
}

// readInventoryFile reads and checks every row of an inventory file,
// returning its SKUs in order of first appearance and its machines in file
// order (IDs unset).
func readInventoryFile(w *store.Writer, path string) (*tableFile, []invSKU, []synth.Machine, error) {
	tf, err := openTableFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	sel, _, err := selectColumns(w, tf, inventoryColumns,
		"an inventory file has name, cluster, rack, sku, cores, memory_gb and optional zone, datacenter, update_domain, ssd_gb, hdd_gb, nic_gbps, gpus, health")
	if err != nil {
		return nil, nil, nil, err
	}
	chk := newInventoryCheck(tf)
	rec := int64(-1)
	err = w.QueryRows("SELECT "+sel+" FROM "+tf.src, func(row []driver.Value) error {
		rec++
		if len(chk.machines) >= synth.MaxMachines {
			return tf.rowErr(rec, "", "", fmt.Errorf("%w: more than %d machines", ErrMalformed, synth.MaxMachines))
		}
		var v [icCount]string
		for i := range v {
			s, _ := row[i].(string) // NULL: empty
			v[i] = strings.TrimSpace(s)
		}
		return chk.add(rec, v)
	})
	if err != nil {
		var re *RowError
		if errors.As(err, &re) {
			return nil, nil, nil, err
		}
		return nil, nil, nil, tf.dbErr(err)
	}
	if len(chk.machines) == 0 {
		return nil, nil, nil, &RowError{File: path, Err: fmt.Errorf("%w: 0 rows: the file lists no machines", ErrMalformed)}
	}
	skus := make([]invSKU, len(chk.skuOrder))
	for i, name := range chk.skuOrder {
		skus[i] = chk.skus[name]
	}
	return tf, skus, chk.machines, nil
}

// inventoryCheck checks rows one by one against the rows before them.
type inventoryCheck struct {
	tf       *tableFile
	skus     map[string]invSKU
	skuOrder []string
	names    map[string]int64 // machine name → row
	machines []synth.Machine
}

func newInventoryCheck(tf *tableFile) *inventoryCheck {
	return &inventoryCheck{tf: tf, skus: map[string]invSKU{}, names: map[string]int64{}}
}

// add checks data record rec's values (in inventoryColumns order, trimmed,
// "" for empty) and keeps its machine and SKU.
func (c *inventoryCheck) add(rec int64, v [icCount]string) error {
	n := c.tf.row(rec)
	bad := func(i int, err error) error {
		return c.tf.rowErr(rec, inventoryColumns[i].name, v[i], err)
	}
	for i, col := range inventoryColumns {
		if col.required && v[i] == "" {
			return bad(i, fmt.Errorf("%w: empty", ErrMissingField))
		}
	}
	size := func(i int) (float64, error) {
		if v[i] == "" {
			return 0, nil // only optional sizes may be empty
		}
		x, err := strconv.ParseFloat(v[i], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, bad(i, ErrNotNumber)
		}
		if x < 0 {
			return 0, bad(i, ErrNegative)
		}
		return x, nil
	}
	var caps [icGPUs - icCores + 1]float64
	for i := icCores; i <= icGPUs; i++ {
		x, err := size(i)
		if err != nil {
			return err
		}
		caps[i-icCores] = x
	}
	for _, i := range []int{icCores, icMemory} {
		if caps[i-icCores] <= 0 {
			return bad(i, ErrNonPositive)
		}
	}
	ud := 0
	if v[icUpdateDomain] != "" {
		x, err := strconv.Atoi(v[icUpdateDomain])
		if err != nil || x < 0 || x > math.MaxInt16 {
			return bad(icUpdateDomain, ErrUpdateDomain)
		}
		ud = x
	}
	health := strings.ToLower(v[icHealth])
	switch health {
	case "":
		health = "healthy"
	case "healthy", "unhealthy", "offline":
	default:
		return bad(icHealth, ErrHealth)
	}
	if prev, dup := c.names[v[icName]]; dup {
		return bad(icName, fmt.Errorf("%w: also row %d", ErrDuplicateName, prev))
	}
	sku := synth.SKU{Name: v[icSKU], Cores: caps[0], MemoryGB: caps[1], SSDGB: caps[2],
		HDDGB: caps[3], NICGbps: caps[4], GPUs: caps[5]}
	if prev, ok := c.skus[sku.Name]; ok {
		had := [...]float64{prev.Cores, prev.MemoryGB, prev.SSDGB, prev.HDDGB, prev.NICGbps, prev.GPUs}
		for i := range had {
			if had[i] != caps[i] {
				return bad(icCores+i, fmt.Errorf("%w: SKU %q has %s %s from row %d",
					ErrSKUDisagrees, sku.Name, inventoryColumns[icCores+i].name, fnum(had[i]), c.tf.row(prev.rec)))
			}
		}
	} else {
		c.skus[sku.Name] = invSKU{sku, rec}
		c.skuOrder = append(c.skuOrder, sku.Name)
	}
	zone, dc := v[icZone], v[icDatacenter]
	if zone == "" {
		zone = DefaultInventoryZone
	}
	if dc == "" {
		dc = DefaultInventoryDatacenter
	}
	c.names[v[icName]] = n
	c.machines = append(c.machines, synth.Machine{Name: v[icName], Zone: zone, Datacenter: dc,
		Cluster: v[icCluster], Rack: v[icRack], UpdateDomain: ud, SKU: sku.Name, Health: health})
	return nil
}

// checkNewSKUs refuses a SKU that this ingest has already written (a trace
// with its own SKUs), naming the file's row that defined it.
func checkNewSKUs(w *store.Writer, tf *tableFile, skus []invSKU) error {
	written := map[string]bool{}
	err := w.QueryRows("SELECT sku FROM sku WHERE load_id = $1", func(row []driver.Value) error {
		name, _ := row[0].(string)
		written[name] = true
		return nil
	}, w.LoadID())
	if err != nil {
		return fmt.Errorf("datasets: %s: reading sku table: %w", tf.path, err)
	}
	for _, s := range skus {
		if written[s.Name] {
			return tf.rowErr(s.rec, "sku", s.Name, ErrSKUAlreadyThere)
		}
	}
	return nil
}

// selectColumns matches a table file's header (src, read through DuckDB)
// against the columns of a format, names case-insensitive and any order: it
// returns the SELECT list that reads them as text in the format's order (an
// absent optional column as NULL) and the columns found. A missing required
// column is a *RowError on the header row naming it, what the format has
// (has) and what the file has.
func selectColumns(w *store.Writer, tf *tableFile, cols []inventoryColumn, has string) (sel string, present map[string]bool, err error) {
	var found []string
	have := map[string]string{}
	err = w.QueryRows("DESCRIBE SELECT * FROM "+tf.src, func(row []driver.Value) error {
		c, _ := row[0].(string)
		found = append(found, c)
		k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
		for _, col := range cols {
			if k == col.name {
				have[k] = c
			}
		}
		return nil
	})
	if err != nil {
		return "", nil, tf.dbErr(err)
	}
	var list []string
	present = map[string]bool{}
	for _, c := range cols {
		name, ok := have[c.name]
		switch {
		case ok:
			list = append(list, "CAST("+quoteIdent(name)+" AS VARCHAR)")
			present[c.name] = true
		case !c.required:
			list = append(list, "NULL::VARCHAR")
		default:
			return "", nil, tf.headerErr(c.name,
				fmt.Errorf("%w: no column %q (%s; this one has %s)%s", ErrMissingField, c.name, has, strings.Join(found, ", "), delimiterHint(found)))
		}
	}
	return strings.Join(list, ", "), present, nil
}

// delimiterHint says, for a CSV header read as one column that holds a
// semicolon or a tab, that placelab reads comma-separated files: "" else.
func delimiterHint(found []string) string {
	if len(found) != 1 {
		return ""
	}
	for _, d := range []struct{ sep, name string }{{";", "semicolons"}, {"\t", "tabs"}, {"|", "bars"}} {
		if strings.Contains(found[0], d.sep) {
			return fmt.Sprintf(": the header looks separated by %s; placelab reads comma-separated CSV (or Parquet)", d.name)
		}
	}
	return ""
}
