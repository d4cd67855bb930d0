package graphalg

import (
	"fmt"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// Targets are the devices each op may be placed on, as placers.Targets
// defines them: the accelerators (every device when the cluster has none)
// for ordinary ops, the CPU devices for ops whose colocation unit holds a
// CPU-only op (the whole unit must share a CPU).
type Targets struct {
	// Acc and CPU are the device IDs of the two kinds of targets.
	Acc, CPU []int
	// UnitOf maps an op to its colocation unit (placers.Groups).
	UnitOf []int
	// Units lists each unit's ops in ID order.
	Units   [][]int
	needCPU []bool // per unit
}

// NewTargets computes the targets of g's ops on c. It is an error when a
// unit needs a CPU and c has none.
func NewTargets(g *workloads.Graph, c *devices.Cluster) (*Targets, error) {
	t := &Targets{}
	t.Acc, t.CPU = placers.Targets(c)
	t.UnitOf, t.Units = placers.Groups(g)
	t.needCPU = make([]bool, len(t.Units))
	for u, ops := range t.Units {
		if placers.UnitNeedsCPU(g, ops) {
			if len(t.CPU) == 0 {
				return nil, fmt.Errorf("%w: op %q is CPU-only and cluster %q has no CPU device", ErrNoDevice, g.Ops[ops[0]].Name, c.Name)
			}
			t.needCPU[u] = true
		}
	}
	return t, nil
}

// Of lists the devices op may run on.
func (t *Targets) Of(op int) []int {
	if t.needCPU[t.UnitOf[op]] {
		return t.CPU
	}
	return t.Acc
}

// NeedsCPU reports whether op's unit must go to a CPU device.
func (t *Targets) NeedsCPU(op int) bool { return t.needCPU[t.UnitOf[op]] }
