package replay

import "placelab/optimizer"

// What became of a VM of a rejected multi-VM request (gang allocation: all
// of its VMs or none; table gang_vm).
const (
	// GangRolledBack: the VM had a machine, and lost it when a later VM
	// of its request found none.
	GangRolledBack = "rolled_back"
	// GangFailed: the VM that found no machine, failing the request.
	GangFailed = "failed"
	// GangNotTried: the request failed before the VM's turn.
	GangNotTried = "not_tried"
)

// GangVM is one VM of a rejected request of several VMs, in the order
// Algorithm 1 tried them (Position, from 0). Machine is the database
// machine_id a rolled-back VM held until the rollback (-1 otherwise).
type GangVM struct {
	Request  int64
	VM       int64
	Position int
	Role     string
	Machine  int32
}

// gangRows is the GangVM rows of request req that failed as g says; none
// for a request of one VM (nothing to roll back or leave untried).
func gangRows(tr *Trace, req int64, g *optimizer.GangFailure) []GangVM {
	if g == nil || len(g.Order) < 2 {
		return nil
	}
	out := make([]GangVM, len(g.Order))
	for i, vm := range g.Order {
		row := GangVM{Request: req, VM: vm, Position: i, Role: GangNotTried, Machine: -1}
		switch {
		case i < g.Tried-1:
			row.Role, row.Machine = GangRolledBack, tr.MachineIDs[g.RolledBack[i]]
		case i == g.Tried-1:
			row.Role = GangFailed
		}
		out[i] = row
	}
	return out
}
