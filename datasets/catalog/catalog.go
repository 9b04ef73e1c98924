package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Architectures and capacity types a catalog may name.
const (
	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"

	OnDemand    = "on-demand"
	Spot        = "spot"
	Preemptible = "preemptible"
)

// archAliases are the other spellings of an architecture Read accepts
// (case-insensitively), as uname -m prints them; Catalog.Notes says how
// many rows used each.
var archAliases = map[string]string{"x86_64": ArchAMD64, "aarch64": ArchARM64}

// maxInt is the largest max_count or pods Read accepts: far beyond any
// real count, and exact as a float64.
const maxInt = 1 << 31

// Type is one machine type of a catalog.
type Type struct {
	Name, Family, Arch string
	VCPUs              float64
	MemoryMiB          float64
	GPUs               float64
	Price              float64 // per hour, from Catalog.PriceColumn
	MaxCount           int     // how many may be bought; 0: unlimited
	Pods               int     // max pods per node; 0: not given
	CapacityType       string  // OnDemand, Spot or Preemptible
	// InterruptionsPerYear is how often a spot or preemptible machine of the
	// type is taken back; 0 for on-demand.
	InterruptionsPerYear float64
	// Line is the line of the file the type came from (header = 1); for
	// Parquet, data row + 1, the line it would have in a CSV file.
	Line int
}

// MemoryGB is the type's memory in GB (10^9 bytes), placelab's unit.
func (t Type) MemoryGB() float64 { return t.MemoryMiB * bytesMiB / bytesGB }

// MemoryGiB is the type's memory in GiB (2^30 bytes).
func (t Type) MemoryGiB() float64 { return t.MemoryMiB / mibPerGiB }

// Catalog is a catalog file as read.
type Catalog struct {
	File   string
	Format string // FormatCSV or FormatParquet
	// PriceColumn is the column Price was read from; PriceColumns every
	// price column the file has (named *_usd_per_hour or price_per_hour,
	// and the one ReadOptions.Price named), in file order.
	PriceColumn  string
	PriceColumns []string
	// Columns maps each role read (RoleName, RoleCPU, …) to the column read
	// for it as the file spells it, e.g. "cpu": "vcpus", "memory": "memory_mib".
	Columns map[string]string
	// Ignored are the columns not read, in file order.
	Ignored []string
	// Notes say where the file was read other than as written: a column
	// left for another of the same role, an architecture's other spelling.
	Notes []string
	Types []Type // in file order
	// SHA256 is the hex SHA-256 of the file's bytes, so a run can pin what
	// it read.
	SHA256 string
	// TypesFilter is the filter Catalog.Filter applied ("" for none).
	TypesFilter string
}

// ReadOptions choose among a file's columns.
type ReadOptions struct {
	// Price names the price column to read (case-insensitive; --price). It
	// may be any column not read for another role. Empty: the file's only
	// price column.
	Price string
}

// Read reads the catalog at path (.csv, .csv.gz or .parquet). A bad header
// or row refuses the whole file with a *RowError naming the file, the data
// row and line, and the field; see Help for the columns and the rules.
func Read(path string, o ReadOptions) (*Catalog, error) {
	format, err := formatOf(path)
	if err != nil {
		return nil, &RowError{File: path, Err: err}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &RowError{File: path, Err: fmt.Errorf("no such file: %w", err)}
		}
		return nil, &RowError{File: path, Err: err}
	}
	if len(data) == 0 {
		return nil, &RowError{File: path, Err: because(ErrEmpty, "empty file: want a header and one row per machine type")}
	}
	sum := sha256.Sum256(data)
	t, err := readTable(path, format, data)
	if err != nil {
		return nil, err
	}
	l, err := mapColumns(t.header, o.Price)
	if err != nil {
		return nil, &RowError{File: path, Err: err} // the header: no line to name
	}
	if len(t.rows) == 0 {
		return nil, &RowError{File: path, Err: because(ErrEmpty, "no machine types: the file has a header and no rows")}
	}
	c := &Catalog{
		File:         path,
		Format:       format,
		PriceColumn:  strings.TrimSpace(t.header[l.index[RolePrice]]),
		PriceColumns: l.priceColumns,
		Columns:      l.columns(),
		Ignored:      l.ignored,
		Notes:        l.notes,
		Types:        make([]Type, 0, len(t.rows)),
		SHA256:       hex.EncodeToString(sum[:]),
	}
	p := rowParser{l: l, aliases: map[string]*aliasUse{}}
	first := map[string]int{} // name -> index in c.Types
	for i, row := range t.rows {
		line := t.lines[i]
		if format == FormatParquet {
			line = 0 // no lines to name; Type.Line still gets row + 1
		}
		at := func(err *fieldError) *RowError {
			return &RowError{File: path, Row: i + 1, Line: line, Field: err.field, Value: err.value, Err: err.err}
		}
		typ, ferr := p.parse(row, t.lines[i])
		if ferr != nil {
			return nil, at(ferr)
		}
		if j, dup := first[typ.Name]; dup {
			prev := "data row " + strconv.Itoa(j+1)
			if format == FormatCSV {
				prev = fmt.Sprintf("line %d (%s)", c.Types[j].Line, prev)
			}
			return nil, at(&fieldError{field: l.header[l.index[RoleName]], value: typ.Name,
				err: because(ErrDuplicate, "duplicate name: %s has it too", prev)})
		}
		first[typ.Name] = i
		c.Types = append(c.Types, typ)
	}
	c.Notes = append(c.Notes, p.aliasNotes(format)...)
	return c, nil
}

// fieldError is a bad value in a row, placed by Read.
type fieldError struct {
	field, value string
	err          error
}

