package zoo_test

import (
	"fmt"
	"strings"
	"testing"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// fairseqSpec is a small Transformer in the pytorch profile (fairseq):
// B sequences of T tokens, D hidden, V vocabulary, L layers per stack.
const (
	fsB, fsT, fsD, fsV, fsL = 4, 8, 64, 1000, 2
	fairseqSpec             = "zoo:transformer?layers=2&hidden=64&heads=2&ff=128&vocab=1000&seq=8&batch=4&training=true"
)

// opsByName indexes a graph's ops by name.
func opsByName(g *workloads.Graph) map[string]*workloads.Op {
	m := make(map[string]*workloads.Op, len(g.Ops))
	for i := range g.Ops {
		m[g.Ops[i].Name] = &g.Ops[i]
	}
	return m
}

func mustOp(t *testing.T, m map[string]*workloads.Op, name string) *workloads.Op {
	t.Helper()
	op, ok := m[name]
	if !ok {
		t.Fatalf("no op %q", name)
	}
	return op
}

// TestFairseqLoss: the loss's kernels and their bytes in closed form
// (ddp_trainer.py:201 and criterions.py:28-42 at DeepLearningExamples
// 729963dd): log_softmax reads the logits (a bytes per element: 4 FP32,
// 2 FP16) and writes FP32 log-probabilities without a separate cast; the
// smoothing sum reads them once more; backward, gather's gradient writes
// a dense FP32 [N, V], the expanded smoothing gradient is added into it
// in place (two passes), and log_softmax's backward reads it and the
// saved output and writes the logits' gradient (a bytes).
func TestFairseqLoss(t *testing.T) {
	const n = fsB * fsT
	const nv = int64(n) * fsV
	for _, tc := range []struct {
		prec string
		a    int64
	}{{"fp32", 4}, {"amp-fp16", 2}} {
		t.Run(tc.prec, func(t *testing.T) {
			g := build(t, fairseqSpec+"&precision="+tc.prec)
			m := opsByName(g)
			const p = "decoder/softmax/loss/"
			lsm := mustOp(t, m, p+"log_softmax")
			if want := nv*tc.a + nv*4; lsm.BytesAccessed != want || lsm.OutputBytes != nv*4 {
				t.Errorf("log_softmax: %d bytes accessed, %d written; want %d, %d", lsm.BytesAccessed, lsm.OutputBytes, want, nv*4)
			}
			if sm := mustOp(t, m, p+"smooth_sum"); sm.BytesAccessed != nv*4+n*4 {
				t.Errorf("smooth_sum: %d bytes accessed, want %d", sm.BytesAccessed, nv*4+n*4)
			}
			for name := range m {
				if strings.Contains(name, "/loss/") && strings.Contains(name, "cast") {
					t.Errorf("op %q: the log_softmax casts nothing itself", name)
				}
			}
			gg := mustOp(t, m, p+"nll_gather/grad")
			if gg.BytesAccessed < nv*4 || gg.BytesAccessed > nv*4+4*int64(n)*8 {
				t.Errorf("gather's gradient: %d bytes accessed, want the dense %d plus per-row terms", gg.BytesAccessed, nv*4)
			}
			if s := mustOp(t, m, p+"log_softmax/grad_sum"); s.BytesAccessed != 2*nv*4+n*4 {
				t.Errorf("gradient sum: %d bytes accessed, want %d (in-place add of the expanded row sums)", s.BytesAccessed, 2*nv*4+n*4)
			}
			if lg := mustOp(t, m, p+"log_softmax/grad"); lg.BytesAccessed != nv*4+nv*4+nv*tc.a {
				t.Errorf("log_softmax backward: %d bytes accessed, want %d", lg.BytesAccessed, nv*4+nv*4+nv*tc.a)
			}
		})
	}
}

// TestFairseqAMPCasts: under autocast the residual stream is FP32, every
// layer norm (apex's FusedLayerNorm) casts its input to FP16 and writes
// FP16, and every attention casts its FP32 weights after dropout for the
// second batched GEMM: (2L+1) + (3L+1) norms and 3L attentions, 8L + 2
// casts. FP32 has none. The residual adds write FP32, the norms FP16.
func TestFairseqAMPCasts(t *testing.T) {
	for _, tc := range []struct {
		prec  string
		casts int
		norm  int64
	}{{"fp32", 0, 4}, {"amp-fp16", 8*fsL + 2, 2}} {
		t.Run(tc.prec, func(t *testing.T) {
			g := build(t, fairseqSpec+"&precision="+tc.prec)
			casts := 0
			for i := range g.Ops {
				op := &g.Ops[i]
				if op.Role == workloads.Forward && op.Type == "cast-fp16" {
					casts++
				}
				if op.Role == workloads.Forward && strings.HasSuffix(op.Name, "/residual") && op.OutputBytes != 4*fsB*fsT*fsD {
					t.Errorf("%s writes %d bytes, want FP32 %d", op.Name, op.OutputBytes, 4*fsB*fsT*fsD)
				}
				if op.Role == workloads.Forward && op.Type == "layernorm" && op.OutputBytes != tc.norm*fsB*fsT*fsD {
					t.Errorf("%s writes %d bytes, want %d", op.Name, op.OutputBytes, tc.norm*fsB*fsT*fsD)
				}
			}
			if casts != tc.casts {
				t.Errorf("%d casts to FP16, want %d", casts, tc.casts)
			}
		})
	}
}

// TestFairseqStructure: pre-norm with a final layer norm per stack
// (transformer_wmt_en_de_big_t2t), no separate query scaling (folded into
// the GEMM's alpha), the causal mask added in the decoder's
// self-attention only (no padding in the zoo's batches), no head
// transposes copied; impl=vaswani keeps the paper's post-norm graph.
func TestFairseqStructure(t *testing.T) {
	g := build(t, fairseqSpec)
	m := opsByName(g)
	norms := 0
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role != workloads.Forward {
			continue
		}
		if op.Type == "layernorm" {
			norms++
		}
		if strings.Contains(op.Name, "scale") && strings.Contains(op.Name, "attention") {
			t.Errorf("op %q: fairseq folds the query scaling into its GEMM", op.Name)
		}
		if strings.Contains(op.Name, "mask") && !(strings.HasPrefix(op.Name, "decoder/layer_") && strings.Contains(op.Name, "/self_attention/")) {
			t.Errorf("op %q: no mask outside the decoder's self-attention", op.Name)
		}
		if op.Type == "transpose" && strings.Contains(op.Name, "attention") {
			t.Errorf("op %q: the heads are strided views", op.Name)
		}
	}
	if want := 2*fsL + 1 + 3*fsL + 1; norms != want {
		t.Errorf("%d layer norms, want %d", norms, want)
	}
	for l := 0; l < fsL; l++ {
		mustOp(t, m, fmt.Sprintf("decoder/layer_%d/self_attention/add_causal_mask", l))
	}
	mustOp(t, m, "encoder/layer_norm/layer_norm")
	mustOp(t, m, "decoder/layer_norm/layer_norm")
	v := opsByName(build(t, fairseqSpec+"&impl=vaswani"))
	if _, ok := v["encoder/layer_norm/layer_norm"]; ok {
		t.Error("impl=vaswani: a final encoder layer norm in the paper's post-norm graph")
	}
}

