package tarnawski

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// part is one device's share of a split: DP nodes, on a CPU or an
// accelerator.
type part struct {
	nodes []int32
	cpu   bool
}

// dpResult is the DP's split, parts in topological order, and its
// max-load (seconds per sample; +Inf when no split fits).
type dpResult struct {
	parts []part
	value float64
	// ideals is the number of ideals (the empty one included) and pairs
	// the number of ideal pairs I' ⊆ I the DP walked.
	ideals int
	pairs  int64
	// tableBytes is the memory of the ideals, their lattice and the DP
	// table.
	tableBytes int64
}

// dpTable is dp[I][k'][l'] and its argmin, flat: entry (I, k', l') is at
// I*stride + k'*(L+1) + l'.
type dpTable struct {
	K, L, stride int
	val          []float64
	// choice = I'<<1 | 1 if the last part (I \ I') is on a CPU
	choice []int32
}

func newDPTable(N, K, L int) *dpTable {
	stride := (K + 1) * (L + 1)
	t := &dpTable{K: K, L: L, stride: stride, val: make([]float64, N*stride), choice: make([]int32, N*stride)}
	// dp[∅][*][*] = 0: the empty ideal with any devices left unused
	for i := stride; i < len(t.val); i++ {
		t.val[i] = math.Inf(1)
	}
	return t
}

// hyperIndex lists, for each DP node, the hyperedges it is in, with each
// hyperedge's size and cost.
type hyperIndex struct {
	start []int32 // node v's hyperedges: of[start[v]:start[v+1]]
	of    []int32
	size  []int32
	cost  []float64
}

func newHyperIndex(dg *dpGraph) *hyperIndex {
	x := &hyperIndex{start: make([]int32, dg.n+1), size: make([]int32, len(dg.hyper)), cost: make([]float64, len(dg.hyper))}
	for h, e := range dg.hyper {
		x.size[h], x.cost[h] = int32(len(e.nodes)), e.cost
		for _, v := range e.nodes {
			x.start[v+1]++
		}
	}
	for v := 0; v < dg.n; v++ {
		x.start[v+1] += x.start[v]
	}
	x.of = make([]int32, x.start[dg.n])
	next := append([]int32(nil), x.start[:dg.n]...)
	for h, e := range dg.hyper {
		for _, v := range e.nodes {
			x.of[next[v]] = int32(h)
			next[v]++
		}
	}
	return x
}

// dpLimits are what a part may hold: K accelerators of memory accMem, L
// CPUs of memory cpuMem; bound is an upper bound on the optimum (a part
// whose compute alone exceeds it is never part of an optimal split).
type dpLimits struct {
	K, L           int
	accMem, cpuMem int64
	bound          float64
}

// runDP fills the DP of section 5.1.1 over the ideals s of dg:
//
//	dp[I][k'][l'] = min over ideals I' ⊆ I of
//	  min( max(dp[I'][k'-1][l'], acc(I \ I')), max(dp[I'][k'][l'-1], cpu(I \ I')) )
//
// where acc(S) is the incoming communication, compute and outgoing
// communication of S (+Inf when S does not fit or holds a node an
// accelerator cannot run), and cpu(S) its CPU compute.
//
// The sub-ideals I' of I are enumerated, not searched: a depth-first walk
// down the ideal lattice from I, through immediate sub-ideals, reaches
// each exactly once, so the work is proportional to the number of ideal
// pairs. Along the walk S = I \ I' grows one node at a time, and its
// communication is kept up to date from the hyperedges of that node. A
// branch of the walk stops where S no longer fits on any device or its
// compute alone exceeds lim.bound: S only grows below it.
//
// Ideals of one size are independent and are split over workers
// goroutines; each walk is sequential and deterministic, so the result
// does not depend on the number of workers.
func runDP(ctx context.Context, dg *dpGraph, s *ideals, lim dpLimits, workers int) (*dpResult, error) {
	N := s.count()
	t := newDPTable(N, lim.K, lim.L)
	hx := newHyperIndex(dg)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var pairs atomic.Int64
	nlev := len(s.levelStart) - 1
	// each ideal's sum of cheaper times, from its first immediate sub-ideal
	// (the full ideal is the last)
	qn := minCosts(dg, lim.L)
	q := make([]float64, N)
	for i := 1; i < N; i++ {
		sub := s.subs[s.subStart[i]]
		q[i] = q[sub.ideal] + qn[sub.node]
	}
	walkers := make([]*latticeWalker, workers)
	for i := range walkers {
		walkers[i] = newLatticeWalker(s, hx, t, lim, q)
	}
	for lev := 1; lev < nlev; lev++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lo, hi := int(s.levelStart[lev]), int(s.levelStart[lev+1])
		if hi-lo < 2*workers || workers == 1 {
			for i := lo; i < hi; i++ {
				walkers[0].fill(i)
			}
			continue
		}
		var next atomic.Int64
		next.Store(int64(lo))
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(wk *latticeWalker) {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= hi {
						break
					}
					wk.fill(i)
				}
			}(walkers[w])
		}
		wg.Wait()
	}
	for _, wk := range walkers {
		pairs.Add(wk.pairs)
	}
	res := &dpResult{value: t.val[(N-1)*t.stride+lim.K*(lim.L+1)+lim.L], ideals: N, pairs: pairs.Load(),
		tableBytes: s.memory(t.stride)}
	if math.IsInf(res.value, 1) {
		return res, nil
	}
	res.parts = t.backtrack(N-1, func(I, J int) []int32 { return diffNodes(s.set(I), s.set(J)) })
	return res, nil
}

