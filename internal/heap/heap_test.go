package heap_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"placesim/internal/heap"
)

type item struct {
	key float64
	seq int
}

func less(a, b *item) bool { return a.key < b.key || (a.key == b.key && a.seq < b.seq) }

// TestHeapSortsLikeSort pushes and pops random items (with many equal
// keys, told apart by seq) in random interleavings and checks every pop
// against a sorted reference.
func TestHeapSortsLikeSort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		h := heap.New(less)
		var ref []item
		seq := 0
		for step := 0; step < 300; step++ {
			if h.Len() != len(ref) {
				t.Fatalf("round %d: Len() = %d, want %d", round, h.Len(), len(ref))
			}
			if len(ref) > 0 && rng.IntN(3) == 0 {
				slices.SortFunc(ref, func(a, b item) int {
					if less(&a, &b) {
						return -1
					}
					return 1
				})
				if top := h.Top(); top != ref[0] {
					t.Fatalf("round %d: Top() = %v, want %v", round, top, ref[0])
				}
				if got := h.Pop(); got != ref[0] {
					t.Fatalf("round %d: Pop() = %v, want %v", round, got, ref[0])
				}
				ref = ref[1:]
				continue
			}
			x := item{key: float64(rng.IntN(8)), seq: seq}
			seq++
			h.Push(x)
			ref = append(ref, x)
		}
	}
}

func TestHeapInit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50; n++ {
		xs := make([]item, n)
		for i := range xs {
			xs[i] = item{key: float64(rng.IntN(5)), seq: i}
		}
		want := slices.Clone(xs)
		slices.SortFunc(want, func(a, b item) int {
			if less(&a, &b) {
				return -1
			}
			return 1
		})
		h := heap.New(less)
		h.Init(xs)
		for i, w := range want {
			if got := h.Pop(); got != w {
				t.Fatalf("n=%d: pop %d = %v, want %v", n, i, got, w)
			}
		}
		if h.Len() != 0 {
			t.Fatalf("n=%d: %d items left", n, h.Len())
		}
		h.Push(item{key: 1})
		h.Reset()
		if h.Len() != 0 {
			t.Fatalf("n=%d: Reset left %d items", n, h.Len())
		}
	}
}

func BenchmarkPushPop(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	keys := make([]float64, 1024)
	for i := range keys {
		keys[i] = rng.Float64()
	}
	h := heap.New(less)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j, k := range keys {
			h.Push(item{key: k, seq: j})
		}
		for h.Len() > 0 {
			h.Pop()
		}
	}
	b.ReportMetric(float64(b.N*len(keys))/b.Elapsed().Seconds(), "items/s")
}
