package graphalg

import (
	"fmt"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// OpMemories is the memory the placers charge for each op: what the op
// keeps on its device for the whole step, as estimated. That is its
// parameters, plus its output when the graph is a training step, the op is
// a forward op and a backward or update op reads the output (activations
// kept for the backward pass live until their backward op ends). Other
// outputs and workspaces are transient (freed once their readers end) and
// are covered by the Reserve each device keeps instead. Baechi and
// Celeritas sum a profiled per-op memory the same way; summing every
// output instead would ask for several times the memory a step ever holds
// (262 GiB against a 45 GiB peak for Inception-V3 at batch 512).
func OpMemories(g *workloads.Graph, est *devices.Estimates) []int64 {
	mem := make([]int64, len(g.Ops))
	for i := range g.Ops {
		p, o, _ := est.OpMemory(i)
		mem[i] = p
		if g.Training && g.Ops[i].Role == workloads.Forward {
			for _, eid := range g.Out(i) {
				if g.Ops[g.Edges[eid].To].Role != workloads.Forward {
					mem[i] += o
					break
				}
			}
		}
	}
	return mem
}

// Reserve is the memory a memory-aware placer leaves free on each device
// for transient tensors: twice the largest estimated output plus workspace
// of an op (an op running while the output of another waits for its
// readers), at most a quarter of the smallest device.
func Reserve(g *workloads.Graph, est *devices.Estimates) int64 {
	var m int64
	for i := range g.Ops {
		_, o, t := est.OpMemory(i)
		m = max(m, o+t)
	}
	r := 2 * m
	for _, d := range est.Cluster.Devices {
		r = min(r, d.Memory/4)
	}
	return r
}

// Book keeps colocation and memory for a placer that places op by op.
// Colocation follows Baechi's rule, which Celeritas adopts (section 6.1):
// the device of a unit's first placed op is the device of the whole unit.
// Memory is charged by unit: placing a unit's first op charges the memory
// of all the unit's ops to its device, so the rest are paid for.
type Book struct {
	t *Targets
	// Mem is each op's memory (OpMemories).
	Mem     []int64
	unitMem []int64
	anchor  []int
	// Free and Used are per device (capacity minus used, used).
	Free, Used []int64
	g          *workloads.Graph
	c          *devices.Cluster
}

// NewBook returns an empty book for g on the cluster of est, with the
// memory of OpMemories and each device's capacity less the Reserve.
func NewBook(g *workloads.Graph, est *devices.Estimates, t *Targets) *Book {
	b := NewBookWith(g, est.Cluster, t, OpMemories(g, est))
	r := Reserve(g, est)
	for d := range b.Free {
		b.Free[d] -= r
	}
	return b
}

// Forced is the device op must go to because its unit is already placed,
// or -1.
func (b *Book) Forced(op int) int { return b.anchor[b.t.UnitOf[op]] }

// Candidates lists the devices op may go to now: its unit's device when
// the unit is placed, else its targets.
func (b *Book) Candidates(op int) []int {
	if d := b.Forced(op); d >= 0 {
		return []int{d}
	}
	return b.t.Of(op)
}

// Charge is the memory placing op now takes: its unit's whole memory when
// the unit is not placed yet, else 0.
func (b *Book) Charge(op int) int64 {
	u := b.t.UnitOf[op]
	if b.anchor[u] >= 0 {
		return 0
	}
	return b.unitMem[u]
}

// UnitMemory is the memory of op's whole colocation unit.
func (b *Book) UnitMemory(op int) int64 { return b.unitMem[b.t.UnitOf[op]] }

// Fits reports whether placing op on d now stays within d's capacity.
func (b *Book) Fits(op, d int) bool { return b.Charge(op) <= b.Free[d] }

// Place records op on d: it anchors op's unit there and charges d.
func (b *Book) Place(op, d int) {
	u := b.t.UnitOf[op]
	if b.anchor[u] >= 0 {
		return
	}
	b.anchor[u] = d
	b.Free[d] -= b.unitMem[u]
	b.Used[d] += b.unitMem[u]
}

// LeastUsed is the device among devs with the least memory in use (ties:
// the first): Celeritas' best-effort choice when every device is full.
func (b *Book) LeastUsed(devs []int) int {
	best := devs[0]
	for _, d := range devs[1:] {
		if b.Used[d] < b.Used[best] {
			best = d
		}
	}
	return best
}

// NoFit is the error a memory-aware placer returns when op fits no
// device: it wraps placers.ErrDoesNotFit and names the op, the bytes it
// needs and the free memory of its candidate devices.
func (b *Book) NoFit(op int) error {
	cands := b.Candidates(op)
	free := make([]string, len(cands))
	for i, d := range cands {
		free[i] = fmt.Sprintf("%s %s", b.c.Devices[d].Name, fmtBytes(b.Free[d]))
	}
	return fmt.Errorf("%w: op %q (with its colocation unit) needs %s; free: %v (total graph memory %s, cluster %s)",
		placers.ErrDoesNotFit, b.g.Ops[op].Name, fmtBytes(b.Charge(op)), free, fmtBytes(sum(b.unitMem)), fmtBytes(b.c.TotalMemory()))
}

func sum(x []int64) int64 {
	var s int64
	for _, v := range x {
		s += v
	}
	return s
}

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30 || b <= -(1<<30):
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20 || b <= -(1<<20):
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d B", b)
}
