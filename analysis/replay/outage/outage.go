package outage

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
)

// Sentinel errors; every error of the package wraps one of them.
var (
	ErrBadModel       = errors.New("outage: bad failure model")
	ErrBadMaintenance = errors.New("outage: bad maintenance")
	ErrBadFile        = errors.New("outage: bad failure file")
)

// Kind is what an outage does to the VMs of its machine.
type Kind uint8

const (
	// Reboot is a host reboot: the VMs stay in place, down for the outage.
	Reboot Kind = iota
	// Hard is a hardware failure: the VMs must be moved (service healing);
	// the machine is out of service until repaired.
	Hard
	// Planned is planned maintenance, a host OS update of an update domain
	// (see Maintenance): the VMs stay in place, down for the reboot. Its
	// String is "maintenance"; the constant is not named Maintenance because
	// that is the type of the maintenance schedule.
	Planned
)

var kindNames = [...]string{Reboot: "reboot", Hard: "hard", Planned: "maintenance"}

// String is "reboot", "hard" or "maintenance".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Outage is one machine down over [Start, Start+Duration), in trace seconds.
type Outage struct {
	Start, Duration float64
	Machine         int32 // index into Inventory.Machines
	// Rack is the failed rack's index (Inventory.Racks) for an outage that is
	// part of a rack failure, else -1.
	Rack int32
	Kind Kind
	// Row is the failure file's row the outage comes from, 0 if generated.
	Row int
}

// End is Start + Duration: the machine is back at End.
func (o Outage) End() float64 { return o.Start + o.Duration }

// sortOutages orders outages by (Start, Machine).
func sortOutages(out []Outage) {
	slices.SortFunc(out, func(a, b Outage) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.Machine, b.Machine)
	})
}
