package graphalg

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// OpMemories is the memory the placers charge for each op, as estimated:
// its parameters, plus the outputs of its predecessors that wait long for
// it. A tensor waits long for a reader when the graph is a training step,
// the producer is a forward op and the reader is not (an activation kept
// for the backward pass), or when the reader is estimated to start more
// than LongWait of the critical path after the producer ends (times from
// t-levels with the least op times and no communication, which would count
// as waiting in a small graph): gradients of a weight shared over time
// steps waiting for their sum, say. Such a
// tensor is charged once, to its reader with the latest end: that is the
// device holding it longest (the reader's own, or a copy received there),
// at the larger of the producer's estimated output and the bytes its
// edges to waiting readers carry (what a received copy takes).
// Other outputs are transient, freed soon after they are made, and are
// covered by the Reserve each device keeps. Baechi and Celeritas sum a
// profiled per-op memory the same way; summing every output instead would
// ask for several times what a step ever holds (262 GiB against a 45 GiB
// peak for Inception-V3 at batch 512).
func OpMemories(g *workloads.Graph, est *devices.Estimates) []int64 {
	mem, kept := keptTensors(g, est)
	for _, k := range kept {
		mem[k.last] += k.size
	}
	return mem
}

// kept is a tensor that waits long for some of its readers (see
// OpMemories): its size, the readers that keep it (in ID order) and the
// one of them with the latest estimated end.
type kept struct {
	size    int64
	readers []int32
	last    int
}

// keptTensors returns each op's parameters and the tensors that wait long
// for their readers, as OpMemories defines them.
func keptTensors(g *workloads.Graph, est *devices.Estimates) ([]int64, []kept) {
	n := len(g.Ops)
	mem := make([]int64, n)
	for i := range g.Ops {
		p, _, _ := est.OpMemory(i)
		mem[i] = p
	}
	d := NewDAG(g)
	topo, err := KahnOrder(d)
	if err != nil {
		return mem, nil // a cycle: the placer reports it
	}
	c := &Costs{W: make([]float64, n), Comm: make([]float64, d.NumDeps())}
	for v := range c.W {
		if w := est.MinOpTime(v); !math.IsInf(w, 1) {
			c.W[v] = w
		}
	}
	tl := TLevel(d, c, topo)
	fin := make([]float64, n)
	cp := 0.0
	for v := range fin {
		fin[v] = tl[v] + c.W[v]
		cp = math.Max(cp, fin[v])
	}
	wait := LongWait * cp
	var out []kept
	for u := 0; u < n; u++ {
		if g.Ops[u].Type == CoarseOpType {
			continue // a coarse op's memory is its ParamBytes (NewCoarse)
		}
		_, o, _ := est.OpMemory(u)
		k := kept{last: -1}
		lo, hi := d.SuccRange(u)
		for j := lo; j < hi; j++ {
			v := d.SuccAt(j)
			isKept := g.Training && g.Ops[u].Role == workloads.Forward && g.Ops[v].Role != workloads.Forward
			if !isKept && !(tl[v]-fin[u] > wait) {
				continue
			}
			if k.last < 0 || fin[v] > fin[k.last] {
				k.last = v
			}
			k.readers = append(k.readers, int32(v))
			// the reader's copy is the edge's bytes when on another device
			k.size = max(k.size, o, d.BytesAt(d.DepOfSucc(j)))
		}
		if k.last >= 0 {
			out = append(out, k)
		}
	}
	return mem, out
}

// LongWait is the wait, as a fraction of the estimated critical path,
// beyond which OpMemories charges a tensor to its reader. It was set by
// placing the Celeritas models of Table 3 and simulating: at 0.05 GNMT's
// gradient partials waiting for their sum are under-charged and
// Order-Place, filling devices in turn, runs out of memory (110 % of a
// V100 32 GB); 0.01 and 0.02 give the same feasibility on the four models
// and the larger charges less.
const LongWait = 0.02

// Reserve is the memory a memory-aware placer leaves free on a device of
// capacity c for transient tensors (outputs waiting for their readers,
// received copies, workspaces), which OpMemories does not charge: a tenth
// of the device, or twice the largest estimated output plus workspace of
// an op if that is more (an op's output is allocated beside its inputs, so
// no cap below that is sound: the former cap of a quarter of the device let
// VGG-19's 3 GiB gradients run 11 GB GPUs out of memory). Filling devices
// to the last byte of the charged memory runs out of memory: GNMT at batch
// 512 on 4 x V100 32 GB with a reserve of twice its largest op (0.4 GiB)
// needs 0.7 GiB more than that at its peak.
func Reserve(g *workloads.Graph, est *devices.Estimates, c int64) int64 {
	var m int64
	for i := range g.Ops {
		_, o, t := est.OpMemory(i)
		m = max(m, o+t)
	}
	return min(max(2*m, c/10), c)
}

