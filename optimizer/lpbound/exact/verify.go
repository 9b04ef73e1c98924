package exact

import (
	"fmt"
	"math"

	"placelab/optimizer/lpbound"
)

// Verify checks that machines pack p: every machine names a bin type of p
// and holds only item types of p that fit it, in positive numbers, within
// its capacity in every dimension (up to lpbound.FitSlack, the rule of
// lpbound); no bin type has more machines than its limit; every item type
// is placed exactly Count times. It returns the packing's cost under obj,
// or an error wrapping ErrVerify that names the first fault (or the
// error of an invalid p).
func Verify(p *lpbound.Problem, obj lpbound.Objective, machines []Machine) (float64, error) {
	in, err := newInst(p, obj)
	if err != nil {
		return 0, err
	}
	binOf := map[string]int{}
	for k, b := range in.bins {
		binOf[b.name] = k
	}
	// Every named item type, including those with Count 0 (which must not
	// be placed); itemOf maps to in.items or -1.
	itemOf := map[string]int{}
	for i, it := range p.Items {
		itemOf[typeName(it.Name, i)] = -1
	}
	for i, it := range in.items {
		itemOf[it.name] = i
	}
	placed := make([]int, len(in.items))
	used := make([]int, len(in.bins))
	cost := 0.0
	for mi, mc := range machines {
		k, ok := binOf[mc.Bin]
		if !ok {
			return 0, fmt.Errorf("%w: machine %d: unknown bin type %q", ErrVerify, mi, mc.Bin)
		}
		b := in.bins[k]
		used[k]++
		cost += b.cost
		load := make([]float64, in.dims)
		for name, c := range mc.Items {
			i, ok := itemOf[name]
			switch {
			case !ok:
				return 0, fmt.Errorf("%w: machine %d (%s): unknown item type %q", ErrVerify, mi, b.name, name)
			case c <= 0:
				return 0, fmt.Errorf("%w: machine %d (%s): %d copies of item type %q", ErrVerify, mi, b.name, c, name)
			case i < 0:
				return 0, fmt.Errorf("%w: machine %d (%s): item type %q has no demand", ErrVerify, mi, b.name, name)
			}
			s := in.items[i].size[k]
			if s == nil {
				return 0, fmt.Errorf("%w: machine %d (%s): item type %q does not fit this bin type", ErrVerify, mi, b.name, name)
			}
			for j := range load {
				load[j] += float64(c) * s[j]
			}
			placed[i] += c
		}
		for j, l := range load {
			if l > b.cap[j]+lpbound.FitSlack {
				return 0, fmt.Errorf("%w: machine %d (%s): load %g > capacity %g in dimension %d", ErrVerify, mi, b.name, l, b.cap[j], j)
			}
		}
	}
	for k, b := range in.bins {
		if b.limit > 0 && used[k] > b.limit {
			return 0, fmt.Errorf("%w: %d machines of bin type %q, limit %d", ErrVerify, used[k], b.name, b.limit)
		}
	}
	for i, it := range in.items {
		if placed[i] != it.count {
			return 0, fmt.Errorf("%w: item type %q placed %d times, count %d", ErrVerify, it.name, placed[i], it.count)
		}
	}
	if math.IsNaN(cost) {
		return 0, fmt.Errorf("%w: cost NaN", ErrVerify)
	}
	return cost, nil
}
