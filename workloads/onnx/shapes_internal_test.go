package onnx

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// Per-op shape inference, checked on single nodes built directly.

func act(shape ...int64) *value { return &value{dtype: dtFloat, shape: shape, producer: 0} }
func param(shape ...int64) *value {
	return &value{dtype: dtFloat, shape: shape, producer: -1, param: true}
}
func konst(vals ...int64) *value {
	return &value{dtype: dtInt64, shape: []int64{int64(len(vals))}, vals: vals, producer: -1}
}
func scalarK(v int64) *value {
	return &value{dtype: dtInt64, shape: []int64{}, vals: []int64{v}, producer: -1}
}
func ai(name string, v int64) attributeProto { return attributeProto{name: name, typ: attrInt, i: v} }
func ais(name string, v ...int64) attributeProto {
	return attributeProto{name: name, typ: attrInts, ints: v}
}
func as(name, v string) attributeProto {
	return attributeProto{name: name, typ: attrString, s: []byte(v)}
}

type opCase struct {
	name  string
	op    string
	in    []*value // nil entries are omitted optional inputs
	nOut  int
	attrs []attributeProto
	want  [][]int64 // output shapes
	flops float64   // 0: not checked
	vals  []int64   // output 0's folded values (nil: not checked)
	err   string
}

func runOp(c opCase) (*importer, error) {
	imp := &importer{file: "t.onnx", vals: map[string]*value{}, valueInfo: map[string]*valueInfoProto{},
		usedDims: map[string]bool{}, handlers: newHandlers()}
	imp.ops = append(imp.ops, pendingOp{name: "src", typ: "input"})
	n := nodeProto{name: "n", opType: c.op, attribute: c.attrs}
	for i, v := range c.in {
		if v == nil {
			n.input = append(n.input, "")
			continue
		}
		name := fmt.Sprintf("in%d", i)
		v.name = name
		imp.vals[name] = v
		n.input = append(n.input, name)
	}
	for i := 0; i < max(c.nOut, 1); i++ {
		n.output = append(n.output, fmt.Sprintf("out%d", i))
	}
	return imp, imp.addNode(&n, 0)
}

