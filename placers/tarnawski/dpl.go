package tarnawski

import (
	"context"
	"math"
	"slices"
)

// runDPL is the DP of section 5.1.2 (DPL): the DP over the ideals of dg
// linearised along order (a topological order), which are its n+1
// prefixes, so that a part is a segment [a, b) of order. It finds the
// same optimum as runDP on the linearised graph in far less time and
// memory:
//
//   - a segment's compute, memory and CPU-only count are differences of
//     prefix sums; its communication is kept up to date while a sweeps
//     down from b, in O(1) per hyperedge at the node a (a hyperedge at a
//     is cut by [a, b) unless [a, b) now holds all of it, and was cut by
//     [a+1, b) exactly when its next node after a lies before b);
//   - the max-load DP's monotone structure: as a decreases, the segment's
//     compute, memory and CPU-only count only grow, and the entries of
//     dp[b] only fall, so the sweep stops as soon as no device can take
//     the segment, or its compute alone reaches the largest entry it could
//     still improve (rowLimits) or a bound T on the optimum. T starts at
//     a lower bound on the optimum and doubles (or drops to the max-load
//     of the split a round found, an upper bound) until the DP's optimum
//     is at most T, at which point every segment of an optimal split was
//     considered.
//
// Ties between equal candidates go to the smallest a, as runDP's do.
func runDPL(ctx context.Context, dg *dpGraph, order []int32, lim dpLimits) (*dpResult, error) {
	n := len(order)
	pos := make([]int32, dg.n)
	for i, v := range order {
		pos[v] = int32(i)
	}
	pAcc := make([]float64, n+1)
	pCPU := make([]float64, n+1)
	size := make([]int64, n+1)
	cpuOnly := make([]int32, n+1)
	qn := minCosts(dg, lim.L)
	q := make([]float64, n+1)
	totalAcc, totalCPU := 0.0, 0.0
	for i, v := range order {
		pAcc[i+1] = pAcc[i] + dg.pAcc[v]
		pCPU[i+1] = pCPU[i] + dg.pCPU[v]
		size[i+1] = size[i] + dg.size[v]
		cpuOnly[i+1] = cpuOnly[i] + dg.cpuOnly[v]
		q[i+1] = q[i] + qn[v]
	}
	totalAcc, totalCPU = pAcc[n], pCPU[n]
	inc := linearIncidences(dg, pos)
	// lower bound: every node costs at least its cheaper time somewhere
	T := q[n] / float64(lim.K+lim.L)
	if !(T > 0) {
		T = math.Inf(1) // no compute at all: nothing to prune by
	}
	t := newDPTable(n+1, lim.K, lim.L)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bound := math.Min(T, lim.bound)
		pairs, err := fillDPL(ctx, t, inc, pAcc, pCPU, q, size, cpuOnly, lim, bound)
		if err != nil {
			return nil, err
		}
		v := t.val[n*t.stride+lim.K*(lim.L+1)+lim.L]
		// v <= bound: every segment of a split within bound was
		// considered, so v is the optimum; at bound = +Inf nothing was
		// pruned
		if v <= bound || bound == lim.bound {
			res := &dpResult{value: v, ideals: n + 1, pairs: pairs,
				tableBytes: int64(n+1)*int64(t.stride*12+8+8+8+8+4) + int64(len(inc.node))*24}
			if !math.IsInf(v, 1) {
				res.parts = t.backtrack(n, func(I, J int) []int32 { return slices.Clone(order[J:I]) })
			}
			return res, nil
		}
		// a finite v is a split's max-load, so it bounds the optimum: the
		// next round, at most v, is the last
		T = math.Min(2*T, v)
		if T >= totalAcc && (lim.L == 0 || T >= totalCPU) {
			// a split above the total compute pays for communication:
			// the last round prunes by memory only
			T = math.Inf(1)
		}
	}
}

// linearInc are the hyperedge incidences of each position of a linear
// order: at position p, inc.node[inc.start[p]:inc.start[p+1]].
type linearInc struct {
	start []int32
	node  []incidence
}

// incidence is a hyperedge h at a position p of the order: its cost, the
// position of its next node after p (n when none), whether p is its first
// node, and the position of its last node.
type incidence struct {
	cost       float64
	next, last int32
	first      bool
	_          [3]byte
}

