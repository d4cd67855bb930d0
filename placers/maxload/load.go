package maxload

import (
	"fmt"
	"math"
	"strings"
)

// Loads returns each model device's load (seconds per sample) and memory
// for an assignment of a model device to every op: an accelerator's load
// is its compute plus the cost of every hyperedge it cuts (eq. 20 of
// Figure 7), a CPU's its compute (eq. 21).
func (m *Model) Loads(assign []int) (loads []float64, mem []int64) {
	nd := m.K() + m.L()
	loads = make([]float64, nd)
	mem = make([]int64, nd)
	for op, d := range assign {
		if m.IsAcc(d) {
			loads[d] += m.AccTime[op]
		} else {
			loads[d] += m.CPUTime[op]
		}
		mem[d] += m.Size[op]
	}
	var seen [16]int
	for _, h := range m.Comm {
		devs := seen[:0]
		for _, op := range h.Ops {
			d := assign[op]
			dup := false
			for _, x := range devs {
				dup = dup || x == d
			}
			if !dup {
				devs = append(devs, d)
			}
		}
		if len(devs) < 2 {
			continue
		}
		for _, d := range devs {
			if m.IsAcc(d) {
				loads[d] += h.Cost
			}
		}
	}
	return loads, mem
}

// MaxLoad returns the largest load and the device that has it (the
// bottleneck; the first on ties).
func MaxLoad(loads []float64) (float64, int) {
	best, at := math.Inf(-1), -1
	for d, l := range loads {
		if l > best {
			best, at = l, d
		}
	}
	return best, at
}

// Evaluate returns the max-load of an assignment and its bottleneck, or an
// error naming a device over its memory or an op on a device it cannot
// run on.
func (m *Model) Evaluate(assign []int) (float64, int, error) {
	if len(assign) != len(m.Graph.Ops) {
		return 0, -1, fmt.Errorf("assignment of %d ops for a graph of %d", len(assign), len(m.Graph.Ops))
	}
	for op, d := range assign {
		if d < 0 || d >= m.K()+m.L() {
			return 0, -1, fmt.Errorf("op %q on model device %d (valid: 0..%d)", m.Graph.Ops[op].Name, d, m.K()+m.L()-1)
		}
		if m.IsAcc(d) && math.IsInf(m.AccTime[op], 1) {
			return 0, -1, fmt.Errorf("op %q cannot run on accelerator %s", m.Graph.Ops[op].Name, m.DeviceName(d))
		}
	}
	loads, mem := m.Loads(assign)
	for d, b := range mem {
		if limit := m.memLimit(d); b > limit {
			return 0, -1, fmt.Errorf("device %s holds %d bytes, over its %d", m.DeviceName(d), b, limit)
		}
	}
	ml, at := MaxLoad(loads)
	return ml, at, nil
}

func (m *Model) memLimit(d int) int64 {
	if m.IsAcc(d) {
		return m.AccMem
	}
	return m.CPUMem
}

// Explain describes an assignment's loads, one line per device, marking
// the bottleneck: compute, communication and memory of each.
func (m *Model) Explain(assign []int) string {
	loads, mem := m.Loads(assign)
	_, at := MaxLoad(loads)
	compute := make([]float64, len(loads))
	ops := make([]int, len(loads))
	for op, d := range assign {
		ops[d]++
		if m.IsAcc(d) {
			compute[d] += m.AccTime[op]
		} else {
			compute[d] += m.CPUTime[op]
		}
	}
	var b strings.Builder
	for d := range loads {
		mark := ""
		if d == at {
			mark = "  <- bottleneck"
		}
		fmt.Fprintf(&b, "%-8s %5d ops  load %10.6f ms  (compute %10.6f ms, communication %10.6f ms)  memory %d B%s\n",
			m.DeviceName(d), ops[d], loads[d]*1e3, compute[d]*1e3, (loads[d]-compute[d])*1e3, mem[d], mark)
	}
	return b.String()
}
