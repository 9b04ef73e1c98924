package outage

import (
	"fmt"
	"math"
	"math/rand/v2"

	"placelab/optimizer"
)

// interruptStream is the PCG stream selector of the interruption process,
// apart from the machine and rack streams, so that adding interruptions
// does not reshuffle the other draws.
const interruptStream = 0x696e74657272 // "interr"

// Interruptions are spot or preemptible capacity taken back by its cloud:
// per SKU name, interruptions per machine-year of each machine of that SKU
// (a catalog's interruptions_per_year). An interruption is a hard outage
// of one machine — its VMs must be healed elsewhere — lasting a repair
// time drawn as a hard machine failure's (the replacement node joining);
// SKUs not named are never interrupted.
type Interruptions map[string]float64

// Validate refuses a rate out of [0, MaxAFR].
func (in Interruptions) Validate() error {
	for sku, r := range in {
		if math.IsNaN(r) || r < 0 || r > MaxAFR {
			return fmt.Errorf("%w: interruptions of %s = %v per machine-year: want [0, %g]", ErrBadModel, sku, r, MaxAFR)
		}
	}
	return nil
}

// interruptEvents draws the interruptions of inv's healthy machines over
// [from, to): for each SKU in inventory order with a rate r, a Poisson
// process of rate n·r per year over its n healthy machines, each event's
// machine drawn uniformly among them, all from one stream of seed.
func (m Model) interruptEvents(inv *optimizer.Inventory, in Interruptions, from, to float64, seed uint64) []Outage {
	if len(in) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, interruptStream))
	var out []Outage
	for k, sku := range inv.SKUs {
		r := in[sku.Name]
		if r <= 0 {
			continue
		}
		var ms []int32
		for i, mc := range inv.Machines {
			if mc.Healthy && int(mc.SKU) == k {
				ms = append(ms, int32(i))
			}
		}
		if len(ms) == 0 {
			continue
		}
		rate := float64(len(ms)) * r / YearSeconds
		for t := from + rng.ExpFloat64()/rate; t < to; t += rng.ExpFloat64() / rate {
			out = append(out, Outage{Start: t, Machine: ms[rng.IntN(len(ms))], Rack: -1, Kind: Hard,
				Duration: m.Repair.draw(rng, m.RepairMedianH*3600, m.RepairSigma)})
		}
	}
	sortOutages(out)
	return out
}