// TestFairseqEmbeddingBackward: each lookup of the shared table writes a
// dense zero-filled [V, D] FP32 gradient and adds it into the table's
// (read both, write one): 4 V D 4 bytes beyond its rows, all of them the
// op's FixedBytes (the table's size at any batch).
func TestFairseqEmbeddingBackward(t *testing.T) {
	table := int64(fsV) * fsD * 4
	fs := opsByName(build(t, fairseqSpec))
	va := opsByName(build(t, fairseqSpec+"&impl=vaswani"))
	for _, side := range []string{"encoder", "decoder"} {
		name := side + "/embedding/lookup/grad"
		f, v := mustOp(t, fs, name), mustOp(t, va, name)
		if d := f.BytesAccessed - v.BytesAccessed; d != 4*table {
			t.Errorf("%s: fairseq accesses %d bytes more than the rows' gradient, want %d", name, d, 4*table)
		}
		if f.FixedBytes != 4*table || v.FixedBytes != 0 {
			t.Errorf("%s: fixed bytes %d (fairseq) and %d (vaswani), want %d and 0", name, f.FixedBytes, v.FixedBytes, 4*table)
		}
	}
}

// TestFairseqParamErrors: impl=, norm= and attention=heads with fairseq
// are refused with the parameter and its valid values.
func TestFairseqParamErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"zoo:transformer?impl=t2t", `parameter impl="t2t" (valid: fairseq, vaswani)`},
		{"zoo:transformer?norm=mid", `parameter norm="mid" (valid: pre, post)`},
		{"zoo:transformer?attention=heads", `attention="heads" with impl=fairseq (valid: fused`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := zoo.Build(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// the paper's per-head chains stay available
	if _, err := zoo.Build("zoo:transformer?impl=vaswani&attention=heads&layers=1&hidden=32&heads=4&seq=8&vocab=50&batch=2"); err != nil {
		t.Errorf("impl=vaswani&attention=heads: %v", err)
	}
}

// TestFixedBytesParamsAndTables: a zoo op's FixedBytes (what a
// data-parallel replica or micro-batch still reads whole) are its own
// parameters and any whole shared table it reads: every forward op of
// the MLP has its parameters fixed; fairseq's tied output projection reads
// the [V, D] table whole, its lookups only their rows.
func TestFixedBytesParamsAndTables(t *testing.T) {
	for _, op := range build(t, "zoo:mlp?training=true").Ops {
		// (built in FP32: its parameters' and accesses' bytes agree)
		if op.Role == workloads.Forward && op.FixedBytes != op.ParamBytes {
			t.Errorf("mlp %s: fixed bytes %d, want its parameters' %d", op.Name, op.FixedBytes, op.ParamBytes)
		}
	}
	table := int64(fsV) * fsD * 4
	logits := 0
	for _, op := range build(t, fairseqSpec).Ops {
		if op.Role != workloads.Forward {
			continue
		}
		switch {
		case strings.HasSuffix(op.Name, "/logits") && !strings.Contains(op.Name, "attention"):
			logits++
			if op.FixedBytes != table {
				t.Errorf("%s: fixed bytes %d, want the table's %d", op.Name, op.FixedBytes, table)
			}
		case strings.HasSuffix(op.Name, "/embedding/lookup"):
			if op.FixedBytes != 0 {
				t.Errorf("%s: fixed bytes %d, want 0 (it reads the batch's rows)", op.Name, op.FixedBytes)
			}
		}
	}
	if logits != 1 {
		t.Errorf("%d output projections, want 1", logits)
	}
}

// TestFairseqTargetLength: tgt-seq= runs the decoder at the target's
// length and the encoder at the source's (seq=): the encoder's FFN (its
// first GEMM and bias), the
// decoder's FFN, its self- and encoder-decoder attention scores and the
// output projection take their closed-form FLOPs at B = 4 pairs of S = 12
// source and T = 20 target tokens, D = 64, 2 heads, V = 1000; tgt-seq=
// equal to seq= is the graph without it; another implementation refuses
// it.
func TestFairseqTargetLength(t *testing.T) {
	const base = "zoo:transformer?layers=1&hidden=64&heads=2&ff=128&vocab=1000&batch=4&framework=pytorch"
	g, err := zoo.Build(base + "&seq=12&tgt-seq=20")
	if err != nil {
		t.Fatal(err)
	}
	const b, s, tt, d, ff, v, h = 4, 12, 20, 64, 128, 1000, 2
	want := map[string]float64{
		"encoder/layer_0/ffn/fc1/matmul":            2*b*s*d*ff + b*s*ff, // and its bias
		"decoder/layer_0/ffn/fc1/matmul":            2*b*tt*d*ff + b*tt*ff,
		"decoder/layer_0/self_attention/logits":     2 * b * h * tt * tt * (d / h),
		"decoder/layer_0/encdec_attention/logits":   2 * b * h * tt * s * (d / h),
		"decoder/layer_0/encdec_attention/k/matmul": 2 * b * s * d * d,
		"decoder/softmax/logits":                    2 * b * tt * d * v,
		"encoder/layer_0/self_attention/logits":     2 * b * h * s * s * (d / h),
	}
	found := 0
	for _, op := range g.Ops {
		if w, ok := want[op.Name]; ok {
			found++
			if op.FLOPs != w {
				t.Errorf("%s: %g FLOPs, want %g", op.Name, op.FLOPs, w)
			}
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the %d ops", found, len(want))
	}
	same, err := zoo.Build(base + "&seq=12&tgt-seq=12")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := zoo.Build(base + "&seq=12")
	if err != nil {
		t.Fatal(err)
	}
	if len(same.Ops) != len(plain.Ops) || same.TotalFLOPs() != plain.TotalFLOPs() {
		t.Errorf("tgt-seq=seq: %d ops %g FLOPs, without it %d and %g", len(same.Ops), same.TotalFLOPs(), len(plain.Ops), plain.TotalFLOPs())
	}
	for _, bad := range []string{base + "&seq=12&tgt-seq=0", base + "&seq=12&tgt-seq=20&impl=vaswani"} {
		if _, err := zoo.Build(bad); err == nil || !strings.Contains(err.Error(), "tgt-seq") {
			t.Errorf("Build(%s) = %v, want an error naming tgt-seq", bad, err)
		}
	}
}
