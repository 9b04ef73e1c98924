package catalog

import (
	"fmt"
	"strings"
)

// Roles: the keys of Catalog.Columns, each the meaning of one column read.
const (
	RoleName          = "name"
	RoleFamily        = "family"
	RoleCPU           = "cpu"
	RoleMemory        = "memory"
	RoleGPUs          = "gpus"
	RoleArch          = "arch"
	RolePrice         = "price"
	RoleMaxCount      = "max_count"
	RolePods          = "pods"
	RoleCapacityType  = "capacity_type"
	RoleInterruptions = "interruptions_per_year"
)

// Memory columns and how many MiB one unit of each is: memory_gb is GB =
// 10^9 bytes (placelab stores memory in GB), memory_gib 2^30 bytes,
// memory_mib 2^20 bytes.
const (
	mibPerGiB = 1024
	bytesMiB  = 1 << 20
	bytesGB   = 1e9
)

// candidate is a column name that can play a role, in order of precedence:
// when a file has two, the first is read and the other is ignored.
type candidate struct {
	name  string
	scale float64 // memory: MiB per unit
}

// cpuColumns and memoryColumns are the accepted spellings, in precedence.
var (
	cpuColumns    = []candidate{{"vcpus", 1}, {"cores", 1}}
	memoryColumns = []candidate{{"memory_mib", 1}, {"memory_gib", mibPerGiB}, {"memory_gb", bytesGB / bytesMiB}}
)

// singleColumns are the roles read from the column of the same name.
var singleColumns = []string{RoleName, RoleFamily, RoleGPUs, RoleArch, RoleMaxCount, RolePods, RoleCapacityType, RoleInterruptions}

// isPriceColumn is the rule for a price column's name (lower case): it is
// price_per_hour or usd_per_hour, or ends in _usd_per_hour
// (on_demand_usd_per_hour, spot_usd_per_hour, …).
func isPriceColumn(lower string) bool {
	return lower == "price_per_hour" || lower == "usd_per_hour" || strings.HasSuffix(lower, "_usd_per_hour")
}

// layout says which column of the file plays which role.
type layout struct {
	header       []string       // as the file spells it
	index        map[string]int // role -> column
	memoryScale  float64        // MiB per unit of the memory column
	priceColumns []string
	ignored      []string
	notes        []string
}

// col is the column index of role, -1 when the file has none.
func (l *layout) col(role string) int {
	if i, ok := l.index[role]; ok {
		return i
	}
	return -1
}

// mapColumns matches a header (names compared case-insensitively, spaces
// trimmed) to the roles, with price naming the price column to read ("":
// the only one). Errors wrap ErrBadHeader, ErrNoColumn or ErrPriceColumn.
func mapColumns(header []string, price string) (*layout, error) {
	l := &layout{header: header, index: map[string]int{}}
	byName := map[string]int{}
	for i, h := range header {
		k := strings.ToLower(strings.TrimSpace(h))
		if k == "" {
			continue
		}
		if j, dup := byName[k]; dup {
			return nil, because(ErrBadHeader, "columns %d and %d are both named %q (names are case-insensitive)", j+1, i+1, k)
		}
		byName[k] = i
	}
	for _, r := range singleColumns {
		if i, ok := byName[r]; ok {
			l.index[r] = i
		}
	}
	// pick gives role the first candidate the file has and notes the
	// others; it returns the chosen candidate's scale.
	pick := func(role string, cands []candidate) (scale float64) {
		for _, c := range cands {
			i, ok := byName[c.name]
			if !ok {
				continue
			}
			if j, taken := l.index[role]; taken {
				l.notes = append(l.notes, fmt.Sprintf("column %s not read: %s is read for %s", strings.TrimSpace(header[i]), strings.TrimSpace(header[j]), role))
				continue
			}
			l.index[role] = i
			scale = c.scale
		}
		return scale
	}
	if _, ok := l.index[RoleName]; !ok {
		hint := ""
		if len(header) == 1 && strings.ContainsAny(header[0], ";\t|") {
			hint = fmt.Sprintf(" (the header is one column, %q: a catalog's columns are separated by commas)", header[0])
		}
		return nil, because(ErrNoColumn, "no name column: want name%s", hint)
	}
	pick(RoleCPU, cpuColumns)
	if _, ok := l.index[RoleCPU]; !ok {
		return nil, because(ErrNoColumn, "no CPU column: want vcpus or cores")
	}
	l.memoryScale = pick(RoleMemory, memoryColumns)
	if _, ok := l.index[RoleMemory]; !ok {
		return nil, because(ErrNoColumn, "no memory column: want memory_mib, memory_gib or memory_gb")
	}
	if err := l.pickPrice(byName, price); err != nil {
		return nil, err
	}
	read := map[int]bool{}
	for _, i := range l.index {
		read[i] = true
	}
	for i, h := range header {
		if !read[i] {
			h = strings.TrimSpace(h)
			if h == "" {
				h = fmt.Sprintf("(column %d, no name)", i+1)
			}
			l.ignored = append(l.ignored, h)
		}
	}
	return l, nil
}

// pickPrice chooses the price column: the one --price names (any column
// not read for another role), else the only column named as a price.
func (l *layout) pickPrice(byName map[string]int, price string) error {
	named := func() string {
		if len(l.priceColumns) == 0 {
			return "the file has none (a price column is named *_usd_per_hour or price_per_hour)"
		}
		return "the price columns are " + strings.Join(l.priceColumns, ", ")
	}
	chosen := -1
	if price != "" {
		i, ok := byName[strings.ToLower(strings.TrimSpace(price))]
		if !ok {
			l.collectPrices(-1)
			return because(ErrPriceColumn, "--price %s: no such column; %s", price, named())
		}
		for role, j := range l.index {
			if j == i {
				return because(ErrPriceColumn, "--price %s: that column is read as the %s", price, role)
			}
		}
		chosen = i
	}
	l.collectPrices(chosen)
	if chosen < 0 {
		switch len(l.priceColumns) {
		case 0:
			return because(ErrNoColumn, "no price column: want a column named *_usd_per_hour or price_per_hour, or name one with --price COL")
		case 1:
			chosen = byName[strings.ToLower(strings.TrimSpace(l.priceColumns[0]))]
		default:
			return because(ErrPriceColumn, "%d price columns (%s): pick one with --price COL", len(l.priceColumns), strings.Join(l.priceColumns, ", "))
		}
	}
	l.index[RolePrice] = chosen
	return nil
}

// collectPrices lists the price columns in file order: those named as
// prices, and chosen (a column --price named) whatever its name.
func (l *layout) collectPrices(chosen int) {
	l.priceColumns = nil
	for i, h := range l.header {
		if i == chosen || isPriceColumn(strings.ToLower(strings.TrimSpace(h))) {
			l.priceColumns = append(l.priceColumns, strings.TrimSpace(h))
		}
	}
}

// columns is Catalog.Columns: each role read and the column read for it.
func (l *layout) columns() map[string]string {
	m := make(map[string]string, len(l.index))
	for r, i := range l.index {
		m[r] = strings.TrimSpace(l.header[i])
	}
	return m
}