// aliasUse counts the rows that spelled an architecture another way.
type aliasUse struct {
	rows, firstLine int
}

// rowParser parses a row's cells into a Type.
type rowParser struct {
	l       *layout
	aliases map[string]*aliasUse // spelling as in the file -> use
}

// parse is row's Type (line: its Type.Line).
func (p *rowParser) parse(row []string, line int) (Type, *fieldError) {
	cell := func(role string) (string, string) { // column name, value
		i := p.l.col(role)
		if i < 0 {
			return "", ""
		}
		return strings.TrimSpace(p.l.header[i]), row[i]
	}
	t := Type{Line: line, Arch: ArchAMD64, CapacityType: OnDemand}
	var ferr *fieldError
	bad := func(col, v string, err error) {
		if ferr == nil {
			ferr = &fieldError{field: col, value: v, err: err}
		}
	}
	// number parses role's cell: required (else 0 when empty), at least min
	// (strictly above it when above).
	number := func(role string, required bool, min float64, above bool) float64 {
		col, v := cell(role)
		if ferr != nil || col == "" {
			return 0
		}
		if v == "" {
			if required {
				bad(col, v, because(ErrEmptyValue, "empty: every type needs one"))
			}
			return 0
		}
		x, err := parseNumber(v)
		if err != nil {
			bad(col, v, err)
			return 0
		}
		if x < min || (above && x == min) {
			op := ">="
			if above {
				op = ">"
			}
			bad(col, v, because(ErrOutOfRange, "must be %s %g", op, min))
		}
		return x
	}
	integer := func(role string, min float64, above bool) int {
		x := number(role, false, min, above)
		col, v := cell(role)
		if ferr == nil && (x != math.Trunc(x) || x > maxInt) {
			bad(col, v, because(ErrNotNumber, "not a whole number up to %d", maxInt))
		}
		return int(x)
	}

	col, name := cell(RoleName)
	if name == "" {
		return t, &fieldError{field: col, value: name, err: because(ErrEmptyValue, "empty: every type needs a name")}
	}
	t.Name = name
	t.Family = familyOf(name)
	if _, f := cell(RoleFamily); f != "" {
		t.Family = f
	}
	t.VCPUs = number(RoleCPU, true, 0, true)
	t.MemoryMiB = number(RoleMemory, true, 0, true) * p.l.memoryScale
	t.GPUs = number(RoleGPUs, false, 0, false)
	t.Price = number(RolePrice, true, 0, false)
	t.MaxCount = integer(RoleMaxCount, 0, false)
	t.Pods = integer(RolePods, 0, true)
	if ferr != nil {
		return t, ferr
	}
	if col, a := cell(RoleArch); a != "" {
		arch, alias, ok := normalArch(a)
		if !ok {
			return t, &fieldError{field: col, value: a, err: because(ErrUnknown, "unknown architecture: want amd64 or arm64 (or x86_64, aarch64)")}
		}
		t.Arch = arch
		if alias {
			u := p.aliases[a]
			if u == nil {
				u = &aliasUse{firstLine: line}
				p.aliases[a] = u
			}
			u.rows++
		}
	}
	if col, ct := cell(RoleCapacityType); ct != "" {
		norm, ok := normalCapacityType(ct)
		if !ok {
			return t, &fieldError{field: col, value: ct, err: because(ErrUnknown, "unknown capacity type: want on-demand, spot or preemptible")}
		}
		t.CapacityType = norm
	}
	t.InterruptionsPerYear = number(RoleInterruptions, false, 0, false)
	if ferr != nil {
		return t, ferr
	}
	if t.InterruptionsPerYear > 0 && t.CapacityType == OnDemand {
		col, v := cell(RoleInterruptions)
		return t, &fieldError{field: col, value: v, err: because(ErrOutOfRange, "interruptions are for spot or preemptible types; this one is on-demand")}
	}
	return t, nil
}

// aliasNotes say which architecture spellings were read as which.
func (p *rowParser) aliasNotes(format string) []string {
	var notes []string
	for a, u := range p.aliases {
		where := fmt.Sprintf("first on line %d", u.firstLine)
		if format == FormatParquet {
			where = fmt.Sprintf("first in data row %d", u.firstLine-1)
		}
		notes = append(notes, fmt.Sprintf("arch %q read as %s on %d rows (%s)", a, archAliases[strings.ToLower(a)], u.rows, where))
	}
	sort.Strings(notes)
	return notes
}

// familyOf is a type's default family: its name's part before the first
// '.' (m5.large -> m5), else the name.
func familyOf(name string) string {
	if f, _, ok := strings.Cut(name, "."); ok && f != "" {
		return f
	}
	return name
}

// normalArch is the architecture v names (case-insensitive), and whether v
// was another spelling of it.
func normalArch(v string) (arch string, alias, ok bool) {
	l := strings.ToLower(strings.TrimSpace(v))
	switch l {
	case ArchAMD64, ArchARM64:
		return l, false, true
	}
	if a, ok := archAliases[l]; ok {
		return a, true, true
	}
	return "", false, false
}

// normalCapacityType is the capacity type v names (case-insensitive).
func normalCapacityType(v string) (string, bool) {
	switch l := strings.ToLower(strings.TrimSpace(v)); l {
	case OnDemand, Spot, Preemptible:
		return l, true
	}
	return "", false
}

// parseNumber is v as a finite decimal number (NaN, infinities and hex
// floats refused).
func parseNumber(v string) (float64, error) {
	v = strings.TrimSpace(v)
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || strings.ContainsAny(v, "xX") { // ParseFloat takes hex floats too
		return 0, because(ErrNotNumber, "not a number")
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, because(ErrNotNumber, "not a finite number")
	}
	return x, nil
}
