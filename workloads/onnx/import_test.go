package onnx_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
	"placesim/workloads/onnx"
)

// flopTol is the relative tolerance on FLOP counts (they are sums of
// float64 products of integers, exact in practice).
const flopTol = 1e-12

func parse(t *testing.T, data []byte, opts onnx.Options) *workloads.Graph {
	t.Helper()
	g, err := onnx.Parse(data, "test.onnx", opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func opByName(t *testing.T, g *workloads.Graph, name string) *workloads.Op {
	t.Helper()
	for i := range g.Ops {
		if g.Ops[i].Name == name {
			return &g.Ops[i]
		}
	}
	t.Fatalf("graph has no op %q", name)
	return nil
}

// edgeBytes is the bytes on the edge from -> to (-1 if none).
func edgeBytes(g *workloads.Graph, from, to string) int64 {
	for _, e := range g.Edges {
		if g.Ops[e.From].Name == from && g.Ops[e.To].Name == to {
			return e.Bytes
		}
	}
	return -1
}

func TestTinyCNN(t *testing.T) {
	const b, f32 = 4, 4
	g := parse(t, tinyCNN(), onnx.Options{Dims: map[string]int64{"batch": b}})
	if g.Batch != b || g.Name != "tiny_cnn" || g.Training {
		t.Fatalf("graph %q batch %d training %v; want tiny_cnn, %d, false", g.Name, g.Batch, g.Training, b)
	}
	type want struct {
		name, typ, layer string
		flops            float64
		out, params      int64
	}
	tests := []want{
		{"image", "input", "input", 0, b * 3 * 32 * 32 * f32, 0},
		{"/features/conv1/Conv", "conv2d", "features/conv1", 2*b*8*32*32*3*9 + b*8*32*32, b * 8 * 32 * 32 * f32, (8*3*9 + 8) * f32},
		{"/features/bn1/BatchNormalization", "batchnorm", "features/bn1", 2 * b * 8 * 32 * 32, b * 8 * 32 * 32 * f32, 4 * 8 * f32},
		{"/features/relu1/Relu", "relu", "features/relu1", b * 8 * 32 * 32, b * 8 * 32 * 32 * f32, 0},
		{"/features/pool1/MaxPool", "max-pool", "features/pool1", b * 8 * 16 * 16 * 4, b * 8 * 16 * 16 * f32, 0},
		{"/features/conv2/Conv", "conv2d", "features/conv2", 2 * b * 16 * 7 * 7 * 8 * 9, b * 16 * 7 * 7 * f32, 16 * 8 * 9 * f32},
		{"/features/relu2/Relu", "relu", "features/relu2", b * 16 * 7 * 7, b * 16 * 7 * 7 * f32, 0},
		{"/pool/GlobalAveragePool", "global-avg-pool", "pool", b * 16 * 7 * 7, b * 16 * f32, 0},
		{"/Flatten", "flatten", "", 0, b * 16 * f32, 0},
		{"/fc/Gemm", "matmul", "fc", 2*b*16*10 + b*10, b * 10 * f32, (10*16 + 10) * f32},
		{"/Softmax", "softmax", "", 5 * b * 10, b * 10 * f32, 0},
	}
	if len(g.Ops) != len(tests) {
		t.Fatalf("%d ops, want %d", len(g.Ops), len(tests))
	}
	for i, w := range tests {
		t.Run(w.name, func(t *testing.T) {
			op := &g.Ops[i]
			if op.Name != w.name || op.Type != w.typ || op.Layer != w.layer {
				t.Fatalf("op %d is %q type %q layer %q; want %q %q %q", i, op.Name, op.Type, op.Layer, w.name, w.typ, w.layer)
			}
			if !scalar.EqualWithinAbsOrRel(op.FLOPs, w.flops, 0, flopTol) {
				t.Errorf("FLOPs %g, want %g", op.FLOPs, w.flops)
			}
			if op.OutputBytes != w.out || op.ParamBytes != w.params {
				t.Errorf("output %d B, params %d B; want %d, %d", op.OutputBytes, op.ParamBytes, w.out, w.params)
			}
		})
	}
	// memory traffic of a conv: input + weights + bias + output
	conv1 := opByName(t, g, "/features/conv1/Conv")
	if want := int64(b*3*32*32+8*3*9+8+b*8*32*32) * f32; conv1.BytesAccessed != want {
		t.Errorf("conv1 bytes accessed %d, want %d", conv1.BytesAccessed, want)
	}
	if fl := opByName(t, g, "/Flatten"); fl.BytesAccessed != 0 {
		t.Errorf("flatten (a view) accesses %d bytes, want 0", fl.BytesAccessed)
	}
	if got, want := edgeBytes(g, "image", "/features/conv1/Conv"), int64(b*3*32*32*f32); got != want {
		t.Errorf("edge image -> conv1 carries %d B, want %d", got, want)
	}
	if len(g.Edges) != len(g.Ops)-1 {
		t.Errorf("%d edges, want a chain of %d", len(g.Edges), len(g.Ops)-1)
	}
}

func TestTinyCNNScalesWithBatch(t *testing.T) {
	g1 := parse(t, tinyCNN(), onnx.Options{Dims: map[string]int64{"batch": 1}})
	g8 := parse(t, tinyCNN(), onnx.Options{Dims: map[string]int64{"batch": 8}})
	for i := range g1.Ops {
		if !scalar.EqualWithinAbsOrRel(g8.Ops[i].FLOPs, 8*g1.Ops[i].FLOPs, 0, flopTol) ||
			g8.Ops[i].OutputBytes != 8*g1.Ops[i].OutputBytes || g8.Ops[i].ParamBytes != g1.Ops[i].ParamBytes {
			t.Errorf("op %s: batch 8 is not 8x batch 1 in FLOPs and outputs with equal params", g1.Ops[i].Name)
		}
	}
}

func TestTinyCNNTraining(t *testing.T) {
	opts, err := onnx.ParseOptions("batch=2&training=true")
	if err != nil {
		t.Fatal(err)
	}
	g := parse(t, tinyCNN(), opts)
	if !g.Training {
		t.Fatal("not a training graph")
	}
	fwd := parse(t, tinyCNN(), onnx.Options{Dims: map[string]int64{"batch": 2}})
	roles := map[workloads.Role]int{}
	for _, op := range g.Ops {
		roles[op.Role]++
	}
	withParams := 0
	for _, op := range fwd.Ops {
		if op.ParamBytes > 0 {
			withParams++
		}
	}
	if roles[workloads.Forward] != len(fwd.Ops) || roles[workloads.Update] != withParams || withParams != 4 {
		t.Fatalf("roles %v; want %d forward and %d update ops", roles, len(fwd.Ops), withParams)
	}
}

func TestTinyTransformer(t *testing.T) {
	const b, s, d, v, h, ff, f32 = 2, 8, tfDim, tfVocab, tfHeads, tfFF, 4
	g := parse(t, tinyTransformer(), onnx.Options{Dims: map[string]int64{"batch": b, "seq": s}})
	if g.Batch != b {
		t.Fatalf("batch %d, want %d", g.Batch, b)
	}
	types := map[string]int{}
	for _, op := range g.Ops {
		types[op.Type]++
	}
	// Shape, the index Gathers, Range, Unsqueeze, Concat and Constant fold away.
	wantTypes := map[string]int{"input": 1, "variable": 1, "embedding": 2, "add": 3, "bias-add": 1, "layernorm": 2, "matmul": 9,
		"reshape": 4, "transpose": 5, "div": 1, "softmax": 1, "gelu": 1}
	if fmt.Sprint(types) != fmt.Sprint(wantTypes) {
		t.Fatalf("op types %v\nwant %v", types, wantTypes)
	}
	// the tied embedding is one variable read by the lookup and the head
	wte := opByName(t, g, "wte")
	if wte.Type != "variable" || wte.ParamBytes != v*d*f32 || wte.OutputBytes != 0 {
		t.Fatalf("wte: %+v", *wte)
	}
	if edgeBytes(g, "wte", "/wte/Gather") != v*d*f32 || edgeBytes(g, "wte", "/lm_head/Transpose") != v*d*f32 {
		t.Error("the tied embedding does not feed both its readers")
	}
	pos := opByName(t, g, "/wpe/Gather")
	if pos.ParamBytes != tfMaxPos*d*f32 || pos.OutputBytes != s*d*f32 || len(g.In(pos.ID)) != 0 {
		t.Errorf("position lookup: params %d, output %d, %d inputs; want %d, %d, 0 (its indices are a folded Range)",
			pos.ParamBytes, pos.OutputBytes, len(g.In(pos.ID)), tfMaxPos*d*f32, s*d*f32)
	}
	flops := []struct {
		op   string
		want float64
	}{
		{"/h.0/attn/q/MatMul", 2 * b * s * d * d},
		{"/h.0/attn/scores/MatMul", 2 * b * h * s * s * (d / h)},
		{"/h.0/attn/context/MatMul", 2 * b * h * s * (d / h) * s},
		{"/h.0/mlp/fc/MatMul", 2 * b * s * d * ff},
		{"/lm_head/MatMul", 2 * b * s * d * v},
		{"/h.0/attn/Softmax", 5 * b * h * s * s},
		{"/h.0/ln_1/LayerNormalization", 8 * b * s * d},
	}
	for _, f := range flops {
		if op := opByName(t, g, f.op); !scalar.EqualWithinAbsOrRel(op.FLOPs, f.want, 0, flopTol) {
			t.Errorf("%s: FLOPs %g, want %g", f.op, op.FLOPs, f.want)
		}
	}
	if got, want := opByName(t, g, "/h.0/attn/scores/MatMul").OutputBytes, int64(b*h*s*s*f32); got != want {
		t.Errorf("attention scores output %d B, want %d", got, want)
	}
	if got, want := opByName(t, g, "/lm_head/MatMul").OutputBytes, int64(b*s*v*f32); got != want {
		t.Errorf("logits %d B, want %d", got, want)
	}
	params := int64(v*d+tfMaxPos*d+4*d+4*d*d+d*ff+ff+ff*d) * f32
	if g.ParamBytes() != params {
		t.Errorf("parameters %d B, want %d", g.ParamBytes(), params)
	}
	// the dynamic head split was folded: the q reshape reads only q
	if in := g.In(opByName(t, g, "/h.0/attn/q/Reshape").ID); len(in) != 1 {
		t.Errorf("q reshape has %d inputs, want 1", len(in))
	}
}

func TestSupportedOpsSorted(t *testing.T) {
	ops := onnx.SupportedOps()
	if !sort.StringsAreSorted(ops) || len(ops) < 60 {
		t.Fatalf("SupportedOps: %d, sorted %v", len(ops), sort.StringsAreSorted(ops))
	}
	for _, must := range []string{"Conv", "Gemm", "MatMul", "LayerNormalization", "Gather", "Softmax", "Reshape", "Concat"} {
		if i := sort.SearchStrings(ops, must); i == len(ops) || ops[i] != must {
			t.Errorf("SupportedOps lacks %s", must)
		}
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		query   string
		want    string
		wantErr string
	}{
		{"", "{map[] false  false}", ""},
		{"batch=8&training=true", "{map[batch:8] true  false}", ""},
		{"seq=128&batch_size=2", "{map[batch_size:2 seq:128] false  false}", ""},
		{"rnn=fused&lenient=true", "{map[] false fused true}", ""},
		{"rnn=unroll", "{map[] false unroll false}", ""},
		{"rnn=steps", "", `rnn="steps" (valid: unroll, fused)`},
		{"lenient=2", "", `lenient="2" (valid: true, false)`},
		{"batch=0", "", "integer in [1, 2^48]"},
		{"batch=x", "", "integer in [1, 2^48]"},
		{"training=maybe", "", "training=\"maybe\" (valid: true, false)"},
		{"batch=1&batch=2", "", "given 2 times"},
		{"%zz", "", "invalid URL escape"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			o, err := onnx.ParseOptions(tc.query)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || fmt.Sprint(o) != tc.want {
				t.Fatalf("ParseOptions = %v, %v; want %s", o, err, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"cnn", tinyCNN(), true},
		{"transformer", tinyTransformer(), true},
		{"truncated", tinyCNN()[:100], false},
		{"json", []byte(`{"format": "placesim-workload"}`), false},
		{"empty", nil, false},
		{"model without nodes", newModel("empty").bytes(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := onnx.Detect(tc.data); got != tc.want {
				t.Fatalf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}
