package synth

import (
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"

	store "placelab/sql"
)

// Spec kinds.
const (
	SpecSynthetic = "synthetic"
	SpecShape     = "shape"
	SpecPerSKU    = "per-sku"
)

// Spec is a parsed inventory spec (see WriteInventory for the grammar).
type Spec struct {
	Kind  string // SpecSynthetic, SpecShape or SpecPerSKU
	Shape SKU    // for SpecShape
	N     int    // machines (per SKU for SpecPerSKU)
}

// ParseSpec parses an inventory spec; errors wrap ErrBadSpec and name the
// part that is wrong.
func ParseSpec(spec string) (Spec, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrBadSpec, spec, fmt.Sprintf(format, args...))
	}
	parts := strings.Split(strings.TrimSpace(spec), ":")
	count := func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return 0, bad("machine count %q is not a positive integer", s)
		}
		if n > MaxMachines {
			return 0, bad("machine count %d is more than %d", n, MaxMachines)
		}
		return n, nil
	}
	kind := strings.TrimSpace(parts[0])
	switch kind {
	case SpecSynthetic, SpecPerSKU:
		if len(parts) != 2 {
			return Spec{}, bad("want %s:N", kind)
		}
		n, err := count(parts[1])
		return Spec{Kind: kind, N: n}, err
	case SpecShape:
		if len(parts) != 3 {
			return Spec{}, bad("want shape:NAME:N or shape:cores=C,memory=M[,ssd=S,hdd=H,nic=G,gpus=K]:N")
		}
		n, err := count(parts[2])
		if err != nil {
			return Spec{}, err
		}
		shape, err := parseShape(strings.TrimSpace(parts[1]), bad)
		return Spec{Kind: kind, Shape: shape, N: n}, err
	case "":
		return Spec{}, bad("empty")
	}
	return Spec{}, bad("unknown kind %q (want %s, %s or %s)", kind, SpecSynthetic, SpecShape, SpecPerSKU)
}

var shapeKeys = []string{"cores", "memory", "ssd", "hdd", "nic", "gpus"}

