package outage

import (
	"fmt"
	"math"
	"math/rand/v2"

	"placelab/optimizer"
)

// PCG stream selectors of the two failure processes: the machine process and
// the rack process draw from separate streams of the run's seed, so changing
// one process's rate does not reshuffle the other's draws.
const (
	machineStream = 0x6d616368696e65 // "machine"
	rackStream    = 0x7261636b       // "rack"
)

// Generate draws the model's unplanned outages over [from, to) (seconds),
// sorted by (Start, Machine). It is deterministic: the same inventory,
// model, window and seed give the same outages.
//
// Only machines Healthy in the inventory fail. Machine failures are a
// Poisson process of rate n·MachineAFR per year (n healthy machines; the
// superposition of n per-machine processes), the machine drawn uniformly;
// each is a Reboot of RebootMin with probability RebootShare, else a Hard
// failure whose duration is drawn from the repair distribution
// (Repair, RepairMedianH, RepairSigma). Rack failures are a Poisson process
// of rate r·RackAFR per year over the r racks with a healthy machine, the
// rack drawn uniformly; each is one Hard outage, of one duration drawn from
// (Repair, RackRepairMedianH, RackRepairSigma), for every healthy machine of
// the rack, all with Rack set to the rack's index. A year is YearSeconds.
//
// Overlaps are resolved in time order, first come first served: a down
// machine cannot fail again, so a machine failure that starts while an
// outage already drawn for that machine runs is dropped, and a rack failure
// is recorded only for the rack's machines that are up at its start (it
// extends no outage already running). Outages are half-open: a failure at
// the instant a machine comes back is kept. An outage that starts before to
// keeps its whole duration even when it ends after to.
//
// Generate panics if m is invalid (m.Validate) or if from or to is not
// finite: both are programmer errors that a test catches.
func Generate(inv *optimizer.Inventory, m Model, from, to float64, seed uint64) []Outage {
	return GenerateWith(inv, m, nil, from, to, seed)
}

// GenerateWith is Generate with interruptions of spot or preemptible SKUs
// (Interruptions) merged into the machine failures: an interruption is one
// more machine event, dropped like a failure when its machine is already
// down. With none it draws exactly what Generate draws.
func GenerateWith(inv *optimizer.Inventory, m Model, in Interruptions, from, to float64, seed uint64) []Outage {
	if err := m.Validate(); err != nil {
		panic(err)
	}
	if err := in.Validate(); err != nil {
		panic(err)
	}
	if math.IsNaN(from) || math.IsInf(from, 0) || math.IsNaN(to) || math.IsInf(to, 0) {
		panic(fmt.Sprintf("outage: Generate over [%v, %v): the window must be finite", from, to))
	}
	if to <= from {
		return nil
	}
	var healthy []int32
	for i, mc := range inv.Machines {
		if mc.Healthy {
			healthy = append(healthy, int32(i))
		}
	}
	var racks []int32
	for r, rk := range inv.Racks {
		for _, id := range rk.Machines {
			if inv.Machines[id].Healthy {
				racks = append(racks, int32(r))
				break
			}
		}
	}
	machineEvents := m.machineEvents(healthy, from, to, rand.New(rand.NewPCG(seed, machineStream)))
	rackEvents := m.rackEvents(racks, from, to, rand.New(rand.NewPCG(seed, rackStream)))
	if ie := m.interruptEvents(inv, in, from, to, seed); len(ie) > 0 {
		machineEvents = append(machineEvents, ie...)
		sortOutages(machineEvents)
	}

	// Merge the two processes in time order (a rack failure before a
	// machine failure at the same instant) and keep what does not overlap.
	up := make([]float64, len(inv.Machines)) // time each machine is up again
	for i := range up {
		up[i] = math.Inf(-1)
	}
	var out []Outage
	i, j := 0, 0
	for i < len(machineEvents) || j < len(rackEvents) {
		if j < len(rackEvents) && (i == len(machineEvents) || rackEvents[j].Start <= machineEvents[i].Start) {
			e := rackEvents[j]
			j++
			for _, id := range inv.Racks[e.Rack].Machines {
				if inv.Machines[id].Healthy && up[id] <= e.Start {
					o := e
					o.Machine = id
					out = append(out, o)
					up[id] = o.End()
				}
			}
			continue
		}
		e := machineEvents[i]
		i++
		if up[e.Machine] <= e.Start {
			out = append(out, e)
			up[e.Machine] = e.End()
		}
	}
	sortOutages(out)
	return out
}

// machineEvents draws the machine process: every draw is made whether or not
// the event is later dropped, so the stream stays aligned.
func (m Model) machineEvents(healthy []int32, from, to float64, rng *rand.Rand) []Outage {
	rate := float64(len(healthy)) * m.MachineAFR / YearSeconds
	if rate <= 0 {
		return nil
	}
	var out []Outage
	for t := from + rng.ExpFloat64()/rate; t < to; t += rng.ExpFloat64() / rate {
		o := Outage{Start: t, Machine: healthy[rng.IntN(len(healthy))], Rack: -1}
		if rng.Float64() < m.RebootShare {
			o.Kind, o.Duration = Reboot, m.RebootSeconds()
		} else {
			o.Kind, o.Duration = Hard, m.Repair.draw(rng, m.RepairMedianH*3600, m.RepairSigma)
		}
		out = append(out, o)
	}
	return out
}

// rackEvents draws the rack process: one event per rack failure, Machine
// unset (-1) until the merge expands it.
func (m Model) rackEvents(racks []int32, from, to float64, rng *rand.Rand) []Outage {
	rate := float64(len(racks)) * m.RackAFR / YearSeconds
	if rate <= 0 {
		return nil
	}
	var out []Outage
	for t := from + rng.ExpFloat64()/rate; t < to; t += rng.ExpFloat64() / rate {
		r := racks[rng.IntN(len(racks))]
		out = append(out, Outage{Start: t, Machine: -1, Rack: r, Kind: Hard,
			Duration: m.Repair.draw(rng, m.RackRepairMedianH*3600, m.RackRepairSigma)})
	}
	return out
}

// draw is one repair time in seconds with the given median (seconds) and
// log-sigma: lognormal median·e^(σZ); exponential with mean median/ln 2 (its
// median is then the given one); fixed: the median.
func (d Dist) draw(rng *rand.Rand, median, sigma float64) float64 {
	switch d {
	case Exponential:
		return rng.ExpFloat64() * median / math.Ln2
	case Fixed:
		return median
	default:
		return median * math.Exp(sigma*rng.NormFloat64())
	}
}
