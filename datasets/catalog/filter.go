package catalog

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// Filter keeps the types that pass every one of its clauses (--types). A
// clause is KEY=V1,V2,… (any of the values) or, for a numeric key,
// KEY<=N, KEY>=N, KEY<N or KEY>N; clauses are separated by ';' or spaces.
// The zero Filter keeps every type.
type Filter struct {
	clauses []clause
}

// clause is one KEY OP VALUES of a Filter.
type clause struct {
	key, op string
	values  []string  // text keys; name: path.Match patterns
	nums    []float64 // numeric keys
}

// Filter keys. name takes path.Match patterns (m5.*); family, arch and
// capacity_type exact values (family case-insensitively); gpus, vcpus and
// memory_gib numbers.
const (
	KeyName         = "name"
	KeyFamily       = "family"
	KeyArch         = "arch"
	KeyCapacityType = "capacity_type"
	KeyGPUs         = "gpus"
	KeyVCPUs        = "vcpus"
	KeyMemoryGiB    = "memory_gib"
)

// numericKeys take every operator; the others only '='.
var numericKeys = map[string]func(Type) float64{
	KeyGPUs:      func(t Type) float64 { return t.GPUs },
	KeyVCPUs:     func(t Type) float64 { return t.VCPUs },
	KeyMemoryGiB: func(t Type) float64 { return t.MemoryGiB() },
}

// filterKeys are every key, as the error for an unknown one lists them.
var filterKeys = []string{KeyName, KeyFamily, KeyArch, KeyCapacityType, KeyGPUs, KeyVCPUs, KeyMemoryGiB}

// operators, longest first so that "<=" is not read as "<".
var operators = []string{"<=", ">=", "=", "<", ">"}

// ParseFilter parses a --types filter: "" keeps all; "arch=amd64",
// "family=m5,c5,r5", "arch=amd64;family=m5,c5", "name=m5.* vcpus<=64",
// "gpus>0". Values within a clause are alternatives (OR); clauses must all
// hold (AND). An unknown key, value or syntax is an error naming the clause.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	for _, text := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || unicode.IsSpace(r) }) {
		c, err := parseClause(text)
		if err != nil {
			return Filter{}, fmt.Errorf("%w: clause %q: %s", ErrFilter, text, err)
		}
		f.clauses = append(f.clauses, c)
	}
	return f, nil
}

// parseClause parses one KEY OP VALUES; its errors are the reason alone.
func parseClause(text string) (clause, error) {
	i := strings.IndexAny(text, "<>=")
	if i <= 0 {
		return clause{}, fmt.Errorf("want KEY=VALUES or KEY<=N, KEY>=N, KEY<N, KEY>N (keys: %s)", strings.Join(filterKeys, ", "))
	}
	c := clause{key: strings.ToLower(text[:i])}
	for _, op := range operators {
		if strings.HasPrefix(text[i:], op) {
			c.op = op
			break
		}
	}
	raw := text[i+len(c.op):]
	if raw == "" {
		return clause{}, fmt.Errorf("no value after %s", c.op)
	}
	if strings.ContainsAny(raw, "<>=") {
		return clause{}, fmt.Errorf("one operator per clause; use ';' between clauses")
	}
	values := strings.Split(raw, ",")
	for _, v := range values {
		if v == "" {
			return clause{}, fmt.Errorf("an empty value in %q", raw)
		}
	}
	_, numeric := numericKeys[c.key]
	switch {
	case numeric:
		if c.op != "=" && len(values) > 1 {
			return clause{}, fmt.Errorf("%s takes one number; a list is for =", c.op)
		}
		for _, v := range values {
			x, err := parseNumber(v)
			if err != nil {
				return clause{}, fmt.Errorf("%q is not a number", v)
			}
			c.nums = append(c.nums, x)
		}
		return c, nil
	case c.op != "=":
		return clause{}, fmt.Errorf("%s takes = only (%s is for gpus, vcpus and memory_gib)", c.key, c.op)
	}
	switch c.key {
	case KeyName:
		for _, v := range values {
			if _, err := path.Match(v, ""); err != nil {
				return clause{}, fmt.Errorf("bad pattern %q: %v", v, err)
			}
		}
	case KeyFamily:
	case KeyArch:
		for i, v := range values {
			a, _, ok := normalArch(v)
			if !ok {
				return clause{}, fmt.Errorf("unknown architecture %q: want amd64 or arm64", v)
			}
			values[i] = a
		}
	case KeyCapacityType:
		for i, v := range values {
			ct, ok := normalCapacityType(v)
			if !ok {
				return clause{}, fmt.Errorf("unknown capacity type %q: want on-demand, spot or preemptible", v)
			}
			values[i] = ct
		}
	default:
		return clause{}, fmt.Errorf("unknown key %q: want one of %s", c.key, strings.Join(filterKeys, ", "))
	}
	c.values = values
	return c, nil
}

// Keep reports whether t passes every clause.
func (f Filter) Keep(t Type) bool {
	for _, c := range f.clauses {
		if !c.keep(t) {
			return false
		}
	}
	return true
}

// keep reports whether t passes c.
func (c clause) keep(t Type) bool {
	if get, ok := numericKeys[c.key]; ok {
		x := get(t)
		for _, n := range c.nums {
			if compare(x, c.op, n) {
				return true
			}
		}
		return false
	}
	for _, v := range c.values {
		switch c.key {
		case KeyName:
			if ok, _ := path.Match(v, t.Name); ok { // patterns checked by ParseFilter
				return true
			}
		case KeyFamily:
			if strings.EqualFold(v, t.Family) {
				return true
			}
		case KeyArch:
			if v == t.Arch {
				return true
			}
		case KeyCapacityType:
			if v == t.CapacityType {
				return true
			}
		}
	}
	return false
}

// compare is x op n.
func compare(x float64, op string, n float64) bool {
	switch op {
	case "<=":
		return x <= n
	case ">=":
		return x >= n
	case "<":
		return x < n
	case ">":
		return x > n
	}
	return x == n
}

// String is the filter in canonical form: its clauses joined by ';', each
// with its values as parsed (arch and capacity type in their canonical
// spelling); "" for the filter that keeps all.
func (f Filter) String() string {
	parts := make([]string, len(f.clauses))
	for i, c := range f.clauses {
		vals := c.values
		if vals == nil {
			for _, n := range c.nums {
				vals = append(vals, strconv.FormatFloat(n, 'g', -1, 64))
			}
		}
		parts[i] = c.key + c.op + strings.Join(vals, ",")
	}
	return strings.Join(parts, ";")
}

// IsZero reports whether f keeps every type.
func (f Filter) IsZero() bool { return len(f.clauses) == 0 }

// Filter is the catalog of the types f keeps, in file order, with
// TypesFilter set to f; an error when it keeps none, naming the filter.
func (c *Catalog) Filter(f Filter) (*Catalog, error) {
	out := *c
	out.Types = make([]Type, 0, len(c.Types))
	for _, t := range c.Types {
		if f.Keep(t) {
			out.Types = append(out.Types, t)
		}
	}
	if len(out.Types) == 0 {
		return nil, because(ErrNothingLeft, "catalog %s: no type of %d passes --types %q", c.File, len(c.Types), f.String())
	}
	switch {
	case f.IsZero():
	case c.TypesFilter == "":
		out.TypesFilter = f.String()
	default:
		out.TypesFilter = c.TypesFilter + ";" + f.String()
	}
	return &out, nil
}
