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
	parts   []part
	value   float64
	ideals  int
	pairs   int64 // (I', I) pairs with I' ⊆ I that were evaluated
	tableMB float64
}

// dpTable is dp[I][k'][l'] and its argmin, flat: entry (I, k', l') is at
// I*stride + k'*(L+1) + l'.
type dpTable struct {
	K, L, stride int
	val          []float64
	// choice = I'<<1 | 1 if the last part (I \ I') is on a CPU
	choice []int32
}

// runDP fills the DP of section 5.1.1 over the ideals s of dg with K
// accelerators of memory accMem and L CPUs of memory cpuMem:
//
//	dp[I][k'][l'] = min over ideals I' ⊆ I of
//	  min( max(dp[I'][k'-1][l'], acc(I \ I')), max(dp[I'][k'][l'-1], cpu(I \ I')) )
//
// where acc(S) is the incoming communication, compute and outgoing
// communication of S (+Inf when S does not fit or holds a node an
// accelerator cannot run), and cpu(S) its CPU compute. Ideals of one size
// are independent and are split over workers goroutines; each I scans the
// smaller ideals in index order, so the result does not depend on the
// number of workers.
func runDP(ctx context.Context, dg *dpGraph, s *ideals, K, L int, accMem, cpuMem int64, workers int) (*dpResult, error) {
	N := s.count()
	stride := (K + 1) * (L + 1)
	t := &dpTable{K: K, L: L, stride: stride, val: make([]float64, N*stride), choice: make([]int32, N*stride)}
	for i := stride; i < len(t.val); i++ {
		t.val[i] = math.Inf(1)
	}
	// dp[∅][*][*] = 0: the empty ideal with any devices left unused
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var pairs atomic.Int64
	nlev := len(s.levelStart) - 1
	for lev := 1; lev < nlev; lev++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lo, hi := int(s.levelStart[lev]), int(s.levelStart[lev+1])
		if hi-lo < 2*workers || workers == 1 {
			var local int64
			for i := lo; i < hi; i++ {
				local += fillIdeal(dg, s, t, i, lo, accMem, cpuMem)
			}
			pairs.Add(local)
			continue
		}
		var next atomic.Int64
		next.Store(int64(lo))
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var local int64
				for {
					i := int(next.Add(1) - 1)
					if i >= hi {
						break
					}
					local += fillIdeal(dg, s, t, i, lo, accMem, cpuMem)
				}
				pairs.Add(local)
			}()
		}
		wg.Wait()
	}
	full := N - 1
	res := &dpResult{value: t.val[full*stride+K*(L+1)+L], ideals: N, pairs: pairs.Load(),
		tableMB: float64(len(t.val)*8+len(t.choice)*4) / (1 << 20)}
	if math.IsInf(res.value, 1) {
		return res, nil
	}
	// walk the choices back from (V, K, L)
	I, k, l := full, K, L
	for I != 0 {
		c := t.choice[I*stride+k*(L+1)+l]
		J, cpu := int(c>>1), c&1 == 1
		if J != I {
			res.parts = append(res.parts, part{nodes: diffNodes(s.set(I), s.set(J)), cpu: cpu})
		}
		if cpu {
			l--
		} else {
			k--
		}
		I = J
	}
	for i, j := 0, len(res.parts)-1; i < j; i, j = i+1, j-1 {
		res.parts[i], res.parts[j] = res.parts[j], res.parts[i]
	}
	return res, nil
}

// fillIdeal computes dp[I][*][*] from every smaller ideal I' ⊆ I (those
// with index < lo), and returns the number of pairs evaluated.
func fillIdeal(dg *dpGraph, s *ideals, t *dpTable, I, lo int, accMem, cpuMem int64) int64 {
	K, L, stride := t.K, t.L, t.stride
	row := t.val[I*stride : (I+1)*stride]
	ch := t.choice[I*stride : (I+1)*stride]
	setI := s.set(I)
	crossI := s.crossSet(I)
	var pairs int64
	for J := 0; J < lo; J++ {
		setJ := s.set(J)
		if !subset(setJ, setI) {
			continue
		}
		pairs++
		acc := math.Inf(1)
		if s.cpuOnly[I] == s.cpuOnly[J] && s.size[I]-s.size[J] <= accMem {
			acc = s.pAcc[I] - s.pAcc[J] + commCost(dg, s, I, J, setI, setJ, crossI)
		}
		cpu := math.Inf(1)
		if s.size[I]-s.size[J] <= cpuMem {
			cpu = s.pCPU[I] - s.pCPU[J]
		}
		prev := t.val[J*stride : (J+1)*stride]
		cj := int32(J) << 1
		for k := 0; k <= K; k++ {
			for l := 0; l <= L; l++ {
				e := k*(L+1) + l
				if k > 0 {
					if v := math.Max(prev[e-(L+1)], acc); v < row[e] {
						row[e], ch[e] = v, cj
					}
				}
				if l > 0 {
					if v := math.Max(prev[e-1], cpu); v < row[e] {
						row[e], ch[e] = v, cj|1
					}
				}
			}
		}
	}
	// S = ∅: leave a device unused
	self := int32(I) << 1
	for k := 0; k <= K; k++ {
		for l := 0; l <= L; l++ {
			e := k*(L+1) + l
			if k > 0 && row[e-(L+1)] < row[e] {
				row[e], ch[e] = row[e-(L+1)], self
			}
			if l > 0 && row[e-1] < row[e] {
				row[e], ch[e] = row[e-1], self|1
			}
		}
	}
	return pairs
}

// commCost is the communication of S = I \ J (J ⊆ I): every hyperedge
// that S cuts. A hyperedge crossing exactly one of I and J is cut; one
// crossing both is cut when it meets S; one crossing neither is not:
//
//	comm(S) = W(I) + W(J) - sum over h crossing both of c_h (2 - [h meets S])
func commCost(dg *dpGraph, s *ideals, I, J int, setI, setJ, crossI []uint64) float64 {
	c := s.crossW[I] + s.crossW[J]
	for _, h := range s.cross[s.crossStart[J]:s.crossStart[J+1]] {
		if crossI[h/64]&(1<<(uint(h)%64)) == 0 {
			continue
		}
		e := &dg.hyper[h]
		meets := false
		for _, v := range e.nodes {
			m := uint64(1) << (uint(v) % 64)
			if setI[v/64]&m != 0 && setJ[v/64]&m == 0 {
				meets = true
				break
			}
		}
		if meets {
			c -= e.cost
		} else {
			c -= 2 * e.cost
		}
	}
	return c
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
