package tarnawski

import (
	"context"
	"fmt"
	"math/bits"
)

// ideals holds every ideal (downward-closed set, Definition 5.1) of a DP
// graph as a bitset, sorted by size, with the sums the DP needs and the
// ideal lattice's cover relation: the immediate sub-ideals of each ideal.
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
	// the immediate sub-ideals of ideal i are subs[subStart[i]:subStart[i+1]]:
	// ideal sub.ideal is ideal i without node sub.node (a maximal node of i)
	subStart []int32
	subs     []subIdeal
}

// subIdeal is one edge of the ideal lattice's Hasse diagram.
type subIdeal struct{ ideal, node int32 }

func (s *ideals) count() int { return len(s.pAcc) }

func (s *ideals) set(i int) []uint64 { return s.bits[i*s.words : (i+1)*s.words] }

// idealBytes is the memory one ideal takes, with its row of the DP table
// (stride entries), and hasseBytes the memory of one lattice edge: what
// the DP's memory limit counts.
func idealBytes(words, stride int) int64 {
	const sums = 8 + 8 + 8 + 4 + 4 // pAcc, pCPU, size, cpuOnly, subStart
	const index = 8 + 4 + 16       // hash table entry while enumerating (amortised)
	return int64(words*8+sums+index) + int64(stride)*(8+4)
}

const hasseBytes = 8

// enumerateIdeals lists the ideals of dg level by level (an ideal of s+1
// nodes is an ideal of s nodes plus a node whose predecessors are all in
// it), with their immediate sub-ideals. It refuses to go on when the
// ideals, their lattice and a DP table of stride entries per ideal would
// take more than maxBytes, or when there are more than maxIdeals ideals
// (0: no count limit): it stops at the first ideal past either limit, so
// that a refusal costs no more than enumerating maxIdeals ideals.
func enumerateIdeals(ctx context.Context, dg *dpGraph, stride int, maxBytes int64, maxIdeals int) (*ideals, error) {
	n := dg.n
	w := (n + 63) / 64
	predBits := make([]uint64, n*w)
	for v := 0; v < n; v++ {
		for _, u := range dg.pred[v] {
			predBits[v*w+int(u)/64] |= 1 << (uint(u) % 64)
		}
	}
	perIdeal := idealBytes(w, stride)
	s := &ideals{words: w}
	s.bits = make([]uint64, w) // the empty ideal
	s.levelStart = []int32{0}
	s.pAcc, s.pCPU, s.size, s.cpuOnly = []float64{0}, []float64{0}, []int64{0}, []int32{0}
	s.subStart = []int32{0, 0}
	levelLo, levelHi := 0, 1
	child := make([]uint64, w)
	type edge struct{ child, parent, node int32 }
	var level []edge
	for depth := 0; depth < n; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.levelStart = append(s.levelStart, int32(levelHi))
		table := make(map[uint64][]int32, levelHi-levelLo) // hash -> ideals of the next level
		level = level[:0]
		for i := levelLo; i < levelHi; i++ {
			cur := s.bits[i*w : (i+1)*w]
			for v := 0; v < n; v++ {
				if cur[v/64]&(1<<(uint(v)%64)) != 0 || !subset(predBits[v*w:(v+1)*w], cur) {
					continue
				}
				copy(child, cur)
				child[v/64] |= 1 << (uint(v) % 64)
				h := hashBits(child)
				j := int32(-1)
				for _, k := range table[h] {
					if equalBits(s.bits[int(k)*w:(int(k)+1)*w], child) {
						j = k
						break
					}
				}
				if j < 0 {
					if maxIdeals > 0 && s.count() >= maxIdeals {
						return nil, fmt.Errorf("%w: graph %q (%d DP nodes) has more than %d ideals (limit %d: the DP walks up to I²/2 ideal pairs, about %s at the limit; tarnawski-dpl needs %d ideals)",
							ErrTooManyIdeals, dg.name, n, s.count(), maxIdeals, pairTime(maxIdeals), n+1)
					}
					need := int64(s.count()+1)*perIdeal + int64(len(s.subs)+len(level)+1)*hasseBytes
					if need > maxBytes {
						return nil, fmt.Errorf("%w: graph %q (%d DP nodes) has more than %d ideals, and the DP over them would need more than %s (limit %s, option max-memory-mib; tarnawski-dpl needs %d ideals)",
							ErrTooManyIdeals, dg.name, n, s.count(), formatBytes(need), formatBytes(maxBytes), n+1)
					}
					j = int32(s.count())
					table[h] = append(table[h], j)
					s.bits = append(s.bits, child...)
					// the parent is already cur, which append may have moved
					cur = s.bits[i*w : (i+1)*w]
					s.pAcc = append(s.pAcc, s.pAcc[i]+dg.pAcc[v])
					s.pCPU = append(s.pCPU, s.pCPU[i]+dg.pCPU[v])
					s.size = append(s.size, s.size[i]+dg.size[v])
					s.cpuOnly = append(s.cpuOnly, s.cpuOnly[i]+dg.cpuOnly[v])
				}
				level = append(level, edge{j, int32(i), int32(v)})
			}
		}
		// the level's lattice edges, grouped by child (children are
		// numbered in order of discovery, so a counting sort keeps the
		// parents' order)
		lo := levelHi
		levelLo, levelHi = levelHi, s.count()
		cnt := make([]int32, levelHi-lo+1)
		for _, e := range level {
			cnt[int(e.child)-lo+1]++
		}
		base := int32(len(s.subs))
		for i := 1; i < len(cnt); i++ {
			cnt[i] += cnt[i-1]
		}
		for i := 0; i < levelHi-lo; i++ {
			s.subStart = append(s.subStart, base+cnt[i+1])
		}
		s.subs = append(s.subs, make([]subIdeal, len(level))...)
		for _, e := range level {
			k := int(e.child) - lo
			s.subs[int(base)+int(cnt[k])] = subIdeal{e.parent, e.node}
			cnt[k]++
		}
	}
	s.levelStart = append(s.levelStart, int32(s.count()))
	return s, nil
}

