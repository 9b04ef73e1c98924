package datasets

import (
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"

	store "placelab/sql"
)

// Warnings of a workload file (ingest placelab): what loads, because it can
// be true of a real fleet, but a planner should know before trusting an
// answer. Each is one store.Warning per file however many rows raise it,
// with their count, the first in Object and Row and a few more named.
const (
	// WarnVMFitsNoSKU: a VM larger than every SKU of the inventory in some
	// dimension (or than each SKU in a different one): no machine can host
	// it, so every replay rejects it.
	WarnVMFitsNoSKU = "vm-fits-no-sku"
	// WarnMachineOverCapacity: the VMs the file records on a machine sum to
	// more than its SKU's capacity in a dimension at some instant (the
	// observed run breaks capacity; placelab check reports it too).
	WarnMachineOverCapacity = "machine-over-capacity"
	// WarnVMOnUnhealthyMachine: a VM recorded on a machine the inventory
	// marks offline or unhealthy.
	WarnVMOnUnhealthyMachine = "vm-on-unhealthy-machine"
	// WarnVMZeroCores and WarnVMZeroMemory: a VM asking for 0 cores or
	// 0 GB of memory takes no room in that dimension, so it fits anywhere.
	WarnVMZeroCores  = "vm-zero-cores"
	WarnVMZeroMemory = "vm-zero-memory"
)

// warnExamples is how many rows or machines a warning names; the rest are
// counted.
const warnExamples = 3

// sizeDims are the size dimensions in the order a message gives them: the
// file's column and the unit a message writes after the number.
var sizeDims = [...]struct{ col, unit string }{
	{"cores", "cores"}, {"memory_gb", "GB memory"}, {"ssd_gb", "GB SSD"},
	{"hdd_gb", "GB HDD"}, {"nic_gbps", "Gbit/s NIC"}, {"gpus", "GPUs"},
}

// sizes are a shape's sizes in sizeDims order.
func (s typeShape) sizes() [6]float64 { return [6]float64{s.cores, s.mem, s.ssd, s.hdd, s.nic, s.gpus} }

// shapeText writes a shape in the user's units: cores and memory always,
// the other sizes when not 0.
func shapeText(s typeShape) string {
	var parts []string
	for i, x := range s.sizes() {
		if i < 2 || x != 0 {
			parts = append(parts, sizeText(i, x))
		}
	}
	return strings.Join(parts, ", ")
}

// sizeText writes x in dimension i's unit ("1 core", "4 cores", "16 GB memory").
func sizeText(i int, x float64) string {
	unit := sizeDims[i].unit
	if x == 1 && (i == 0 || i == 5) {
		unit = strings.TrimSuffix(unit, "s")
	}
	return amount(x) + " " + unit
}

// amount writes a size rounded to 3 decimals, without trailing zeros.
func amount(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
}

// warnCount gathers the occurrences of one warning.
type warnCount struct {
	code     string
	first    store.Warning
	n        int64
	examples []string
}

// add counts one occurrence, kept as an example among the first few.
func (c *warnCount) add(object string, row int64, example string) {
	if c.n == 0 {
		c.first.Object, c.first.Row = object, row
	}
	c.n++
	if len(c.examples) < warnExamples {
		c.examples = append(c.examples, example)
	}
}

// warn records the warning, if any occurrence was counted: summary(n) then
// the examples and how many more.
func (c *warnCount) warn(w *store.Writer, source string, summary func(n int64) string) error {
	if c.n == 0 {
		return nil
	}
	msg := summary(c.n) + ": " + strings.Join(c.examples, "; ")
	if more := c.n - int64(len(c.examples)); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	wa := c.first
	wa.Source, wa.Code, wa.Message, wa.Count = source, c.code, msg, c.n
	return w.Warn(wa)
}

