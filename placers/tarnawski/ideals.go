package tarnawski

import (
	"context"
	"fmt"
	"math/bits"
)

// ideals holds every ideal (downward-closed set, Definition 5.1) of a DP
// graph as a bitset, sorted by size, with the sums the DP needs.
type ideals struct {
	words int      // uint64 words per bitset
	bits  []uint64 // ideal i: bits[i*words : (i+1)*words]
	// levelStart[s] is the index of the first ideal with s nodes;
	// levelStart[n+1] = count
	levelStart []int32
	// sums over the ideal's nodes
	pAcc, pCPU []float64
	size       []int64
	cpuOnly    []int32
	// crossing hyperedges: a hyperedge crosses I when some but not all of
	// its nodes are in I. cross[crossStart[i]:crossStart[i+1]] lists them,
	// crossBits[i*hwords:] marks them, crossW[i] sums their costs.
	hwords     int
	crossStart []int32
	cross      []int32
	crossBits  []uint64
	crossW     []float64
}

func (s *ideals) count() int { return len(s.pAcc) }

func (s *ideals) set(i int) []uint64 { return s.bits[i*s.words : (i+1)*s.words] }

func (s *ideals) crossSet(i int) []uint64 { return s.crossBits[i*s.hwords : (i+1)*s.hwords] }

// enumerateIdeals lists the ideals of dg level by level (an ideal of s+1
// nodes is an ideal of s nodes plus a node whose predecessors are all in
// it), refusing more than limit of them.
func enumerateIdeals(ctx context.Context, dg *dpGraph, limit int) (*ideals, error) {
	n := dg.n
	w := (n + 63) / 64
	predBits := make([]uint64, n*w)
	for v := 0; v < n; v++ {
		for _, u := range dg.pred[v] {
			predBits[v*w+int(u)/64] |= 1 << (uint(u) % 64)
		}
	}
	s := &ideals{words: w}
	s.bits = make([]uint64, w) // the empty ideal
	s.levelStart = []int32{0}
	s.pAcc, s.pCPU, s.size, s.cpuOnly = []float64{0}, []float64{0}, []int64{0}, []int32{0}
	levelLo, levelHi := 0, 1
	child := make([]uint64, w)
	for level := 0; level < n; level++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.levelStart = append(s.levelStart, int32(levelHi))
		table := map[uint64][]int32{} // hash -> ideals of the next level
		for i := levelLo; i < levelHi; i++ {
			cur := s.bits[i*w : (i+1)*w]
			for v := 0; v < n; v++ {
				if cur[v/64]&(1<<(uint(v)%64)) != 0 || !subset(predBits[v*w:(v+1)*w], cur) {
					continue
				}
				copy(child, cur)
				child[v/64] |= 1 << (uint(v) % 64)
				h := hashBits(child)
				dup := false
				for _, j := range table[h] {
					if equalBits(s.bits[int(j)*w:(int(j)+1)*w], child) {
						dup = true
						break
					}
				}
				if dup {
					continue
				}
				if s.count() >= limit {
					return nil, fmt.Errorf("%w: graph %q has more than %d ideals (the DP needs them all; raise max-ideals or use tarnawski-dpl)", ErrTooManyIdeals, dg.name, limit)
				}
				j := int32(s.count())
				table[h] = append(table[h], j)
				s.bits = append(s.bits, child...)
				// the parent is already cur, which append may have moved
				cur = s.bits[i*w : (i+1)*w]
				s.pAcc = append(s.pAcc, s.pAcc[i]+dg.pAcc[v])
				s.pCPU = append(s.pCPU, s.pCPU[i]+dg.pCPU[v])
				s.size = append(s.size, s.size[i]+dg.size[v])
				s.cpuOnly = append(s.cpuOnly, s.cpuOnly[i]+dg.cpuOnly[v])
			}
		}
		levelLo, levelHi = levelHi, s.count()
	}
	s.levelStart = append(s.levelStart, int32(s.count()))
	s.crossings(dg)
	return s, nil
}

// crossings computes each ideal's crossing hyperedges.
func (s *ideals) crossings(dg *dpGraph) {
	H := len(dg.hyper)
	s.hwords = (H + 63) / 64
	N := s.count()
	s.crossBits = make([]uint64, N*s.hwords)
	s.crossW = make([]float64, N)
	s.crossStart = make([]int32, N+1)
	for i := 0; i < N; i++ {
		set := s.set(i)
		cb := s.crossSet(i)
		for h, e := range dg.hyper {
			in := 0
			for _, v := range e.nodes {
				if set[v/64]&(1<<(uint(v)%64)) != 0 {
					in++
				}
			}
			if in > 0 && in < len(e.nodes) {
				s.cross = append(s.cross, int32(h))
				cb[h/64] |= 1 << (uint(h) % 64)
				s.crossW[i] += e.cost
			}
		}
		s.crossStart[i+1] = int32(len(s.cross))
	}
}

func subset(a, b []uint64) bool {
	for i, x := range a {
		if x&^b[i] != 0 {
			return false
		}
	}
	return true
}

func equalBits(a, b []uint64) bool {
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}

func hashBits(a []uint64) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, x := range a {
		h ^= x
		h *= 0x100000001b3
		h = bits.RotateLeft64(h, 29)
	}
	return h
}
