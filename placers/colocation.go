package placers

import (
	"fmt"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// Groups partitions the ops into colocation units: ops sharing a non-empty
// Colocation name form one unit, every other op is a unit of its own.
// Units are numbered in order of their first op's ID; unitOf maps an op to
// its unit.
func Groups(g *workloads.Graph) (unitOf []int, units [][]int) {
	unitOf = make([]int, len(g.Ops))
	byName := map[string]int{}
	for i := range g.Ops {
		c := g.Ops[i].Colocation
		if c != "" {
			if u, ok := byName[c]; ok {
				unitOf[i] = u
				units[u] = append(units[u], i)
				continue
			}
			byName[c] = len(units)
		}
		unitOf[i] = len(units)
		units = append(units, []int{i})
	}
	return unitOf, units
}

// UnitNeedsCPU reports whether a unit holds a CPU-only op.
func UnitNeedsCPU(g *workloads.Graph, unit []int) bool {
	for _, op := range unit {
		if g.Ops[op].CPUOnly {
			return true
		}
	}
	return false
}

// Targets returns the devices a simple placer spreads work over: the
// accelerators, or every device when the cluster has none; and the CPU
// devices, for CPU-only ops.
func Targets(c *devices.Cluster) (acc, cpus []int) {
	for _, d := range c.Devices {
		if d.Kind.Class == devices.CPU {
			cpus = append(cpus, d.ID)
		} else {
			acc = append(acc, d.ID)
		}
	}
	if len(acc) == 0 {
		acc = cpus
	}
	return acc, cpus
}

// CheckColocation returns an error naming the first colocation group whose
// ops a plan put on different devices.
func CheckColocation(g *workloads.Graph, p *engine.Plan) error {
	first := map[string]int{}
	for i := range g.Ops {
		c := g.Ops[i].Colocation
		if c == "" {
			continue
		}
		if j, ok := first[c]; ok {
			if p.Device[i] != p.Device[j] {
				return fmt.Errorf("colocation group %q split: op %q on device %d, op %q on device %d",
					c, g.Ops[j].Name, p.Device[j], g.Ops[i].Name, p.Device[i])
			}
		} else {
			first[c] = i
		}
	}
	return nil
}