func parseShape(s string, bad func(string, ...any) error) (SKU, error) {
	if !strings.Contains(s, "=") {
		for _, sk := range Shapes() {
			if s == sk.Name {
				return sk, nil
			}
		}
		var names []string
		for _, sk := range Shapes() {
			names = append(names, sk.Name)
		}
		return SKU{}, bad("unknown shape %q (known: %s, or cores=C,memory=M,...)", s, strings.Join(names, ", "))
	}
	vals := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.TrimSpace(k)
		if !ok {
			return SKU{}, bad("shape field %q is not key=value", kv)
		}
		known := false
		for _, sk := range shapeKeys {
			known = known || k == sk
		}
		if !known {
			return SKU{}, bad("unknown shape key %q (known: %s)", k, strings.Join(shapeKeys, ", "))
		}
		if _, dup := vals[k]; dup {
			return SKU{}, bad("shape key %q given twice", k)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return SKU{}, bad("shape %s=%q is not a non-negative number", k, v)
		}
		vals[k] = x
	}
	for _, k := range []string{"cores", "memory"} {
		if vals[k] <= 0 {
			return SKU{}, bad("shape needs %s > 0", k)
		}
	}
	sku := SKU{
		Cores: vals["cores"], MemoryGB: vals["memory"], SSDGB: vals["ssd"],
		HDDGB: vals["hdd"], NICGbps: vals["nic"], GPUs: vals["gpus"],
	}
	name := "c" + fnum(sku.Cores) + "m" + fnum(sku.MemoryGB)
	for _, p := range []struct {
		tag string
		v   float64
	}{{"s", sku.SSDGB}, {"h", sku.HDDGB}, {"n", sku.NICGbps}, {"g", sku.GPUs}} {
		if p.v > 0 {
			name += p.tag + fnum(p.v)
		}
	}
	sku.Name = "shape-" + name
	return sku, nil
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// WriteInventory writes the sku and machine rows that spec describes into
// the ingest w and returns how many machines it wrote. spec is one of:
//
//	synthetic:N                                      the synthetic zone (NewZone) of N machines: Protean
//	                                                 Table 1's generations gen3–gen6 in proportion
//	shape:NAME:N                                     N machines of a named shape: gen3, gen4, gen5, gen6
//	shape:cores=C,memory=M[,ssd=S,hdd=H,nic=G,gpus=K]:N
//	                                                 N machines of a custom shape (GB, Gbit/s, devices),
//	                                                 written as SKU "shape-c<C>m<M>[s<S>h<H>n<G>g<K>]"
//	per-sku:N                                        N machines of every SKU already written to this
//	                                                 ingest's sku table (e.g. the Azure packing trace's
//	                                                 machine types); writes no sku rows
//
// with 1 <= N <= MaxMachines. Machines are laid out as in NewZone: clusters
// of at most 1,000 machines of one SKU, racks of at most 40, update domains
// and a small random share (seeded by seed) of unhealthy and offline
// machines. Machine ids continue after any already in the ingest. Errors
// from a bad spec wrap ErrBadSpec and name the part that is wrong.
func WriteInventory(w *store.Writer, spec string, seed int64) (machines int, err error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return 0, err
	}
	rng := stream(uint64(seed), streamInventory)
	var skus []SKU
	var groups []group
	switch s.Kind {
	case SpecSynthetic:
		z, err := NewZone(s.N, uint64(seed))
		if err != nil {
			return 0, err
		}
		first, err := NextMachineID(w)
		if err != nil {
			return 0, err
		}
		if err := writeSKUs(w, z.SKUs); err != nil {
			return 0, err
		}
		for i := range z.Machines {
			z.Machines[i].ID += first
		}
		return len(z.Machines), writeMachines(w, z.Machines, nil)
	case SpecShape:
		skus = []SKU{s.Shape}
		groups = []group{{s.Shape.Name, s.N}}
	case SpecPerSKU:
		err := w.QueryRows("SELECT sku FROM sku WHERE load_id = $1 ORDER BY sku", func(row []driver.Value) error {
			groups = append(groups, group{row[0].(string), s.N})
			return nil
		}, w.LoadID())
		if err != nil {
			return 0, fmt.Errorf("synth: inventory %q: reading sku table: %w", spec, err)
		}
		if len(groups) == 0 {
			return 0, fmt.Errorf("%w %q: this ingest has written no sku rows to give machines to", ErrBadSpec, spec)
		}
	}
	first, err := NextMachineID(w)
	if err != nil {
		return 0, err
	}
	if err := writeSKUs(w, skus); err != nil {
		return 0, err
	}
	ms := layout(groups, first, rng)
	return len(ms), writeMachines(w, ms, nil)
}

// NextMachineID is one more than the largest machine id already in the
// ingest (0 if none): where the machines an inventory adds start.
func NextMachineID(w *store.Writer) (int, error) {
	next := 0
	err := w.QueryRows("SELECT coalesce(max(machine_id) + 1, 0) FROM machine WHERE load_id = $1", func(row []driver.Value) error {
		switch v := row[0].(type) {
		case int64:
			next = int(v)
		case int32:
			next = int(v)
		}
		return nil
	}, w.LoadID())
	if err != nil {
		return 0, fmt.Errorf("synth: reading machine ids: %w", err)
	}
	return next, nil
}

func writeSKUs(w *store.Writer, skus []SKU) error {
	for _, s := range skus {
		var gen, model any
		if s.Generation > 0 {
			gen = int32(s.Generation)
		}
		if s.GPUModel != "" {
			model = s.GPUModel
		}
		if err := w.Append("sku", s.Name, gen, s.Cores, s.MemoryGB, s.SSDGB, s.HDDGB, s.NICGbps, s.GPUs, model); err != nil {
			return fmt.Errorf("synth: sku %s: %w", s.Name, err)
		}
	}
	return nil
}

func writeMachines(w *store.Writer, ms []Machine, tick func()) error {
	for _, m := range ms {
		if err := w.Append("machine", int32(m.ID), m.Name, m.Zone, m.Datacenter, m.Cluster, m.Rack,
			int16(m.UpdateDomain), m.SKU, m.Health); err != nil {
			return fmt.Errorf("synth: machine %d: %w", m.ID, err)
		}
		if tick != nil {
			tick()
		}
	}
	return nil
}
