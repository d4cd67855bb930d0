package workloads

import "fmt"

// Tiny graphs for tests and examples. Op times are given as measured times
// valid on any device (Measured[MeasuredAny]) so closed-form results are
// easy to derive; FLOPs are set too, for the roofline.

// Chain returns n ops in a line; op i takes times[i%len(times)] seconds and
// sends bytes to op i+1.
func Chain(n int, times []float64, bytes int64) *Graph {
	g := NewGraph(fmt.Sprintf("chain%d", n), 1)
	for i := 0; i < n; i++ {
		g.AddOp(Op{Name: fmt.Sprintf("op%d", i), Type: "compute", OutputBytes: bytes,
			Measured: map[string]float64{MeasuredAny: times[i%len(times)]}})
		if i > 0 {
			g.AddEdge(i-1, i, bytes)
		}
	}
	return g
}

// Diamond returns a -> {b, c} -> d. Each op takes t seconds and outputs out
// bytes; every edge carries the producer's whole output.
func Diamond(t float64, out int64) *Graph {
	g := NewGraph("diamond", 1)
	for _, n := range []string{"a", "b", "c", "d"} {
		g.AddOp(Op{Name: n, Type: "compute", OutputBytes: out, Measured: map[string]float64{MeasuredAny: t}})
	}
	g.AddEdge(0, 1, out)
	g.AddEdge(0, 2, out)
	g.AddEdge(1, 3, out)
	g.AddEdge(2, 3, out)
	return g
}

// ForkJoin returns a source, width parallel branches of depth ops each, and
// a sink. Every op takes t seconds and outputs out bytes.
func ForkJoin(width, depth int, t float64, out int64) *Graph {
	g := NewGraph(fmt.Sprintf("forkjoin%dx%d", width, depth), 1)
	m := map[string]float64{MeasuredAny: t}
	src := g.AddOp(Op{Name: "fork", Type: "compute", OutputBytes: out, Measured: m})
	var ends []int
	for w := 0; w < width; w++ {
		prev := src
		for d := 0; d < depth; d++ {
			id := g.AddOp(Op{Name: fmt.Sprintf("b%d_%d", w, d), Type: "compute", OutputBytes: out, Measured: m})
			g.AddEdge(prev, id, out)
			prev = id
		}
		ends = append(ends, prev)
	}
	sink := g.AddOp(Op{Name: "join", Type: "compute", OutputBytes: out, Measured: m})
	for _, e := range ends {
		g.AddEdge(e, sink, out)
	}
	return g
}

// MLP returns the forward graph of a multi-layer perceptron with the given
// layer widths (widths[0] is the input size), fp32, for a batch: per layer a
// matmul (with the weight as parameters), a bias-add and a ReLU. Costs come
// from shapes (1 MAC = 2 FLOPs); there are no measured times.
func MLP(batch int, widths []int) *Graph {
	g := NewGraph(fmt.Sprintf("mlp%d", len(widths)-1), batch)
	const f32 = 4
	b := int64(batch)
	in := g.AddOp(Op{Name: "input", Type: "input", Layer: "input", OutputBytes: b * int64(widths[0]) * f32})
	prev, prevW := in, widths[0]
	for l := 1; l < len(widths); l++ {
		w := widths[l]
		layer := fmt.Sprintf("fc%d", l)
		act := b * int64(w) * f32
		mm := g.AddOp(Op{Name: layer + "/matmul", Type: "matmul", Layer: layer,
			FLOPs:         2 * float64(b) * float64(prevW) * float64(w),
			BytesAccessed: (b*int64(prevW) + int64(prevW)*int64(w) + b*int64(w)) * f32,
			FixedBytes:    int64(prevW) * int64(w) * f32, // the weights, at any batch
			OutputBytes:   act, ParamBytes: int64(prevW) * int64(w) * f32})
		g.AddEdge(prev, mm, b*int64(prevW)*f32)
		ba := g.AddOp(Op{Name: layer + "/bias", Type: "bias-add", Layer: layer,
			FLOPs: float64(b) * float64(w), BytesAccessed: 2*act + int64(w)*f32, FixedBytes: int64(w) * f32,
			OutputBytes: act, ParamBytes: int64(w) * f32})
		g.AddEdge(mm, ba, act)
		re := g.AddOp(Op{Name: layer + "/relu", Type: "relu", Layer: layer,
			FLOPs: float64(b) * float64(w), BytesAccessed: 2 * act, OutputBytes: act})
		g.AddEdge(ba, re, act)
		prev, prevW = re, w
	}
	return g
}
