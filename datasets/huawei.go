package datasets

import (
	"context"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "huawei",
		Summary: "Huawei Cloud VM requests (Huawei-East-1-lt.csv: vmid,cpu,mem,at,lt)",
		Help: `One CSV with a header: vmid, cpu (vCPUs), mem (GB), at (arrival, s from trace start),
lt (lifetime, s). Every VM is its own tenant, priority 0; VM types are the distinct
(cpu, mem) flavors, named like c4m16. VMs still alive at the end are absent from the
source (right-censored). An arrival or end (at + lt) beyond ±30 years
(MaxTraceSeconds) is rejected. A row with more fields than the header is rejected; a
header column other than these five is not read (a warning names it), and a file with
a header and no rows loads as 0 rows with a warning. The trace has no servers: give
--inventory.`,
		Load: loadHuawei,
	})
}

func loadHuawei(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	types := newVMTypes(w)
	rej := rejecter{w, opts.MaxRejects}
	seen := map[string]struct{}{}
	var vmID int64
	err := eachFile(paths, opts.Progress, func(src *source) error {
		c, err := newCSV(src, ',', true)
		if err != nil {
			return err
		}
		var idx [5]int
		cols := []string{"vmid", "cpu", "mem", "at", "lt"}
		for i, name := range cols {
			if idx[i], err = c.col(name); err != nil {
				return err
			}
		}
		if err := c.known(w, "huawei", cols...); err != nil {
			return err
		}
		return c.each(ctx, rej, func() error {
			id, err := c.str(idx[0], "vmid")
			if err != nil {
				return err
			}
			if id == "" {
				return c.errf("vmid", "", ErrMissingField)
			}
			cpu, err := c.positive(idx[1], "cpu")
			if err != nil {
				return err
			}
			mem, err := c.positive(idx[2], "mem")
			if err != nil {
				return err
			}
			at, err := c.seconds(idx[3], "at", 1)
			if err != nil {
				return err
			}
			lt, err := c.float(idx[4], "lt")
			if err != nil {
				return err
			}
			if lt < 0 {
				return c.errf("lt", c.rec[idx[4]], ErrEndBeforeStart)
			}
			if err := c.checkTime(idx[4], "lt", at+lt); err != nil {
				return err // the VM would end beyond the bound
			}
			if _, dup := seen[id]; dup {
				return c.errf("vmid", id, ErrDuplicateID)
			}
			seen[id] = struct{}{}
			typ, err := types.name(typeShape{cores: cpu, mem: mem})
			if err != nil {
				return err
			}
			if err := w.Append("vm", vmID, id, id, nil, typ, int16(0), at, at+lt, nil, nil, nil, nil, nil); err != nil {
				return err
			}
			vmID++
			w.Counts.RowsLoaded++
			return nil
		})
	})
	if err != nil {
		return err
	}
	return attachInventory(w, opts)
}
