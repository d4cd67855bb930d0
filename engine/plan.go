package engine

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/workloads"
)

// Plan is what a placer decides and the executor plays.
type Plan struct {
	// Graph, when set, is the graph the plan is for: a placer that rewrites
	// the graph (operator splitting, fusion) returns the rewritten graph
	// here. When nil, the graph passed to Simulate is used.
	Graph *workloads.Graph `json:"-"`
	// Device maps each op ID to a device index of the cluster.
	Device []int `json:"device"`
	// Priority, optional, ranks ops on a device: among ready ops the one
	// with the highest priority runs first (ties: first ready, first run).
	Priority []float64 `json:"priority,omitempty"`
	// Order, optional, fixes the exact sequence each device runs its ops in
	// (order enforcement): Order[d] lists every op placed on device d once.
	// A device waits for its next op even when others are ready.
	Order [][]int `json:"order,omitempty"`
	// Pipeline, optional, makes the step a micro-batch pipeline with a
	// schedule (see Pipeline); Order and Priority must then be nil.
	Pipeline *Pipeline `json:"pipeline,omitempty"`
	// DataParallel, optional, replicates the plan with the batch split
	// among the replicas and all-reduces the gradients (see DataParallel).
	DataParallel *DataParallel `json:"dataParallel,omitempty"`
}

// cpuOnlyError says that a CPU-only op is placed on accelerator dev.
func cpuOnlyError(op *workloads.Op, dev *devices.Device) error {
	return fmt.Errorf("%w: op %q is CPU-only but placed on accelerator %s", ErrInvalidPlan, op.Name, dev.Name)
}

// graphFor returns the graph the plan applies to.
func (p *Plan) graphFor(g *workloads.Graph) *workloads.Graph {
	if p.Graph != nil {
		return p.Graph
	}
	return g
}

// Validate checks the plan against a graph and a cluster: one device per op
// within range, an accelerator-incapable op not on an accelerator, finite
// priorities, an Order that lists each op on its own device once, and a
// consistent Pipeline and DataParallel.
func (p *Plan) Validate(g *workloads.Graph, c *devices.Cluster) error {
	_, err := p.validate(p.graphFor(g), c, true)
	return err
}

// validate is Validate on the plan's graph g, returning the pipeline and
// data-parallel layout it checked (nil for a plain step); without ops, it leaves out
// the check of each op's device class, which reads every op: Simulate
// makes it while it reads the ops for their times (see
// unrolled.instances), with the same error (cpuOnlyError).
func (p *Plan) validate(g *workloads.Graph, c *devices.Cluster, ops bool) (*layout, error) {
	n := len(g.Ops)
	if len(p.Device) != n {
		return nil, fmt.Errorf("%w: %d device assignments for %d ops", ErrInvalidPlan, len(p.Device), n)
	}
	for i, d := range p.Device {
		if d < 0 || d >= len(c.Devices) {
			return nil, fmt.Errorf("%w: op %q is on device %d, but cluster %q has devices 0..%d", ErrInvalidPlan, g.Ops[i].Name, d, c.Name, len(c.Devices)-1)
		}
		if ops && g.Ops[i].CPUOnly && c.Devices[d].Kind.Class != devices.CPU {
			return nil, cpuOnlyError(&g.Ops[i], &c.Devices[d])
		}
	}
	if p.Priority != nil {
		if len(p.Priority) != n {
			return nil, fmt.Errorf("%w: %d priorities for %d ops", ErrInvalidPlan, len(p.Priority), n)
		}
		for i, v := range p.Priority {
			if math.IsNaN(v) {
				return nil, fmt.Errorf("%w: op %q has priority NaN", ErrInvalidPlan, g.Ops[i].Name)
			}
		}
	}
	if p.Order != nil {
		if len(p.Order) != len(c.Devices) {
			return nil, fmt.Errorf("%w: order has %d device lists, cluster has %d devices", ErrInvalidPlan, len(p.Order), len(c.Devices))
		}
		seen := make([]bool, n)
		count := 0
		for d, ops := range p.Order {
			for _, op := range ops {
				if op < 0 || op >= n {
					return nil, fmt.Errorf("%w: order[%d] names op %d, graph has ops 0..%d", ErrInvalidPlan, d, op, n-1)
				}
				if p.Device[op] != d {
					return nil, fmt.Errorf("%w: order[%d] lists op %q, which is placed on device %d", ErrInvalidPlan, d, g.Ops[op].Name, p.Device[op])
				}
				if seen[op] {
					return nil, fmt.Errorf("%w: order lists op %q twice", ErrInvalidPlan, g.Ops[op].Name)
				}
				seen[op] = true
				count++
			}
		}
		if count != n {
			for i, s := range seen {
				if !s {
					return nil, fmt.Errorf("%w: order misses op %q", ErrInvalidPlan, g.Ops[i].Name)
				}
			}
		}
	}
	return p.checkParallel(g, c)
}
