package onnx_test

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// A minimal ONNX ModelProto encoder for tests, with the field numbers of
// onnx.proto. It writes what exporters write: packed repeated scalars,
// raw_data for initializers, typed attributes.

const (
	tFloat = 1
	tInt64 = 7
	tBool  = 9
	tHalf  = 10
)

func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func varint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func packed(b []byte, num protowire.Number, vs []int64) []byte {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return msg(b, num, p)
}

// model builds a ModelProto.
type model struct {
	graph []byte
	opset int64
}

func newModel(name string) *model { return &model{graph: str(nil, 2, name), opset: 17} }

// valueInfo encodes a ValueInfoProto; dims are int (a value) or string (a
// symbolic dim_param).
func valueInfo(name string, elem int32, dims ...any) []byte {
	var shape []byte
	for _, d := range dims {
		var dim []byte
		switch v := d.(type) {
		case int:
			dim = varint(nil, 1, int64(v))
		case string:
			dim = str(nil, 2, v)
		}
		shape = msg(shape, 1, dim)
	}
	tt := varint(nil, 1, int64(elem))
	tt = msg(tt, 2, shape)
	return msg(str(nil, 1, name), 2, msg(nil, 1, tt))
}

func (m *model) input(name string, elem int32, dims ...any) *model {
	m.graph = msg(m.graph, 11, valueInfo(name, elem, dims...))
	return m
}

func (m *model) output(name string, elem int32, dims ...any) *model {
	m.graph = msg(m.graph, 12, valueInfo(name, elem, dims...))
	return m
}

func (m *model) valueInfo(name string, elem int32, dims ...any) *model {
	m.graph = msg(m.graph, 13, valueInfo(name, elem, dims...))
	return m
}

// tensor encodes a TensorProto; float tensors get zero raw_data, int64
// tensors the given values.
func tensor(name string, dt int32, dims []int64, ints []int64) []byte {
	t := packed(nil, 1, dims)
	t = varint(t, 2, int64(dt))
	t = str(t, 8, name)
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	switch dt {
	case tInt64:
		raw := make([]byte, 8*len(ints))
		for i, v := range ints {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		}
		t = msg(t, 9, raw)
	case tFloat:
		t = msg(t, 9, make([]byte, 4*n))
	case tHalf:
		t = msg(t, 9, make([]byte, 2*n))
	}
	return t
}

// weight adds a float initializer.
func (m *model) weight(name string, dims ...int64) *model {
	m.graph = msg(m.graph, 5, tensor(name, tFloat, dims, nil))
	return m
}

// ints adds an int64 initializer of shape dims (nil: 1-D).
func (m *model) ints(name string, vals []int64, dims ...int64) *model {
	if dims == nil {
		dims = []int64{int64(len(vals))}
	}
	m.graph = msg(m.graph, 5, tensor(name, tInt64, dims, vals))
	return m
}

// node adds a NodeProto.
func (m *model) node(op, name string, ins, outs []string, attrs ...[]byte) *model {
	var n []byte
	for _, s := range ins {
		n = str(n, 1, s)
	}
	for _, s := range outs {
		n = str(n, 2, s)
	}
	if name != "" {
		n = str(n, 3, name)
	}
	n = str(n, 4, op)
	for _, a := range attrs {
		n = msg(n, 5, a)
	}
	m.graph = msg(m.graph, 1, n)
	return m
}

// raw appends arbitrary bytes to the graph message.
func (m *model) raw(b []byte) *model { m.graph = append(m.graph, b...); return m }

func (m *model) bytes() []byte {
	b := varint(nil, 1, 8) // ir_version
	b = str(b, 2, "placesim-test")
	b = msg(b, 8, varint(str(nil, 1, ""), 2, m.opset))
	return msg(b, 7, m.graph)
}

func aInt(name string, v int64) []byte {
	return varint(varint(str(nil, 1, name), 3, v), 20, 2)
}

func aInts(name string, v ...int64) []byte {
	return varint(packed(str(nil, 1, name), 8, v), 20, 7)
}

func aFloat(name string, v float32) []byte {
	b := str(nil, 1, name)
	b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, math.Float32bits(v))
	return varint(b, 20, 1)
}

func aString(name, v string) []byte {
	return varint(str(str(nil, 1, name), 4, v), 20, 3)
}

func aStrings(name string, v ...string) []byte {
	b := str(nil, 1, name)
	for _, s := range v {
		b = str(b, 9, s)
	}
	return varint(b, 20, 8)
}

func aTensor(name string, t []byte) []byte {
	return varint(msg(str(nil, 1, name), 5, t), 20, 4)
}

func in(s ...string) []string { return s }