// plural writes n and the noun, with s when n ≠ 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// agree is one for n = 1, else many (a verb agreeing with its count).
func agree(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// warnWorkload records the workload file's warnings once its rows, its
// types' demand (derive_type_demand) and its observed run are written:
// rows and shapes are by vm_id, health by machine_id, obs the recorded
// placements.
func warnWorkload(w *store.Writer, path string, rows []workloadRow, shapes []typeShape, health map[int32]string, obs []observedPlacement) error {
	names := map[int32]string{}
	if err := w.QueryRows("SELECT machine_id, name FROM machine WHERE load_id = $1", func(r []driver.Value) error {
		names[r[0].(int32)], _ = r[1].(string)
		return nil
	}, w.LoadID()); err != nil {
		return err
	}
	vmText := func(vm int64) string {
		return fmt.Sprintf("%s (row %d: %s)", rows[vm].id, rows[vm].row, shapeText(shapes[vm]))
	}

	// VMs no SKU can host.
	fits := warnCount{code: WarnVMFitsNoSKU}
	if err := w.QueryRows(store.MustQuery("ingest_fits_no_sku"), func(r []driver.Value) error {
		vm := r[0].(int64)
		var why []string
		for i := range sizeDims {
			size, _ := r[1+i].(float64)
			top, _ := r[7+i].(float64)
			if size > top {
				why = append(why, fmt.Sprintf("more %s than any SKU (at most %s)", sizeDims[i].unit, amount(top)))
			}
		}
		if len(why) == 0 {
			why = append(why, "no one SKU has all of it")
		}
		fits.add("VM "+rows[vm].id, rows[vm].row, vmText(vm)+": "+strings.Join(why, ", "))
		return nil
	}, w.LoadID()); err != nil {
		return err
	}
	if err := fits.warn(w, path, func(n int64) string {
		return plural(n, "VM") + agree(n, " fits", " fit") + " no SKU of the inventory (every replay rejects " + agree(n, "it)", "them)")
	}); err != nil {
		return err
	}

	// VMs of 0 cores or 0 memory.
	zero := [2]warnCount{{code: WarnVMZeroCores}, {code: WarnVMZeroMemory}}
	for vm, s := range shapes {
		for d, x := range [2]float64{s.cores, s.mem} {
			if x == 0 {
				zero[d].add("VM "+rows[vm].id, rows[vm].row, vmText(int64(vm)))
			}
		}
	}
	for d := range zero {
		unit := sizeDims[d].unit
		if err := zero[d].warn(w, path, func(n int64) string {
			return fmt.Sprintf("%s %s for 0 %s (%s none, so %s anywhere)", plural(n, "VM"), agree(n, "asks", "ask"), unit,
				agree(n, "it takes", "they take"), agree(n, "it fits", "they fit"))
		}); err != nil {
			return err
		}
	}

	// VMs recorded on machines out of service.
	down := warnCount{code: WarnVMOnUnhealthyMachine}
	for _, p := range obs {
		if h := health[p.machine]; h != "healthy" {
			down.add("VM "+rows[p.vm].id, rows[p.vm].row,
				fmt.Sprintf("%s (row %d) on %s (%s)", rows[p.vm].id, rows[p.vm].row, names[p.machine], h))
		}
	}
	if err := down.warn(w, path, func(n int64) string {
		return plural(n, "VM") + agree(n, " is", " are") + " recorded on machines the inventory marks offline or unhealthy"
	}); err != nil {
		return err
	}

	// Machines the recorded VMs fill beyond capacity.
	if w.Counts.ObservedRun == 0 {
		return nil
	}
	over := warnCount{code: WarnMachineOverCapacity}
	var cur *overMachine
	flush := func() {
		if cur != nil {
			over.add("machine "+cur.name, cur.row, cur.text())
		}
	}
	if err := w.QueryRows(store.MustQuery("ingest_recorded_overload"), func(r []driver.Value) error {
		id := r[0].(int32)
		if cur == nil || cur.id != id {
			flush()
			cur = &overMachine{id: id}
			cur.name, _ = r[1].(string)
			cur.sku, _ = r[2].(string)
		}
		dim, _ := r[3].(string)
		capacity, _ := r[4].(float64)
		peak, _ := r[5].(float64)
		at, _ := r[6].(float64)
		load := dim + " " + amount(peak) + " of " + amount(capacity)
		for i, d := range sizeDims {
			if d.col == dim {
				load = amount(peak) + " of its " + sizeText(i, capacity)
			}
		}
		if capacity > 0 {
			load += fmt.Sprintf(" (%.1f%%)", 100*peak/capacity)
		}
		cur.loads = append(cur.loads, load+fmt.Sprintf(" at t = %s s", amount(at)))
		if cur.vms == nil {
			vms, _ := r[7].([]any)
			for _, v := range vms {
				vm, _ := v.(int64)
				cur.vms = append(cur.vms, vm)
			}
			if len(cur.vms) > 0 {
				cur.row = rows[cur.vms[0]].row
			}
			for i, vm := range cur.vms {
				if i == warnExamples {
					cur.vmText = append(cur.vmText, fmt.Sprintf("and %d more", len(cur.vms)-i))
					break
				}
				cur.vmText = append(cur.vmText, vmText(vm))
			}
		}
		return nil
	}, w.LoadID(), w.Counts.ObservedRun); err != nil {
		return err
	}
	flush()
	return over.warn(w, path, func(n int64) string {
		return plural(n, "machine") + agree(n, " holds", " hold") + " recorded VMs beyond " + agree(n, "its", "their") + " SKU's capacity"
	})
}

// overMachine is one machine of the machine-over-capacity warning: its
// loads over capacity per dimension and the VMs on it at the first one's
// peak (largest first).
type overMachine struct {
	id        int32
	name, sku string
	row       int64
	loads     []string
	vms       []int64
	vmText    []string
}

func (m *overMachine) text() string {
	return fmt.Sprintf("%s (SKU %s) holds %s; on it then: %s", m.name, m.sku, strings.Join(m.loads, " and "), strings.Join(m.vmText, ", "))
}