func linearIncidences(dg *dpGraph, pos []int32) *linearInc {
	n := len(pos)
	x := &linearInc{start: make([]int32, n+1)}
	var ps []int32
	for _, e := range dg.hyper {
		for _, v := range e.nodes {
			x.start[pos[v]+1]++
		}
	}
	for p := 0; p < n; p++ {
		x.start[p+1] += x.start[p]
	}
	x.node = make([]incidence, x.start[n])
	next := append([]int32(nil), x.start[:n]...)
	for _, e := range dg.hyper {
		ps = ps[:0]
		for _, v := range e.nodes {
			ps = append(ps, pos[v])
		}
		slices.Sort(ps)
		last := ps[len(ps)-1]
		for j, p := range ps {
			nx := int32(n)
			if j+1 < len(ps) {
				nx = ps[j+1]
			}
			x.node[next[p]] = incidence{cost: e.cost, next: nx, last: last, first: j == 0}
			next[p]++
		}
	}
	return x
}

// fillDPL fills t over the prefixes, considering only segments whose
// compute is at most bound; it returns the number of segments considered.
func fillDPL(ctx context.Context, t *dpTable, inc *linearInc, pAcc, pCPU, q []float64, size []int64, cpuOnly []int32, lim dpLimits, bound float64) (int64, error) {
	n := len(pAcc) - 1
	K, L, stride := t.K, t.L, t.stride
	for i := stride; i < len(t.val); i++ {
		t.val[i] = math.Inf(1)
	}
	var pairs int64
	for b := 1; b <= n; b++ {
		if b%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		sp := devSpan(q[b], q[n], bound, K, L)
		if sp.lo > sp.hi {
			continue // no split within the bound passes through b
		}
		row := t.val[b*stride : (b+1)*stride]
		ch := t.choice[b*stride : (b+1)*stride]
		comm := 0.0
		accLim, cpuLim := rowLimits(row, K, L, sp)
		for a := b - 1; a >= 0; a-- {
			// S = [a, b): add position a
			for _, h := range inc.node[inc.start[a]:inc.start[a+1]] {
				was := h.next < int32(b)
				now := !(h.first && h.last < int32(b))
				switch {
				case now && !was:
					comm += h.cost
				case was && !now:
					comm -= h.cost
				}
			}
			sz, co := size[b]-size[a], cpuOnly[b]-cpuOnly[a]
			pa, pc := pAcc[b]-pAcc[a], pCPU[b]-pCPU[a]
			accOK := co == 0 && sz <= lim.accMem && pa <= bound && pa < accLim
			cpuOK := L > 0 && sz <= lim.cpuMem && pc <= bound && pc < cpuLim
			if !accOK && !cpuOK {
				break
			}
			pairs++
			acc, cpu := math.Inf(1), math.Inf(1)
			if accOK {
				acc = pa + comm
			}
			if cpuOK {
				cpu = pc
			}
			relaxLE(row, ch, t.val[a*stride:(a+1)*stride], int32(a)<<1, acc, cpu, K, L, sp)
			accLim, cpuLim = rowLimits(row, K, L, sp)
		}
		leaveUnused(row, ch, int32(b)<<1, K, L, sp)
	}
	return pairs, nil
}

// relaxLE is relax that lets an equal candidate win, since the sweep goes
// from large a to small and runDP keeps the smallest J among equals (and
// the accelerator before the CPU for one J).
func relaxLE(row []float64, ch []int32, prev []float64, cj int32, acc, cpu float64, K, L int, sp span) {
	inf := math.Inf(1)
	for d := sp.lo; d <= sp.hi; d++ {
		for k := max(0, d-L); k <= min(K, d); k++ {
			e := k*(L+1) + d - k
			va, vc := inf, inf
			if k > 0 {
				if va = prev[e-(L+1)]; acc > va {
					va = acc
				}
			}
			if d-k > 0 {
				if vc = prev[e-1]; cpu > vc {
					vc = cpu
				}
			}
			v, c := va, cj
			if vc < va {
				v, c = vc, cj|1
			}
			if v <= row[e] && v < inf {
				row[e], ch[e] = v, c
			}
		}
	}
}
