package zoo_test

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// headFLOPs sums the forward FLOPs of g's ops whose layer group is group,
// and of those the GEMMs (matmul ops).
func headFLOPs(g *workloads.Graph, group string) (all, gemm float64) {
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role != workloads.Forward || workloads.LayerGroup(op.Layer) != group {
			continue
		}
		all += op.FLOPs
		if op.Type == "matmul" {
			gemm += op.FLOPs
		}
	}
	return all, gemm
}

// TestBERTMaskedLMHeadAtMaskedPositions: the masked-LM head's GEMMs run on
// batch x max_predictions_per_seq rows, as Google's and NVIDIA's
// pre-training programs gather them (20 at seq 128, 80 at seq 512 by
// default; predictions= overrides): the transform dense 2 P H H + P H (its
// bias in the GEMM under the PyTorch profile) and the decoder to the
// vocabulary 2 P H V, with P = batch x predictions, whatever seq is.
func TestBERTMaskedLMHeadAtMaskedPositions(t *testing.T) {
	const tol = 1e-12
	const vocab = 30522
	tests := []struct {
		spec                    string
		batch, hidden, predicts int
	}{
		{"bert?size=large&seq=512&training=true&batch=1", 1, 1024, 80},
		{"bert?size=large&seq=128&training=true&batch=4", 4, 1024, 20},
		{"bert?size=base&seq=512&batch=2", 2, 768, 80},
		{"bert?size=base&seq=512&batch=2&predictions=7", 2, 768, 7},
		{"bert?size=base&seq=64&batch=3", 3, 768, 10}, // ceil(5*64/32)
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			g := build(t, tc.spec+"&framework=pytorch")
			p := float64(tc.batch * tc.predicts)
			h := float64(tc.hidden)
			want := 2*p*h*h + p*h + 2*p*h*vocab
			all, gemm := headFLOPs(g, "mlm")
			if !scalar.EqualWithinAbsOrRel(gemm, want, 0, tol) {
				t.Errorf("masked-LM head GEMM FLOPs %.6g, want %.6g (%d positions)", gemm, want, tc.batch*tc.predicts)
			}
			// the rest of the head (GELU, layer norm, bias, softmax, loss)
			// is pointwise on P x H or P x V elements: well under the GEMMs
			if rest := all - gemm; rest < 0 || rest > 0.05*gemm {
				t.Errorf("masked-LM head's non-GEMM FLOPs %.4g against GEMM %.4g", rest, gemm)
			}
		})
	}
	// the next-sentence head: the pooler's dense on the first token only
	g := build(t, "bert?size=large&seq=512&batch=3&framework=pytorch")
	_, pool := headFLOPs(g, "pooler")
	if want := 2*3*1024*1024 + 3*1024.0; !scalar.EqualWithinAbsOrRel(pool, want, 0, tol) {
		t.Errorf("pooler GEMM FLOPs %.6g, want %.6g (first token of 3 sequences)", pool, want)
	}
}

// TestBERTPredictionsRange: predictions= outside [1, seq] is refused with
// the valid range.
func TestBERTPredictionsRange(t *testing.T) {
	for _, spec := range []string{"bert?seq=128&predictions=0", "bert?seq=128&predictions=129"} {
		_, err := zoo.Build(spec)
		if err == nil || !strings.Contains(err.Error(), "predictions") {
			t.Errorf("%s: error %v, want one naming predictions and its range", spec, err)
		}
	}
	for seq, want := range map[int]int{128: 20, 512: 80, 1: 1, 8: 2} {
		if got := zoo.DefaultBERTPredictions(seq); got != want {
			t.Errorf("DefaultBERTPredictions(%d) = %d, want %d", seq, got, want)
		}
	}
}

