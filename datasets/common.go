package datasets

import (
	"fmt"
	"strconv"

	"placelab/datasets/synth"
	store "placelab/sql"
)

// vmTypes registers VM types by nominal size while a loader reads, writing
// each new type's vm_type row once.
type vmTypes struct {
	w     *store.Writer
	names map[typeShape]string
}

type typeShape struct {
	family                          string
	cores, mem, ssd, hdd, nic, gpus float64
}

func newVMTypes(w *store.Writer) *vmTypes {
	return &vmTypes{w: w, names: map[typeShape]string{}}
}

// name returns the type name for a shape, writing a vm_type row the first
// time. Names read like "c4m16" (+ "g1" for GPUs), prefixed by the family.
func (t *vmTypes) name(s typeShape) (string, error) {
	if n, ok := t.names[s]; ok {
		return n, nil
	}
	n := s.family + "c" + fnum(s.cores) + "m" + fnum(s.mem)
	if s.gpus > 0 {
		n += "g" + fnum(s.gpus)
	}
	t.names[s] = n
	return n, t.w.Append("vm_type", n, nullStr(s.family), s.cores, s.mem, s.ssd, s.hdd, s.nic, s.gpus)
}

// named registers a type under an explicit name.
func (t *vmTypes) named(name string, s typeShape) error {
	if _, ok := t.names[s]; ok {
		return nil
	}
	t.names[s] = name
	return t.w.Append("vm_type", name, nullStr(s.family), s.cores, s.mem, s.ssd, s.hdd, s.nic, s.gpus)
}

// fnum formats a size for a type name: the shortest form that reads back
// as the same float, so distinct sizes never share a name.
func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullFloat(v float64, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// attachInventory writes the --inventory machines (if any) — from an
// inventory file (see InventoryFilePath) or a synthetic spec — and derives
// every VM type's per-SKU demand from its nominal size.
func attachInventory(w *store.Writer, opts Options) error {
	if opts.Inventory == "" {
		return nil
	}
	var err error
	if path, ok := InventoryFilePath(opts.Inventory); ok {
		_, err = WriteInventoryFile(w, path)
	} else {
		_, err = synth.WriteInventory(w, opts.Inventory, opts.Seed)
	}
	if err != nil {
		return fmt.Errorf("datasets: --inventory %q: %w", opts.Inventory, err)
	}
	return deriveDemand(w)
}

// writeSyntheticInventory writes the machines of a synthetic --inventory
// spec.
func writeSyntheticInventory(w *store.Writer, opts Options) error {
	_, err := synth.WriteInventory(w, opts.Inventory, opts.Seed)
	return err
}

// deriveDemand fills vm_type_demand from nominal sizes and SKU capacities.
func deriveDemand(w *store.Writer) error {
	return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
}

// files opens each path in turn, reporting progress across all of them.
func eachFile(paths []string, report Progress, fn func(src *source) error) error {
	total := totalSize(paths)
	var base int64
	for _, p := range paths {
		src, err := openSource(p)
		if err != nil {
			return err
		}
		src.report, src.base, src.total = report, base, total
		err = fn(src)
		src.tick()
		base += src.size
		src.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