// backtrack walks the choices back from (full, K, L) and returns the
// parts in topological order; nodes(I, J) lists I \ J.
func (t *dpTable) backtrack(full int, nodes func(I, J int) []int32) []part {
	var parts []part
	I, k, l := full, t.K, t.L
	for I != 0 {
		c := t.choice[I*t.stride+k*(t.L+1)+l]
		J, cpu := int(c>>1), c&1 == 1
		if J != I {
			parts = append(parts, part{nodes: nodes(I, J), cpu: cpu})
		}
		if cpu {
			l--
		} else {
			k--
		}
		I = J
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return parts
}

// latticeWalker is one worker's state for the walks down the lattice.
type latticeWalker struct {
	s     *ideals
	hx    *hyperIndex
	t     *dpTable
	lim   dpLimits
	q     []float64 // each ideal's sum of cheaper times (minCosts)
	seen  []int32   // seen[J] = I+1 once the walk from I has reached J
	cnt   []int32   // nodes of S in each hyperedge
	stack []walkFrame
	pairs int64
}

// walkFrame is an ideal J on the walk from I: S = I \ J, its
// communication comm, the node that J's parent lost to make J, and the
// next immediate sub-ideal of J to try.
type walkFrame struct {
	J, node, next int32
	comm          float64
}

func newLatticeWalker(s *ideals, hx *hyperIndex, t *dpTable, lim dpLimits, q []float64) *latticeWalker {
	return &latticeWalker{s: s, hx: hx, t: t, lim: lim, q: q, seen: make([]int32, s.count()), cnt: make([]int32, len(hx.size))}
}

// add puts node v into S and returns the change of S's communication: a
// hyperedge is cut when S holds some but not all of its nodes.
func (w *latticeWalker) add(v int32) float64 {
	hx := w.hx
	d := 0.0
	for _, h := range hx.of[hx.start[v]:hx.start[v+1]] {
		c := w.cnt[h]
		w.cnt[h] = c + 1
		switch {
		case c == 0 && hx.size[h] > 1:
			d += hx.cost[h] // newly met, not contained
		case c+1 == hx.size[h] && c > 0:
			d -= hx.cost[h] // now contained
		}
	}
	return d
}

// remove takes node v out of S again (the counts only; the frames keep
// the communication).
func (w *latticeWalker) remove(v int32) {
	hx := w.hx
	for _, h := range hx.of[hx.start[v]:hx.start[v+1]] {
		w.cnt[h]--
	}
}

// fill computes dp[I][*][*] from every sub-ideal of I.
func (w *latticeWalker) fill(I int) {
	s, t, lim := w.s, w.t, w.lim
	K, L, stride := t.K, t.L, t.stride
	row := t.val[I*stride : (I+1)*stride]
	ch := t.choice[I*stride : (I+1)*stride]
	sp := devSpan(w.q[I], w.q[len(w.q)-1], lim.bound, K, L)
	if sp.lo > sp.hi {
		return // no split within the bound passes through I
	}
	accLim, cpuLim := rowLimits(row, K, L, sp)
	mark := int32(I + 1)
	w.seen[I] = mark
	w.stack = append(w.stack[:0], walkFrame{J: int32(I), node: -1, next: s.subStart[I]})
	for len(w.stack) > 0 {
		f := &w.stack[len(w.stack)-1]
		if f.next == s.subStart[f.J+1] {
			if f.node >= 0 {
				w.remove(f.node)
			}
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		sub := s.subs[f.next]
		f.next++
		J := int(sub.ideal)
		if w.seen[J] == mark {
			continue
		}
		w.seen[J] = mark
		w.pairs++
		comm := f.comm + w.add(sub.node)
		// S = I \ J
		size, cpuOnly := s.size[I]-s.size[J], s.cpuOnly[I]-s.cpuOnly[J]
		pAcc, pCPU := s.pAcc[I]-s.pAcc[J], s.pCPU[I]-s.pCPU[J]
		// a part whose compute alone reaches the largest entry it could
		// improve improves none
		accOK := cpuOnly == 0 && size <= lim.accMem && pAcc <= lim.bound && pAcc < accLim
		cpuOK := L > 0 && size <= lim.cpuMem && pCPU <= lim.bound && pCPU < cpuLim
		if !accOK && !cpuOK {
			// every sub-ideal below J makes S larger: prune
			w.remove(sub.node)
			continue
		}
		acc, cpu := math.Inf(1), math.Inf(1)
		if accOK {
			acc = pAcc + comm
		}
		if cpuOK {
			cpu = pCPU
		}
		relax(row, ch, t.val[J*stride:(J+1)*stride], int32(J)<<1, acc, cpu, K, L, sp)
		accLim, cpuLim = rowLimits(row, K, L, sp)
		w.stack = append(w.stack, walkFrame{J: int32(J), node: sub.node, next: s.subStart[J], comm: comm})
	}
	leaveUnused(row, ch, int32(I)<<1, K, L, sp)
}

// relax improves row (dp[I]) with the last part I \ J, whose load is acc
// on an accelerator and cpu on a CPU, after dp[J] = prev; cj = J<<1. Only
// the entries with k'+l' in sp are computed.
func relax(row []float64, ch []int32, prev []float64, cj int32, acc, cpu float64, K, L int, sp span) {
	for d := sp.lo; d <= sp.hi; d++ {
		for k := max(0, d-L); k <= min(K, d); k++ {
			e := k*(L+1) + d - k
			if k > 0 {
				v := prev[e-(L+1)]
				if acc > v {
					v = acc
				}
				if v < row[e] {
					row[e], ch[e] = v, cj
				}
			}
			if d-k > 0 {
				v := prev[e-1]
				if cpu > v {
					v = cpu
				}
				if v < row[e] {
					row[e], ch[e] = v, cj|1
				}
			}
		}
	}
}

// leaveUnused lets dp[I][k'][l'] leave a device unused (S = ∅); self =
// I<<1. Only the entries with k'+l' in sp are computed.
func leaveUnused(row []float64, ch []int32, self int32, K, L int, sp span) {
	for d := sp.lo; d <= sp.hi; d++ {
		for k := max(0, d-L); k <= min(K, d); k++ {
			e := k*(L+1) + d - k
			if k > 0 && row[e-(L+1)] < row[e] {
				row[e], ch[e] = row[e-(L+1)], self
			}
			if d-k > 0 && row[e-1] < row[e] {
				row[e], ch[e] = row[e-1], self|1
			}
		}
	}
}

// rowLimits are the largest entries of row (k'+l' in sp) that a last
// part on an accelerator (k' >= 1) and on a CPU (l' >= 1) could improve:
// a part whose compute alone reaches the limit improves nothing, and as
// the DP only lowers entries and a part only grows where the walk or the
// sweep goes on, nothing beyond it does either (the max-load DP's
// monotone structure).
func rowLimits(row []float64, K, L int, sp span) (acc, cpu float64) {
	acc, cpu = math.Inf(-1), math.Inf(-1)
	for d := sp.lo; d <= sp.hi; d++ {
		for k := max(0, d-L); k <= min(K, d); k++ {
			v := row[k*(L+1)+d-k]
			if k > 0 && v > acc {
				acc = v
			}
			if d-k > 0 && v > cpu {
				cpu = v
			}
		}
	}
	return acc, cpu
}

// span is a range of device counts k'+l'.
type span struct{ lo, hi int }

// devSpan is the range of device counts k'+l' for which dp[I][k'][l'] can
// be part of a split whose max-load is at most bound: a device's load is
// at least the sum of its nodes' cheaper times (q over I, total over the
// graph), so I takes at least q/bound devices and the rest of the graph
// (total-q)/bound others.
func devSpan(q, total, bound float64, K, L int) span {
	if math.IsInf(bound, 1) {
		return span{0, K + L}
	}
	b := bound * (1 + 1e-9) // the sums' rounding
	lo := math.Ceil(q / b)
	hi := float64(K+L) - math.Ceil((total-q)/b)
	if lo > float64(K+L) || hi < 0 {
		return span{1, 0} // empty
	}
	return span{int(max(lo, 0)), int(min(hi, float64(K+L)))}
}

// minCosts is each DP node's cheaper time: on an accelerator (if it can
// run there) or on a CPU (if there is one).
func minCosts(dg *dpGraph, L int) []float64 {
	q := make([]float64, dg.n)
	for v := range q {
		q[v] = math.Inf(1)
		if dg.cpuOnly[v] == 0 {
			q[v] = dg.pAcc[v]
		}
		if L > 0 {
			q[v] = math.Min(q[v], dg.pCPU[v])
		}
	}
	return q
}

// diffNodes lists the nodes of a \ b.
func diffNodes(a, b []uint64) []int32 {
	var out []int32
	for w := range a {
		x := a[w] &^ b[w]
		for x != 0 {
			i := bits.TrailingZeros64(x)
			out = append(out, int32(w*64+i))
			x &= x - 1
		}
	}
	return out
}