// DefaultMaxIdeals is the most ideals the DP enumerates before it stops
// with ErrTooManyIdeals (tarnawski-dp then returns DPL's split as a
// fallback; the IPs start from DPL's split). The DP's time grows with the
// ideal pairs it walks, up to I²/2 (section 5.1.1's O(I²) term): measured
// on the development machine (2 shared cores), BERT-3's training operator
// graph (2,774 ideals, 1.8 M pairs) takes 0.54 s, about 3.4 M pairs per
// second, so 20,000 ideals (up to 200 M pairs) take about a minute at
// worst. Every msr-fiddle workload (at most 2,774 ideals) and the paper's
// GNMT (17,914) are under it; Table 1's Inception-V3 (36,596 ideals, 32 to
// 58 minutes in the paper) is over it.
const DefaultMaxIdeals = 20000

// pairsPerSecond is the DP's measured walking speed (see
// DefaultMaxIdeals), used only to say what a limit means in time.
const pairsPerSecond = 3.4e6

// pairTime says how long the DP's walk over I²/2 ideal pairs takes at
// pairsPerSecond.
func pairTime(ideals int) string {
	sec := float64(ideals) * float64(ideals) / 2 / pairsPerSecond
	if sec < 120 {
		return fmt.Sprintf("%.0f s", sec)
	}
	return fmt.Sprintf("%.0f min", sec/60)
}

// memory is the memory the ideals, their lattice and a DP table of stride
// entries per ideal take (bytes), as the limit counts it.
func (s *ideals) memory(stride int) int64 {
	return int64(s.count())*idealBytes(s.words, stride) + int64(len(s.subs))*hasseBytes
}

// formatBytes prints a byte count in MiB or GiB.
func formatBytes(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
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
