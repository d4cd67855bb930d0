package onnx_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"placesim/workloads/onnx"
)

// TestTypedTensorData reads tensors stored the older ways: typed repeated
// fields (int64_data, float_data, unpacked dims) instead of raw_data, a
// little-endian int32 raw_data with negative values, a Constant node with
// a tensor value, and a FLOATS attribute.
func TestTypedTensorData(t *testing.T) {
	// int64_data (field 7), packed: the target shape [3 4]
	shape := varint(varint(nil, 1, 2), 2, tInt64) // dims unpacked: [2]
	shape = str(shape, 8, "shape")
	shape = packed(shape, 7, []int64{3, 4})
	// float_data (field 4), unpacked fixed32 values: a 4x2 weight
	w := packed(nil, 1, []int64{4, 2})
	w = varint(w, 2, tFloat)
	w = str(w, 8, "w")
	for i := 0; i < 8; i++ {
		w = protowire.AppendTag(w, 4, protowire.Fixed32Type)
		w = protowire.AppendFixed32(w, math.Float32bits(float32(i)))
	}
	// int32 raw data with a negative index (-1: the last row)
	raw := make([]byte, 4)
	binary.LittleEndian.PutUint32(raw, uint32(0xffffffff))
	idx := msg(str(varint(packed(nil, 1, []int64{1}), 2, 6), 8, "idx"), 9, raw)
	m := newModel("typed").input("x", tFloat, 2, 6)
	m.graph = msg(msg(msg(m.graph, 5, shape), 5, w), 5, idx)
	m.node("Reshape", "rs", in("x", "shape"), in("y"))
	m.node("Gather", "last", in("y", "idx"), in("row"))            // [1 4]
	m.node("MatMul", "mm", in("row", "w"), in("z"))                // [1 2]
	cst := varint(packed(nil, 1, []int64{1}), 2, tInt64)           // Constant tensor [2]... of int64_data
	cst = packed(cst, 7, []int64{2})                               // value 2
	m.node("Constant", "k", nil, in("two"), aTensor("value", cst)) // folded
	m.node("Constant", "ks", nil, in("dims"), varint(packed(str(nil, 1, "value_ints"), 8, []int64{1, 2}), 20, 7))
	m.node("Reshape", "rs2", in("z", "dims"), in("z2"))
	fl := str(nil, 1, "scales")
	fl = protowire.AppendTag(fl, 7, protowire.BytesType)
	fl = protowire.AppendBytes(fl, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(1)), math.Float32bits(2)))
	m.node("Relu", "relu", in("z2"), in("out"), varint(fl, 20, 6)) // an unused FLOATS attribute
	g, err := onnx.Parse(m.bytes(), "typed.onnx", onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		op          string
		out, params int64
		flops       float64
	}{
		{"rs", 12 * 4, 0, 0},
		{"last", 4 * 4, 0, 0},
		{"mm", 2 * 4, 8 * 4, 2 * 4 * 2},
		{"rs2", 2 * 4, 0, 0},
		{"relu", 2 * 4, 0, 2},
	}
	for _, tc := range tests {
		op := opByName(t, g, tc.op)
		if op.OutputBytes != tc.out || op.ParamBytes != tc.params || op.FLOPs != tc.flops {
			t.Errorf("%s: output %d, params %d, FLOPs %g; want %d, %d, %g", tc.op, op.OutputBytes, op.ParamBytes, op.FLOPs, tc.out, tc.params, tc.flops)
		}
	}
	if len(g.Ops) != 6 { // x and the five ops; both Constants fold
		t.Errorf("%d ops, want 6", len(g.Ops))
	}
}

func TestTypedDataCountMismatch(t *testing.T) {
	bad := packed(str(varint(packed(nil, 1, []int64{3}), 2, tInt64), 8, "s"), 7, []int64{1, 2})
	m := newModel("t").input("x", tFloat, 6)
	m.graph = msg(m.graph, 5, bad)
	m.node("Reshape", "rs", in("x", "s"), in("y"))
	_, err := onnx.Parse(m.bytes(), "t.onnx", onnx.Options{})
	if err == nil || !strings.Contains(err.Error(), `graph.initializer[0] "s": 2 data values for dims [3] (3 elements)`) {
		t.Fatalf("error %v", err)
	}
}
