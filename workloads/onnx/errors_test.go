package onnx_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"placesim/workloads/onnx"
)

// mlpModel is input -> MatMul(w) -> op, for small bad-model variations.
func mlpModel(op string, attrs ...[]byte) *model {
	m := newModel("bad").input("x", tFloat, 2, 4).weight("w", 4, 3)
	m.node("MatMul", "mm", in("x", "w"), in("y"))
	if op != "" {
		m.node(op, "n1", in("y"), in("z"), attrs...)
	}
	return m
}

func TestParseErrors(t *testing.T) {
	cnn := tinyCNN()
	tests := []struct {
		name  string
		data  []byte
		opts  onnx.Options
		kind  error
		wants []string
	}{
		{"unsupported op type", mlpModel("NonMaxSuppression").bytes(), onnx.Options{}, onnx.ErrUnsupported,
			[]string{`node "n1" (graph.node[1], NonMaxSuppression): unsupported op type "NonMaxSuppression" (supported: Abs, Add,`, "LSTM"}},
		{"unnamed unsupported op", newModel("u").input("x", tFloat, 2).node("NonMaxSuppression", "", in("x"), in("y")).bytes(),
			onnx.Options{}, onnx.ErrUnsupported, []string{`node "NonMaxSuppression_0"`, `unsupported op type "NonMaxSuppression"`}},
		{"other domain", newModel("d").input("x", tFloat, 2).raw(msg(nil, 1, str(str(str(str(nil, 1, "x"), 2, "y"), 4, "FusedGemm"), 7, "com.microsoft"))).bytes(),
			onnx.Options{}, onnx.ErrUnsupported, []string{`op domain "com.microsoft" is not supported`}},
		{"truncated file", cnn[:len(cnn)-7], onnx.Options{Dims: map[string]int64{"batch": 1}}, onnx.ErrFormat,
			[]string{"truncated or corrupt file"}},
		{"not protobuf", []byte(`{"format": "placesim-workload"}`), onnx.Options{}, onnx.ErrFormat, []string{"model"}},
		{"no graph", varint(nil, 1, 8), onnx.Options{}, onnx.ErrFormat, []string{"model.graph is missing"}},
		{"wrong wire type", msg(varint(nil, 1, 8), 7, varint(nil, 2, 5)), onnx.Options{}, onnx.ErrFormat,
			[]string{"graph.name", "wire type varint, want bytes"}},
		{"symbolic dim without value", cnn, onnx.Options{}, onnx.ErrUnsupported,
			[]string{`graph.input[0] "image": dim[0] is symbolic "batch" with no value given (set it, e.g. test.onnx?batch=N)`}},
		{"unknown dim option", cnn, onnx.Options{Dims: map[string]int64{"batch": 1, "seq": 3}}, onnx.ErrInvalid,
			[]string{"option seq: no graph input has a symbolic dimension of that name"}},
		{"undefined input", newModel("u").input("x", tFloat, 2).node("Relu", "r", in("nope"), in("y")).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{`node "r" (graph.node[0], Relu): input 0 "nope" is not a graph input`}},
		{"tensor defined twice", mlpModel("Relu").node("Relu", "again", in("y"), in("z")).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{`node "again" (graph.node[2], Relu): output 0 "z" is already defined`}},
		{"matmul shape mismatch", newModel("m").input("x", tFloat, 2, 5).weight("w", 4, 3).node("MatMul", "mm", in("x", "w"), in("y")).bytes(),
			onnx.Options{}, onnx.ErrInvalid, []string{`node "mm" (graph.node[0], MatMul): operands of shapes [2 5] and [4 3]: inner dimensions 5 and 4 differ`}},
		{"bad attribute", newModel("c").input("x", tFloat, 1, 3, 8, 8).weight("w", 4, 3, 3, 3).
			node("Conv", "conv", in("x", "w"), in("y"), aInts("strides", 0, 1)).bytes(), onnx.Options{}, onnx.ErrInvalid,
			[]string{`node "conv" (graph.node[0], Conv): attribute strides = [0 1] (valid range: each in [1, 2^31])`}},
		{"attribute of the wrong type", mlpModel("Softmax", aString("axis", "last")).bytes(), onnx.Options{}, onnx.ErrInvalid,
			[]string{"attribute axis has type 3, want INT"}},
		{"wrong arity", newModel("a").input("x", tFloat, 2).node("Add", "add", in("x"), in("y")).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{`node "add" (graph.node[0], Add): 1 inputs (valid range: 2 to 2)`}},
		{"initializer data of the wrong size", newModel("i").input("x", tFloat, 2).
			raw(msg(nil, 5, msg(varint(packed(nil, 1, []int64{4}), 2, tFloat), 9, make([]byte, 12)))).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{"graph.initializer[0]: name is empty"}},
		{"raw data size", newModel("i").input("x", tFloat, 2).
			raw(msg(nil, 5, str(msg(varint(packed(nil, 1, []int64{4}), 2, tFloat), 9, make([]byte, 12)), 8, "w"))).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{`graph.initializer[0] "w": raw_data has 12 bytes, want 16`}},
		{"string input", newModel("s").input("x", 8, 2).node("Identity", "id", in("x"), in("y")).bytes(), onnx.Options{},
			onnx.ErrUnsupported, []string{`graph.input[0] "x": elem_type: string tensors`}},
		{"negative dim", newModel("n").input("x", tFloat, 2, -3).node("Relu", "r", in("x"), in("y")).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{`graph.input[0] "x": dimension 1 is -3`}},
		{"dynamic reshape without value_info", newModel("r").input("x", tFloat, 2, 6).input("s", tInt64, 2).
			node("Reshape", "rs", in("x", "s"), in("y")).bytes(), onnx.Options{}, onnx.ErrUnsupported,
			[]string{`node "rs" (graph.node[0], Reshape): input 1 (shape) "s": shape depends on run-time data, and no value_info gives the shape of output 0 "y"`}},
		{"reshape to a wrong count", newModel("r").input("x", tFloat, 2, 6).ints("s", []int64{5, -1}).
			node("Reshape", "rs", in("x", "s"), in("y")).bytes(), onnx.Options{}, onnx.ErrInvalid,
			[]string{"cannot reshape [2 6] (12 elements) to [5 -1]"}},
		{"only constants", newModel("k").node("Constant", "c", nil, in("y"), aInt("value_int", 3)).bytes(), onnx.Options{},
			onnx.ErrInvalid, []string{"the graph has no op to simulate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := onnx.Parse(tc.data, "test.onnx", tc.opts)
			if err == nil {
				t.Fatalf("no error; %d ops", len(g.Ops))
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, `onnx model "test.onnx": `) {
				t.Errorf("error does not start with the file: %s", msg)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error does not wrap %v: %s", tc.kind, msg)
			}
			for _, w := range tc.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\n lacks %q", msg, w)
				}
			}
		})
	}
}

func TestDynamicShapeFromValueInfo(t *testing.T) {
	m := newModel("r").input("x", tFloat, 2, 6).input("s", tInt64, 2).
		node("Reshape", "rs", in("x", "s"), in("y")).valueInfo("y", tFloat, 3, 4).
		node("Relu", "relu", in("y"), in("z"))
	g, err := onnx.Parse(m.bytes(), "vi.onnx", onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := opByName(t, g, "relu").FLOPs; got != 12 {
		t.Fatalf("relu FLOPs %g, want 12 (shape [3 4] from value_info)", got)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := onnx.ReadFile(filepath.Join(t.TempDir(), "nope.onnx"), onnx.Options{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.onnx") {
		t.Fatalf("error %v: want a not-exist error naming the file", err)
	}
}
