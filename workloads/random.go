package workloads

import (
	"fmt"
	"math/rand/v2"
)

// RandomLayered returns a seeded random layered DAG of n ops in layers of
// about width ops: each op past the first layer reads from 1 to 3 random
// ops of the previous layer. Op times are drawn in [10, 100) us (measured,
// any device), outputs in [64 KiB, 4 MiB). For benchmarks and fuzzing.
func RandomLayered(n, width int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	g := NewGraph(fmt.Sprintf("random%d", n), 32)
	g.Ops = make([]Op, 0, n)
	g.Edges = make([]Edge, 0, 2*n)
	prevStart, prevEnd := 0, 0
	for i := 0; i < n; i++ {
		if i%width == 0 {
			prevStart, prevEnd = prevEnd, i
			if i == 0 {
				prevStart = 0
			}
		}
		out := int64(64<<10 + r.IntN(4<<20-64<<10))
		g.AddOp(Op{Name: fmt.Sprintf("n%d", i), Type: "compute", OutputBytes: out,
			Measured: map[string]float64{MeasuredAny: 10e-6 + 90e-6*r.Float64()}})
		if prevEnd > prevStart {
			k := 1 + r.IntN(3)
			for j := 0; j < k; j++ {
				u := prevStart + r.IntN(prevEnd-prevStart)
				g.AddEdge(u, i, g.Ops[u].OutputBytes)
			}
		}
	}
	return g
}
