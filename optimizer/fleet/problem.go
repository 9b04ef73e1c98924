package fleet

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid refuses a malformed Problem.
var ErrInvalid = errors.New("fleet: invalid problem")

// fitSlack is how far a node may exceed an allocatable and still fit: the
// same ε as optimizer.Fits and lpbound.FitSlack.
const fitSlack = 1e-9

// Type is a machine type of the catalog.
type Type struct {
	Name string
	// Cap is the allocatable of one node, per Problem.Dims.
	Cap []float64
	// Price per hour (any currency, the same for every type), > 0.
	Price float64
	// Limit on the nodes of this type; 0 means unlimited.
	Limit int
}

// Group is a set of identical pods or VMs.
type Group struct {
	Name   string
	Demand []float64
	Count  int
	// Allowed[k]: the group may run on Types[k] (its node selector,
	// required affinity and taints). Nil allows every type.
	Allowed []bool
	// AntiKey, when ≥ 0, names the anti-affinity set the group's pods are
	// in: at most MaxPerNode pods of one AntiKey on a node.
	AntiKey    int
	MaxPerNode int
	// Why, when a type is not allowed, says which constraint refused it
	// (for the unplaceable report); optional.
	Why string
}

// Problem is a fleet to choose. Dims names the dimensions of every vector.
type Problem struct {
	Dims   []string
	Types  []Type
	Groups []Group
	// Overhead[k] is what one new node of Types[k] runs before any group
	// (its DaemonSet pods); nil or a nil entry is none.
	Overhead [][]float64
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate checks the shapes and values of p.
func (p *Problem) Validate() error {
	d := len(p.Dims)
	if d == 0 {
		return fmt.Errorf("%w: no dimensions", ErrInvalid)
	}
	if len(p.Types) == 0 {
		return fmt.Errorf("%w: no machine types", ErrInvalid)
	}
	if p.Overhead != nil && len(p.Overhead) != len(p.Types) {
		return fmt.Errorf("%w: %d overheads for %d types", ErrInvalid, len(p.Overhead), len(p.Types))
	}
	seen := map[string]bool{}
	for k, t := range p.Types {
		if t.Name == "" || seen[t.Name] {
			return fmt.Errorf("%w: type %d: empty or duplicate name %q", ErrInvalid, k, t.Name)
		}
		seen[t.Name] = true
		if len(t.Cap) != d {
			return fmt.Errorf("%w: type %s: %d capacities, want %d", ErrInvalid, t.Name, len(t.Cap), d)
		}
		for j, c := range t.Cap {
			if !finite(c) || c < 0 {
				return fmt.Errorf("%w: type %s: %s = %g", ErrInvalid, t.Name, p.Dims[j], c)
			}
		}
		if !finite(t.Price) || t.Price <= 0 {
			return fmt.Errorf("%w: type %s: price %g, want a finite value > 0 (a free type would make any number of its nodes cost nothing)", ErrInvalid, t.Name, t.Price)
		}
		if t.Limit < 0 {
			return fmt.Errorf("%w: type %s: limit %d < 0", ErrInvalid, t.Name, t.Limit)
		}
		if p.Overhead != nil && p.Overhead[k] != nil {
			if len(p.Overhead[k]) != d {
				return fmt.Errorf("%w: type %s: %d overheads, want %d", ErrInvalid, t.Name, len(p.Overhead[k]), d)
			}
			for j, c := range p.Overhead[k] {
				if !finite(c) || c < 0 {
					return fmt.Errorf("%w: type %s: overhead %s = %g", ErrInvalid, t.Name, p.Dims[j], c)
				}
			}
		}
	}
	gseen := map[string]bool{}
	for i, g := range p.Groups {
		if g.Name == "" || gseen[g.Name] {
			return fmt.Errorf("%w: group %d: empty or duplicate name %q", ErrInvalid, i, g.Name)
		}
		gseen[g.Name] = true
		if len(g.Demand) != d {
			return fmt.Errorf("%w: group %s: %d demands, want %d", ErrInvalid, g.Name, len(g.Demand), d)
		}
		for j, c := range g.Demand {
			if !finite(c) || c < 0 {
				return fmt.Errorf("%w: group %s: %s = %g", ErrInvalid, g.Name, p.Dims[j], c)
			}
		}
		if g.Count < 0 {
			return fmt.Errorf("%w: group %s: count %d", ErrInvalid, g.Name, g.Count)
		}
		if g.Allowed != nil && len(g.Allowed) != len(p.Types) {
			return fmt.Errorf("%w: group %s: %d allowed flags for %d types", ErrInvalid, g.Name, len(g.Allowed), len(p.Types))
		}
		if g.AntiKey >= 0 && g.MaxPerNode <= 0 {
			return fmt.Errorf("%w: group %s: anti-affinity key %d with max per node %d", ErrInvalid, g.Name, g.AntiKey, g.MaxPerNode)
		}
	}
	return nil
}

// free is type k's allocatable less its overhead; ok false when the
// overhead alone does not fit.
func (p *Problem) free(k int) ([]float64, bool) {
	t := p.Types[k]
	out := make([]float64, len(t.Cap))
	ok := true
	for j, c := range t.Cap {
		out[j] = c
		if p.Overhead != nil && p.Overhead[k] != nil {
			out[j] -= p.Overhead[k][j]
		}
		if out[j] < -fitSlack {
			ok = false
		}
		out[j] = max(0, out[j])
	}
	return out, ok
}

func fits(demand, room []float64) bool {
	for j, x := range demand {
		if x > room[j]+fitSlack {
			return false
		}
	}
	return true
}
