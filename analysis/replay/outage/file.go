package outage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"placelab/optimizer"
)

// FileRow is one row of a user's failure file, as datasets.ReadFailureFile
// reads it (the caller converts; this package does not import datasets).
// Exactly one of Machine and Rack names what failed; Kind is "reboot" or
// "hard"; T and Duration are seconds.
type FileRow struct {
	Row                 int // the file's row, for errors and Outage.Row
	T, Duration         float64
	Machine, Rack, Kind string
}

// FromRows turns a failure file's rows into outages sorted by (Start,
// Machine), each with its Row. A machine is named by
// Inventory.Machines[i].Name; a rack by Inventory.Racks[r].Name, or as
// "cluster/rack" (Inventory.Clusters[c].Name + "/" + rack name) when the
// bare name is in more than one cluster. A rack row becomes one outage per
// machine of the rack, all with Rack set. File rows are the user's record
// of what happened: machines are not filtered by Healthy.
//
// Errors (ErrBadFile) name the file, the row and the field: an unknown
// machine or rack, an ambiguous bare rack name (qualify it as
// cluster/rack), a machine name that the inventory gives to two machines,
// a row with both or neither of machine and rack, a kind other than reboot
// or hard, a time that is not finite, a duration that is not finite and
// > 0, and two outages of one machine that overlap — a rack row counts for
// each of its machines — which names both rows.
func FromRows(inv *optimizer.Inventory, file string, rows []FileRow) ([]Outage, error) {
	rowErr := func(row int, field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: row %d: field %s: %s", ErrBadFile, file, row, field, fmt.Sprintf(format, args...))
	}
	machines := map[string][]int32{}
	for i, m := range inv.Machines {
		machines[m.Name] = append(machines[m.Name], int32(i))
	}
	bare := map[string][]int32{}
	qualified := map[string]int32{}
	for r, rk := range inv.Racks {
		bare[rk.Name] = append(bare[rk.Name], int32(r))
		qualified[inv.Clusters[rk.Cluster].Name+"/"+rk.Name] = int32(r)
	}
	var out []Outage
	for _, row := range rows {
		if math.IsNaN(row.T) || math.IsInf(row.T, 0) {
			return nil, rowErr(row.Row, "t_s", "%v is not a finite time", row.T)
		}
		if !(row.Duration > 0) || math.IsInf(row.Duration, 1) {
			return nil, rowErr(row.Row, "duration_s", "%v: want a finite duration > 0", row.Duration)
		}
		var kind Kind
		switch row.Kind {
		case "reboot":
			kind = Reboot
		case "hard":
			kind = Hard
		default:
			return nil, rowErr(row.Row, "kind", "%q: want reboot or hard", row.Kind)
		}
		o := Outage{Start: row.T, Duration: row.Duration, Kind: kind, Row: row.Row, Rack: -1}
		switch {
		case row.Machine != "" && row.Rack != "":
			return nil, rowErr(row.Row, "machine", "both machine %q and rack %q: give one per row", row.Machine, row.Rack)
		case row.Machine != "":
			ids := machines[row.Machine]
			switch len(ids) {
			case 0:
				return nil, rowErr(row.Row, "machine", "unknown machine %q", row.Machine)
			case 1:
			default:
				return nil, rowErr(row.Row, "machine", "machine name %q names %d machines of the inventory", row.Machine, len(ids))
			}
			o.Machine = ids[0]
			out = append(out, o)
		case row.Rack != "":
			r, err := lookupRack(inv, bare, qualified, row.Rack)
			if err != nil {
				return nil, rowErr(row.Row, "rack", "%v", err)
			}
			o.Rack = r
			for _, id := range inv.Racks[r].Machines {
				o.Machine = id
				out = append(out, o)
			}
		default:
			return nil, rowErr(row.Row, "machine", "neither machine nor rack: give one per row")
		}
	}
	// Overlaps: per machine in start order, each outage must start at or
	// after the previous one's end.
	byMachine := slices.Clone(out)
	slices.SortFunc(byMachine, func(a, b Outage) int {
		if c := cmp.Compare(a.Machine, b.Machine); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.Row, b.Row)
	})
	for i := 1; i < len(byMachine); i++ {
		a, b := byMachine[i-1], byMachine[i]
		if a.Machine == b.Machine && b.Start < a.End() {
			first, second := a, b
			if second.Row < first.Row {
				first, second = second, first
			}
			field := "machine"
			if second.Rack >= 0 {
				field = "rack"
			}
			return nil, fmt.Errorf("%w: %s: rows %d and %d: field %s: machine %q is down twice at once: [%g, %g) s and [%g, %g) s overlap",
				ErrBadFile, file, first.Row, second.Row, field, inv.Machines[a.Machine].Name,
				first.Start, first.End(), second.Start, second.End())
		}
	}
	sortOutages(out)
	return out, nil
}

// lookupRack resolves a rack name: "cluster/rack" first, then the bare
// name, which must be in one cluster only.
func lookupRack(inv *optimizer.Inventory, bare map[string][]int32, qualified map[string]int32, name string) (int32, error) {
	if r, ok := qualified[name]; ok {
		return r, nil
	}
	rs := bare[name]
	switch len(rs) {
	case 0:
		return 0, fmt.Errorf("unknown rack %q (name a rack as rack or cluster/rack)", name)
	case 1:
		return rs[0], nil
	}
	clusters := make([]string, len(rs))
	for i, r := range rs {
		clusters[i] = inv.Clusters[inv.Racks[r].Cluster].Name
	}
	return 0, fmt.Errorf("rack name %q is ambiguous: it is in clusters %s; qualify it as cluster/rack (e.g. %s/%s)",
		name, strings.Join(clusters, ", "), clusters[0], name)
}