// TestBERTDropouts: a BERT layer has three dropouts (attention
// probabilities, attention output, FFN output), none between the FFN's
// two dense layers; under the XLA profile (TensorFlow auto-clustering)
// each draws its random numbers in a RandomUniform op of its own that
// writes them as FP32, whatever the precision, read by the fused kernel
// and again by its gradient.
func TestBERTDropouts(t *testing.T) {
	const layers, b, s = 2, 3, 16
	spec := "bert?layers=2&seq=16&batch=3&training=true&precision=amp-fp16"
	for _, fw := range []string{"pytorch", "xla"} {
		g := build(t, spec+"&framework="+fw)
		var inner int
		for i := range g.Ops {
			if strings.Contains(g.Ops[i].Name, "dropout_inner") {
				inner++
			}
		}
		if inner != 0 {
			t.Errorf("%s: %d ops of a dropout between the FFN's dense layers, want none", fw, inner)
		}
	}
	g := build(t, "bert?layers=2&seq=16&batch=3&training=true&precision=amp-fp16&framework=xla&size=base")
	var rng, rngBytes int64
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Type != "random-uniform" {
			continue
		}
		rng++
		rngBytes += op.OutputBytes
		// the fused readers and their gradients read it
		if n := len(g.Out(i)); n < 2 {
			t.Errorf("%s: read by %d ops, want the dropout and its gradient", op.Name, n)
		}
	}
	// per layer the probabilities' [b, heads, s, s] and two [b, s, h];
	// the embedding's [b, s, h] once (size=base: h = 768, heads = 12)
	const hb, hh = 768, 12
	want := int64(4 * (layers*(b*hh*s*s+2*b*s*hb) + b*s*hb))
	if rng != 3*layers+1 || rngBytes != want {
		t.Errorf("xla: %d random-uniform ops writing %d bytes, want %d writing %d (FP32)", rng, rngBytes, 3*layers+1, want)
	}
}

// TestXLAMomentsLayerNorm: under the XLA profile (TensorFlow's
// moments-based layer norm in three kernels) a layer norm reads its inputs
// once more than the same op under PyTorch's one fused kernel, and its
// gradient reads its inputs and its output gradient once more than the
// training derivation counts.
func TestXLAMomentsLayerNorm(t *testing.T) {
	const spec = "bert?layers=1&seq=16&batch=2&training=true&size=base&framework=xla"
	const name = "encoder/layer_0/ffn/dropout_residual_layer_norm"
	g := build(t, spec)
	var fwd, grad *workloads.Op
	for i := range g.Ops {
		switch g.Ops[i].Name {
		case name:
			fwd = &g.Ops[i]
		case name + "/grad":
			grad = &g.Ops[i]
		}
	}
	if fwd == nil || grad == nil {
		t.Fatalf("no op %s or its gradient", name)
	}
	var in int64
	for _, e := range g.In(fwd.ID) {
		in += g.Edges[e].Bytes
	}
	if want := 2*in + fwd.OutputBytes + fwd.ParamBytes; fwd.BytesAccessed != want {
		t.Errorf("forward bytes %d, want %d: the inputs read twice (%d), the output and parameters once", fwd.BytesAccessed, want, in)
	}
	// the derivation's count: every edge into the gradient (dY and the
	// saved inputs) and what it writes (the gradients of the inputs but
	// the random numbers, and of the parameters); then the inputs and dY
	// (the output's size) once more
	var read, written int64
	for _, e := range g.In(grad.ID) {
		read += g.Edges[e].Bytes
	}
	for _, e := range g.In(fwd.ID) {
		if g.Ops[g.Edges[e].From].Type != "random-uniform" {
			written += g.Edges[e].Bytes
		}
	}
	written += fwd.ParamBytes
	if want := read + written + in + fwd.OutputBytes; grad.BytesAccessed != want {
		t.Errorf("gradient bytes %d, want %d (derivation %d, plus the inputs %d and dY %d once more)", grad.BytesAccessed, want, read+written, in, fwd.OutputBytes)
	}
}

// TestXLAAttentionHeads: under XLA the query, key and value are each
// transposed to [batch, heads, seq, head size] by a copy (a batched dot
// takes its batch dimensions most major) and the scores' scale is part of
// the softmax; PyTorch reads the heads through strided views and scales
// the query in a kernel of its own.
func TestXLAAttentionHeads(t *testing.T) {
	count := func(fw string) (transposes, scales int) {
		g := build(t, "bert?layers=1&seq=16&batch=2&size=base&framework="+fw)
		for i := range g.Ops {
			op := &g.Ops[i]
			if !strings.Contains(op.Name, "self_attention") {
				continue
			}
			switch {
			case op.Type == "transpose":
				transposes++
			case strings.HasSuffix(op.Name, "q/scale"):
				scales++
			}
		}
		return
	}
	if tr, sc := count("xla"); tr != 4 || sc != 0 {
		t.Errorf("xla: %d transposes, %d scale ops; want 4 (query, key, value, heads combined) and 0", tr, sc)
	}
	if tr, sc := count("pytorch"); tr != 1 || sc != 1 {
		t.Errorf("pytorch: %d transposes, %d scale ops; want 1 (heads combined) and 1", tr, sc)
	}
}