func TestOpShapes(t *testing.T) {
	tests := []opCase{
		{name: "conv same_upper stride 2", op: "Conv", in: []*value{act(1, 3, 15, 15), param(8, 3, 3, 3)},
			attrs: []attributeProto{as("auto_pad", "SAME_UPPER"), ais("strides", 2, 2)}, want: [][]int64{{1, 8, 8, 8}}, flops: 2 * 8 * 64 * 3 * 9},
		{name: "depthwise conv", op: "Conv", in: []*value{act(2, 4, 8, 8), param(4, 1, 3, 3), param(4)},
			attrs: []attributeProto{ai("group", 4), ais("pads", 1, 1, 1, 1)}, want: [][]int64{{2, 4, 8, 8}}, flops: 2*2*4*64*1*9 + 2*4*64},
		{name: "dilated conv1d valid", op: "Conv", in: []*value{act(1, 2, 10), param(3, 2, 3)},
			attrs: []attributeProto{ais("dilations", 2), as("auto_pad", "VALID")}, want: [][]int64{{1, 3, 6}}, flops: 2 * 3 * 6 * 2 * 3},
		{name: "conv group mismatch", op: "Conv", in: []*value{act(1, 4, 8, 8), param(4, 3, 3, 3)}, err: "group = 1 with 4 input channels"},
		{name: "conv kernel larger than input", op: "Conv", in: []*value{act(1, 1, 2, 2), param(1, 1, 3, 3)}, err: "leaves no output"},
		{name: "conv transpose stride 2", op: "ConvTranspose", in: []*value{act(1, 8, 4, 4), param(8, 3, 4, 4)},
			attrs: []attributeProto{ais("strides", 2, 2), ais("pads", 1, 1, 1, 1)}, want: [][]int64{{1, 3, 8, 8}}, flops: 2 * 8 * 16 * 3 * 16},
		{name: "avgpool ceil mode", op: "AveragePool", in: []*value{act(1, 2, 7, 7)},
			attrs: []attributeProto{ais("kernel_shape", 2, 2), ais("strides", 2, 2), ai("ceil_mode", 1)}, want: [][]int64{{1, 2, 4, 4}}, flops: 2 * 16 * 4},
		{name: "maxpool with indices", op: "MaxPool", in: []*value{act(1, 2, 8, 8)}, nOut: 2,
			attrs: []attributeProto{ais("kernel_shape", 3, 3), ais("pads", 1, 1, 1, 1)}, want: [][]int64{{1, 2, 8, 8}, {1, 2, 8, 8}}, flops: 2 * 64 * 9},
		{name: "pool without kernel", op: "MaxPool", in: []*value{act(1, 2, 8, 8)}, err: "attribute kernel_shape is required"},
		{name: "matmul vector-matrix", op: "MatMul", in: []*value{act(4), param(4, 5)}, want: [][]int64{{5}}, flops: 2 * 4 * 5},
		{name: "matmul matrix-vector", op: "MatMul", in: []*value{act(3, 4), param(4)}, want: [][]int64{{3}}, flops: 2 * 3 * 4},
		{name: "matmul broadcast batch", op: "MatMul", in: []*value{act(2, 1, 3, 4), act(5, 4, 6)}, want: [][]int64{{2, 5, 3, 6}}, flops: 2 * 10 * 3 * 6 * 4},
		{name: "matmul vector-vector (a scalar, issue 31)", op: "MatMul", in: []*value{act(4), act(4)}, want: [][]int64{{}}, flops: 2 * 4},
		{name: "matmul vector-batched matrix", op: "MatMul", in: []*value{act(4), act(2, 4, 5)}, want: [][]int64{{2, 5}}, flops: 2 * 2 * 4 * 5},
		{name: "matmul batched matrix-vector", op: "MatMul", in: []*value{act(2, 3, 4), act(4)}, want: [][]int64{{2, 3}}, flops: 2 * 2 * 3 * 4},
		{name: "gemm transA", op: "Gemm", in: []*value{act(4, 3), param(4, 5), param(5)}, attrs: []attributeProto{ai("transA", 1)},
			want: [][]int64{{3, 5}}, flops: 2*3*5*4 + 15},
		{name: "gemm bad C", op: "Gemm", in: []*value{act(3, 4), param(4, 5), param(3)}, err: "does not broadcast to (M, N)"},
		{name: "add broadcast", op: "Add", in: []*value{act(2, 3, 1), act(4)}, want: [][]int64{{2, 3, 4}}, flops: 24},
		{name: "add incompatible", op: "Add", in: []*value{act(2, 3), act(4)}, err: "cannot be broadcast"},
		{name: "sum of three", op: "Sum", in: []*value{act(2, 3), act(3), act(1)}, want: [][]int64{{2, 3}}, flops: 12},
		{name: "where", op: "Where", in: []*value{{dtype: dtBool, shape: []int64{1, 4}}, act(3, 1), act(1)}, want: [][]int64{{3, 4}}, flops: 12},
		{name: "integer mul folds", op: "Mul", in: []*value{konst(2, 3), scalarK(4)}, want: [][]int64{{2}}, vals: []int64{8, 12}},
		{name: "layernorm with stats", op: "LayerNormalization", in: []*value{act(2, 5, 8), param(8), param(8)}, nOut: 3,
			want: [][]int64{{2, 5, 8}, {2, 5, 1}, {2, 5, 1}}, flops: 8 * 80},
		{name: "batchnorm wrong channels", op: "BatchNormalization", in: []*value{act(2, 4, 3, 3), param(3), param(4), param(4), param(4)},
			err: "input 1 (scale) of shape [3]: want (4)"},
		{name: "dropout with mask", op: "Dropout", in: []*value{act(3, 4)}, nOut: 2, want: [][]int64{{3, 4}, {3, 4}}, flops: 12},
		{name: "flatten axis 0", op: "Flatten", in: []*value{act(2, 3, 4)}, attrs: []attributeProto{ai("axis", 0)}, want: [][]int64{{1, 24}}},
		{name: "flatten axis -1", op: "Flatten", in: []*value{act(2, 3, 4)}, attrs: []attributeProto{ai("axis", -1)}, want: [][]int64{{6, 4}}},
		{name: "reshape zero and minus one", op: "Reshape", in: []*value{act(2, 3, 4), konst(0, -1, 2)}, want: [][]int64{{2, 6, 2}}},
		{name: "reshape opset 1 attribute", op: "Reshape", in: []*value{act(2, 3, 4)}, attrs: []attributeProto{ais("shape", 4, 6)}, want: [][]int64{{4, 6}}},
		{name: "reshape two minus ones", op: "Reshape", in: []*value{act(2, 3, 4), konst(-1, -1)}, err: "more than one -1"},
		{name: "transpose default", op: "Transpose", in: []*value{act(2, 3, 4)}, want: [][]int64{{4, 3, 2}}},
		{name: "transpose bad perm", op: "Transpose", in: []*value{act(2, 3)}, attrs: []attributeProto{ais("perm", 0, 0)}, err: "want a permutation"},
		{name: "squeeze attribute", op: "Squeeze", in: []*value{act(1, 3, 1, 2)}, attrs: []attributeProto{ais("axes", 0)}, want: [][]int64{{3, 1, 2}}},
		{name: "squeeze all ones", op: "Squeeze", in: []*value{act(1, 3, 1, 2)}, want: [][]int64{{3, 2}}},
		{name: "squeeze a non-one", op: "Squeeze", in: []*value{act(2, 3)}, attrs: []attributeProto{ais("axes", 0)}, err: "is 2, not 1"},
		{name: "unsqueeze input axes", op: "Unsqueeze", in: []*value{act(3, 4), konst(0, -1)}, want: [][]int64{{1, 3, 4, 1}}},
		{name: "unsqueeze scalar folds", op: "Unsqueeze", in: []*value{scalarK(7), konst(0)}, want: [][]int64{{1}}, vals: []int64{7}},
		{name: "concat", op: "Concat", in: []*value{act(2, 3), act(2, 5)}, attrs: []attributeProto{ai("axis", -1)}, want: [][]int64{{2, 8}}},
		{name: "concat folds", op: "Concat", in: []*value{konst(1, 2), konst(3)}, attrs: []attributeProto{ai("axis", 0)}, want: [][]int64{{3}}, vals: []int64{1, 2, 3}},
		{name: "concat mismatch", op: "Concat", in: []*value{act(2, 3), act(3, 3)}, attrs: []attributeProto{ai("axis", 1)}, err: "dimension 0 differs"},
		{name: "concat without axis", op: "Concat", in: []*value{act(2, 3)}, err: "attribute axis is required"},
		{name: "unsqueeze without axes", op: "Unsqueeze", in: []*value{act(2, 3)}, err: "axes (input 1 or attribute axes) is required"},
		{name: "reshape without shape", op: "Reshape", in: []*value{act(2, 3)}, err: "shape (input 1 or attribute shape) is required"},
		{name: "pad without pads", op: "Pad", in: []*value{act(2, 3)}, err: "pads (input 1 or attribute pads) is required"},
		{name: "split equal", op: "Split", in: []*value{act(2, 10)}, nOut: 3, attrs: []attributeProto{ai("axis", 1)},
			want: [][]int64{{2, 4}, {2, 4}, {2, 2}}},
		{name: "split sizes input", op: "Split", in: []*value{act(6, 2), konst(1, 5)}, nOut: 2, want: [][]int64{{1, 2}, {5, 2}}},
		{name: "split sizes wrong sum", op: "Split", in: []*value{act(6, 2), konst(1, 4)}, nOut: 2, err: "summing to dimension 0 = 6"},
		{name: "slice negative step", op: "Slice", in: []*value{act(10, 4), konst(-1), konst(-100), konst(0), konst(-3)},
			want: [][]int64{{4, 4}}},
		{name: "slice to end folds", op: "Slice", in: []*value{konst(5, 6, 7, 8), konst(1), konst(1 << 62)}, want: [][]int64{{3}}, vals: []int64{6, 7, 8}},
		{name: "slice opset 1 attributes", op: "Slice", in: []*value{act(3, 8)}, attrs: []attributeProto{ais("starts", 2), ais("ends", 6), ais("axes", 1)}, want: [][]int64{{3, 4}}},
		{name: "slice zero step", op: "Slice", in: []*value{act(3), konst(0), konst(2), konst(0), konst(0)}, err: "valid: non-zero"},
		{name: "gather axis 1", op: "Gather", in: []*value{act(3, 5, 2), konst(0, 4, 1, 1)}, attrs: []attributeProto{ai("axis", 1)}, want: [][]int64{{3, 4, 2}}},
		{name: "gather out of range", op: "Gather", in: []*value{act(3, 5), konst(3)}, err: "index 3 out of range [-3, 2]"},
		{name: "gather folds", op: "Gather", in: []*value{konst(4, 9, 16), scalarK(-1)}, want: [][]int64{{}}, vals: []int64{16}},
		{name: "expand", op: "Expand", in: []*value{act(3, 1), konst(2, 1, 4)}, want: [][]int64{{2, 3, 4}}},
		{name: "tile", op: "Tile", in: []*value{act(2, 3), konst(2, 2)}, want: [][]int64{{4, 6}}},
		{name: "pad", op: "Pad", in: []*value{act(1, 3, 4, 4), konst(0, 0, 1, 2, 0, 0, 1, 2)}, want: [][]int64{{1, 3, 6, 8}}},
		{name: "pad opset 2 attribute", op: "Pad", in: []*value{act(4)}, attrs: []attributeProto{ais("pads", 1, 3)}, want: [][]int64{{8}}},
		{name: "resize sizes", op: "Resize", in: []*value{act(1, 3, 4, 4), nil, nil, konst(1, 3, 8, 8)}, want: [][]int64{{1, 3, 8, 8}}, flops: 4 * 192},
		{name: "resize float scales needs value_info", op: "Resize", in: []*value{act(1, 3, 4, 4), nil, param(4)}, err: "no value_info gives the shape"},
		{name: "reduce mean keepdims 0", op: "ReduceMean", in: []*value{act(2, 3, 4)}, attrs: []attributeProto{ais("axes", 1, -1), ai("keepdims", 0)},
			want: [][]int64{{2}}, flops: 24},
		{name: "reduce sum axes input, all", op: "ReduceSum", in: []*value{act(2, 3)}, want: [][]int64{{1, 1}}, flops: 6},
		{name: "argmax", op: "ArgMax", in: []*value{act(2, 3)}, attrs: []attributeProto{ai("axis", 1)}, want: [][]int64{{2, 1}}},
		{name: "shape folds", op: "Shape", in: []*value{act(2, 3, 4)}, want: [][]int64{{3}}, vals: []int64{2, 3, 4}},
		{name: "shape start end", op: "Shape", in: []*value{act(2, 3, 4)}, attrs: []attributeProto{ai("start", 1), ai("end", -1)}, want: [][]int64{{1}}, vals: []int64{3}},
		{name: "size folds", op: "Size", in: []*value{act(2, 3, 4)}, want: [][]int64{{}}, vals: []int64{24}},
		{name: "range folds", op: "Range", in: []*value{scalarK(1), scalarK(10), scalarK(3)}, want: [][]int64{{3}}, vals: []int64{1, 4, 7}},
		{name: "constant of shape", op: "ConstantOfShape", in: []*value{konst(2, 3)}, want: [][]int64{{2, 3}}},
		{name: "cast keeps ints", op: "Cast", in: []*value{konst(5, 6)}, attrs: []attributeProto{ai("to", dtInt32)}, want: [][]int64{{2}}, vals: []int64{5, 6}},
		{name: "cast to string", op: "Cast", in: []*value{act(2)}, attrs: []attributeProto{ai("to", dtString)}, err: "not a tensor data type"},
		{name: "softmax bad axis", op: "Softmax", in: []*value{act(2, 3)}, attrs: []attributeProto{ai("axis", 2)}, err: "axis 2 out of range [-2, 1]"},
		{name: "gelu", op: "Gelu", in: []*value{act(2, 3)}, want: [][]int64{{2, 3}}, flops: 48},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			imp, err := runOp(tc)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				v := imp.vals[fmt.Sprintf("out%d", i)]
				if v == nil || fmt.Sprint(v.shape) != fmt.Sprint(w) {
					t.Fatalf("output %d: %+v, want shape %v", i, v, w)
				}
			}
			if tc.vals != nil {
				if v := imp.vals["out0"]; fmt.Sprint(v.vals) != fmt.Sprint(tc.vals) || !v.constant() {
					t.Fatalf("output values %v (constant %v), want %v folded", v.vals, v.constant(), tc.vals)
				}
				return
			}
			if tc.flops != 0 && len(imp.ops) == 2 {
				if got := imp.ops[1].flops; !scalar.EqualWithinAbsOrRel(got, tc.flops, 0, 1e-12) {
					t.Errorf("FLOPs %g, want %g", got, tc.flops)
				}
			}
		})
	}
}
