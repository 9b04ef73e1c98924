package k8sgen

import "fmt"

// Options size a synthetic cluster.
type Options struct {
	// Nodes is the number of nodes, control plane included (at least
	// MinNodes).
	Nodes int
	// Pods is the number of Running and Pending pods, DaemonSet and static
	// pods included (at least the minimum Generate reports). Completed Job
	// pods (Succeeded, Failed: about 1% of Pods) come on top.
	Pods int
	// Seed drives every random choice: one seed, one output, byte for byte.
	Seed uint64
	// Zones is the number of availability zones (default 3, at most 26).
	Zones int
}

// Limits and defaults of Options.
const (
	MinNodes     = 8 // 3 control plane, a GPU, a memory and 3 general nodes
	MaxZones     = 26
	DefaultZones = 3
)

// DefaultOptions is a demo-sized cluster: 60 nodes, 400 pods, seed 1, 3 zones.
func DefaultOptions() Options { return Options{Nodes: 60, Pods: 400, Seed: 1, Zones: DefaultZones} }

func (o Options) normalized() (Options, error) {
	if o.Zones == 0 {
		o.Zones = DefaultZones
	}
	switch {
	case o.Nodes < MinNodes:
		return o, fmt.Errorf("%w: Nodes %d < %d", ErrOptions, o.Nodes, MinNodes)
	case o.Zones < 0 || o.Zones > MaxZones:
		return o, fmt.Errorf("%w: Zones %d outside 1..%d", ErrOptions, o.Zones, MaxZones)
	case o.Pods < 0:
		return o, fmt.Errorf("%w: Pods %d < 0", ErrOptions, o.Pods)
	}
	return o, nil
}
