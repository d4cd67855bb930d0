package graphalg

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// FusionConfig tunes OptimalFusion (Celeritas section 5.1.3).
type FusionConfig struct {
	// Range is R of eq. 6: a cluster holds at most Range consecutive ops
	// of the order (the paper uses 200).
	Range int
	// MaxMemory is M of eq. 6: the memory of a cluster's ops may not
	// exceed it (a single op larger than M is a cluster of its own). The
	// paper uses a quarter of a device's memory.
	MaxMemory int64
}

// OptimalFusion cuts a topological order of d into clusters of
// consecutive ops so that the communication between clusters is smallest
// (Celeritas Algorithm 1, OPTIMAL_BP, after Kernighan's optimal sequential
// partitions). With the order v_1..v_n, a cut before position j after one
// before position i costs (eq. 4)
//
//	cost(i, j) = sum over k in [i, j) and m >= j of c_{k,m},
//
// the communication from the cluster [i, j) to every later op; the best
// cuts satisfy (eq. 6)
//
//	S(j) = min over i in [j-R, j-1] with mem[i, j) <= M of S(i) + cost(i, j),
//
// with S(0) = 0. cost(i, j) is accumulated as i decreases (eq. 5 read
// from the other end): each op's communication to positions >= j is a
// suffix sum over its successors sorted by position. Clusters are
// contiguous in a topological order, so the coarse graph has no loop
// (Lemma 2 and Theorem 1). comm is the communication time per dependency
// (Costs.Comm) and mem the memory per op. It returns the clusters, each in
// order, and the total inter-cluster communication S(n).
func OptimalFusion(ctx context.Context, d *DAG, order []int, comm []float64, mem []int64, cfg FusionConfig) ([][]int, float64, error) {
	n := len(order)
	if n != d.Len() {
		return nil, 0, fmt.Errorf("fusion: order has %d ops, graph %d", n, d.Len())
	}
	if cfg.Range < 1 {
		return nil, 0, fmt.Errorf("fusion: range R = %d (valid range: >= 1)", cfg.Range)
	}
	if cfg.MaxMemory < 0 {
		return nil, 0, fmt.Errorf("fusion: memory limit M = %d (valid range: >= 0 bytes)", cfg.MaxMemory)
	}
	pos := Positions(order)
	// per position: successor positions ascending, with suffix sums of
	// their communication (sSuf[k] = comm of entries k.. of the op's list)
	sStart := make([]int32, n+1)
	sPos := make([]int32, 0, d.NumDeps())
	sSuf := make([]float64, 0, d.NumDeps())
	type sc struct {
		p int32
		c float64
	}
	var tmp []sc
	for i, v := range order {
		sStart[i] = int32(len(sPos))
		tmp = tmp[:0]
		lo, hi := d.SuccRange(v)
		for j := lo; j < hi; j++ {
			p := int32(pos[d.SuccAt(j)])
			if int(p) <= i {
				return nil, 0, fmt.Errorf("fusion: the order is not topological (op at position %d precedes its predecessor at %d)", p, i)
			}
			tmp = append(tmp, sc{p, comm[d.DepOfSucc(j)]})
		}
		sort.Slice(tmp, func(a, b int) bool { return tmp[a].p < tmp[b].p })
		base := len(sSuf)
		for _, x := range tmp {
			sPos = append(sPos, x.p)
			sSuf = append(sSuf, x.c)
		}
		for k := len(sSuf) - 2; k >= base; k-- {
			sSuf[k] += sSuf[k+1]
		}
	}
	sStart[n] = int32(len(sPos))
	// outGE is the communication from position i to positions >= j
	outGE := func(i, j int) float64 {
		lo, hi := int(sStart[i]), int(sStart[i+1])
		k := lo + sort.Search(hi-lo, func(x int) bool { return int(sPos[lo+x]) >= j })
		if k == hi {
			return 0
		}
		return sSuf[k]
	}
	memPre := make([]int64, n+1)
	for i, v := range order {
		memPre[i+1] = memPre[i] + mem[v]
	}
	S := make([]float64, n+1)
	P := make([]int, n+1)
	for j := 1; j <= n; j++ {
		if j&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		S[j] = math.Inf(1)
		cost := 0.0
		for i := j - 1; i >= 0 && i >= j-cfg.Range; i-- {
			if i < j-1 && memPre[j]-memPre[i] > cfg.MaxMemory {
				break // memory only grows as the cluster grows
			}
			cost += outGE(i, j)
			// <=: on a tie the longer cluster wins (fewer coarse ops)
			if c := S[i] + cost; c <= S[j] {
				S[j], P[j] = c, i
			}
		}
	}
	var cuts []int
	for j := n; j > 0; j = P[j] {
		cuts = append(cuts, j)
	}
	clusters := make([][]int, 0, len(cuts))
	prev := 0
	for k := len(cuts) - 1; k >= 0; k-- {
		clusters = append(clusters, append([]int(nil), order[prev:cuts[k]]...))
		prev = cuts[k]
	}
	return clusters, S[n], nil
}

// CanMerge reports whether merging the ops u and v of an edge (u, v)
// keeps the graph acyclic: by Theorem 1 of Celeritas, exactly when there
// is no other path from u to v. It searches the paths from u's other
// successors, pruned by position in the topological order pos (Positions)
// since no path to v passes an op after v.
func CanMerge(d *DAG, pos []int, u, v int) bool {
	direct := false
	for _, s := range d.Succ(u) {
		if int(s) == v {
			direct = true
		}
	}
	if !direct {
		return false
	}
	seen := map[int]bool{}
	var stack []int
	for _, s := range d.Succ(u) {
		if int(s) != v && pos[s] < pos[v] {
			stack = append(stack, int(s))
			seen[int(s)] = true
		}
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range d.Succ(x) {
			if int(s) == v {
				return false
			}
			if !seen[int(s)] && pos[s] < pos[v] {
				seen[int(s)] = true
				stack = append(stack, int(s))
			}
		}
	}
	return true
}