// Book keeps colocation and memory for a placer that places op by op.
// Colocation follows Baechi's rule, which Celeritas adopts (section 6.1):
// the device of a unit's first placed op is the device of the whole unit.
// Memory is charged by unit: placing a unit's first op charges the memory
// of all the unit's ops to its device, so the rest are paid for.
//
// A Book made by NewBook charges a tensor kept for a later reader (an
// activation kept for the backward pass, see OpMemories) on every device
// that holds one of its keeping readers, once per device, as the engine
// keeps it: the producer's buffer where a reader shares its device, a
// received copy on every other reader's device. (OpMemories charges it
// once, which undercounts when the readers are spread: Transformer's
// backward ops on 4 x V100 32 GB then run out of memory receiving them.)
type Book struct {
	t *Targets
	// Mem is each op's memory (OpMemories).
	Mem     []int64
	unitMem []int64
	anchor  []int
	// per unit, the kept tensors its ops read (indices into keptSize);
	// held[k] lists the devices kept tensor k is already charged on
	unitKept [][]int32
	keptSize []int64
	held     [][]int32
	// Free and Used are per device (capacity minus used, used).
	Free, Used []int64
	g          *workloads.Graph
	c          *devices.Cluster
}

// NewBook returns an empty book for g on the cluster of est, with the
// memory of OpMemories and each device's capacity less the Reserve.
func NewBook(g *workloads.Graph, est *devices.Estimates, t *Targets) *Book {
	params, ks := keptTensors(g, est)
	mem := append([]int64(nil), params...)
	for _, k := range ks {
		mem[k.last] += k.size
	}
	b := NewBookWith(g, est.Cluster, t, mem)
	// units are charged their parameters, and kept tensors per device
	clear(b.unitMem)
	for op, p := range params {
		b.unitMem[t.UnitOf[op]] += p
	}
	b.unitKept = make([][]int32, len(t.Units))
	b.keptSize = make([]int64, len(ks))
	b.held = make([][]int32, len(ks))
	for i, k := range ks {
		b.keptSize[i] = k.size
		for _, r := range k.readers {
			u := t.UnitOf[r]
			if l := b.unitKept[u]; len(l) == 0 || l[len(l)-1] != int32(i) {
				b.unitKept[u] = append(b.unitKept[u], int32(i))
			}
		}
	}
	for d := range b.Free {
		b.Free[d] -= Reserve(g, est, est.Cluster.Devices[d].Memory)
	}
	return b
}

// holds reports whether kept tensor k is charged on device d.
func (b *Book) holds(k int32, d int) bool {
	for _, x := range b.held[k] {
		if int(x) == d {
			return true
		}
	}
	return false
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

// Charge is the memory placing op now takes on a device that holds none
// of the tensors its unit keeps: its unit's whole memory when the unit is
// not placed yet, else 0.
func (b *Book) Charge(op int) int64 {
	u := b.t.UnitOf[op]
	if b.anchor[u] >= 0 {
		return 0
	}
	return b.UnitMemory(op)
}

// ChargeOn is the memory placing op on d now takes: Charge less the kept
// tensors d already holds.
func (b *Book) ChargeOn(op, d int) int64 {
	u := b.t.UnitOf[op]
	if b.anchor[u] >= 0 {
		return 0
	}
	m := b.unitMem[u]
	if b.unitKept != nil {
		for _, k := range b.unitKept[u] {
			if !b.holds(k, d) {
				m += b.keptSize[k]
			}
		}
	}
	return m
}

// UnitMemory is the memory of op's whole colocation unit on a device that
// holds none of its kept tensors.
func (b *Book) UnitMemory(op int) int64 {
	u := b.t.UnitOf[op]
	m := b.unitMem[u]
	if b.unitKept != nil {
		for _, k := range b.unitKept[u] {
			m += b.keptSize[k]
		}
	}
	return m
}

// Fits reports whether placing op on d now stays within d's capacity.
func (b *Book) Fits(op, d int) bool { return b.ChargeOn(op, d) <= b.Free[d] }

// Place records op on d: it anchors op's unit there and charges d.
func (b *Book) Place(op, d int) {
	u := b.t.UnitOf[op]
	if b.anchor[u] >= 0 {
		return
	}
	m := b.ChargeOn(op, d)
	if b.unitKept != nil {
		for _, k := range b.unitKept[u] {
			if !b.holds(k, d) {
				b.held[k] = append(b.held[k], int32(d))
			}
		}
	}
	b.anchor[u] = d
	b.Free[d] -= m
	b.Used[d] += m
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
		placers.ErrDoesNotFit, b.g.Ops[op].Name, fmtBytes(b.Charge(op)), free, fmtBytes(sum(b.Mem)), fmtBytes(b.c.TotalMemory()))
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
