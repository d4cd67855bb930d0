package onnx

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The subset of onnx.proto (ONNX IR, github.com/onnx/onnx/blob/main/onnx/onnx.proto)
// the importer reads, decoded field by field with protowire. Field numbers
// are those of onnx.proto; fields not listed are skipped, as protobuf
// readers do with unknown fields.

// modelProto is ModelProto.
type modelProto struct {
	irVersion int64       // 1
	opsets    []opsetID   // 8
	graph     *graphProto // 7
}

// opsetID is OperatorSetIdProto.
type opsetID struct {
	domain  string // 1
	version int64  // 2
}

// graphProto is GraphProto.
type graphProto struct {
	nodes       []nodeProto      // 1
	name        string           // 2
	initializer []tensorProto    // 5
	input       []valueInfoProto // 11
	output      []valueInfoProto // 12
	valueInfo   []valueInfoProto // 13
}

// nodeProto is NodeProto.
type nodeProto struct {
	input     []string         // 1
	output    []string         // 2
	name      string           // 3
	opType    string           // 4
	attribute []attributeProto // 5
	domain    string           // 7
}

// AttributeProto.AttributeType values.
const (
	attrFloat   = 1
	attrInt     = 2
	attrString  = 3
	attrTensor  = 4
	attrGraph   = 5
	attrFloats  = 6
	attrInts    = 7
	attrStrings = 8
)

// attributeProto is AttributeProto (sub-graphs and sparse tensors are
// skipped: no supported op uses them).
type attributeProto struct {
	name    string       // 1
	f       float32      // 2
	i       int64        // 3
	s       []byte       // 4
	t       *tensorProto // 5
	floats  []float32    // 7
	ints    []int64      // 8
	strings [][]byte     // 9
	typ     int32        // 20
	hasF    bool         // which singular fields were present, for a
	hasI    bool         // model that leaves type unset
	hasS    bool
}

// tensorProto is TensorProto (only what sizes and integer constants need).
type tensorProto struct {
	dims       []int64   // 1
	dataType   int32     // 2
	floatData  []float32 // 4 (packed)
	int32Data  []int32   // 5 (packed)
	nStrings   int       // 6
	int64Data  []int64   // 7 (packed)
	name       string    // 8
	rawData    []byte    // 9
	hasRaw     bool      // raw_data present (possibly empty)
	doubleData []float64 // 10 (packed)
	uint64Data []uint64  // 11 (packed)
	external   bool      // 14: data_location == EXTERNAL
}

// valueInfoProto is ValueInfoProto with TypeProto.Tensor flattened.
type valueInfoProto struct {
	name     string // 1
	isTensor bool   // type.tensor_type present
	elemType int32  // type.tensor_type.elem_type
	hasShape bool   // type.tensor_type.shape present
	dims     []dimProto
}

// dimProto is TensorShapeProto.Dimension.
type dimProto struct {
	value    int64  // 1
	param    string // 2
	hasValue bool
}

// field is one decoded protobuf field.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64 // varint, fixed32 or fixed64 value
	b   []byte // bytes value
}

// wireError is a malformed encoding at path.
type wireError struct {
	path string
	msg  string
}

func (e *wireError) Error() string { return e.path + ": " + e.msg }

// fields calls fn for every field of the message encoded in b.
func fields(b []byte, path string, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &wireError{path, fmt.Sprintf("bad field tag: %v", protowire.ParseError(n))}
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.u = uint64(v)
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		case protowire.StartGroupType:
			_, n = protowire.ConsumeGroup(num, b)
		default:
			return &wireError{path, fmt.Sprintf("field %d: unknown wire type %d", num, typ)}
		}
		if n < 0 {
			return &wireError{path, fmt.Sprintf("field %d: %v (truncated or corrupt file?)", num, protowire.ParseError(n))}
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// want checks a field's wire type.
func (f field) want(path string, t protowire.Type) error {
	if f.typ != t {
		return &wireError{path, fmt.Sprintf("field %d has wire type %s, want %s", f.num, wireName(f.typ), wireName(t))}
	}
	return nil
}

func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "bytes"
	case protowire.StartGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", t)
}

func (f field) str(path string) (string, error) {
	if err := f.want(path, protowire.BytesType); err != nil {
		return "", err
	}
	return string(f.b), nil
}

func (f field) int64(path string) (int64, error) {
	if err := f.want(path, protowire.VarintType); err != nil {
		return 0, err
	}
	return int64(f.u), nil
}

func (f field) int32(path string) (int32, error) {
	v, err := f.int64(path)
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = &wireError{path, fmt.Sprintf("%d is out of the int32 range", v)}
	}
	return int32(v), err
}

// varints appends a repeated varint field, packed or not.
func (f field) varints(path string, dst []int64) ([]int64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, int64(f.u)), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, &wireError{path, fmt.Sprintf("packed varints: %v", protowire.ParseError(n))}
			}
			dst = append(dst, int64(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, &wireError{path, fmt.Sprintf("field %d has wire type %s, want varint or packed bytes", f.num, wireName(f.typ))}
}

// fixed32s appends a repeated float field, packed or not.
func (f field) fixed32s(path string, dst []float32) ([]float32, error) {
	switch f.typ {
	case protowire.Fixed32Type:
		return append(dst, math.Float32frombits(uint32(f.u))), nil
	case protowire.BytesType:
		if len(f.b)%4 != 0 {
			return nil, &wireError{path, fmt.Sprintf("packed floats: %d bytes is not a multiple of 4", len(f.b))}
		}
		for i := 0; i < len(f.b); i += 4 {
			v, _ := protowire.ConsumeFixed32(f.b[i:])
			dst = append(dst, math.Float32frombits(v))
		}
		return dst, nil
	}
	return nil, &wireError{path, fmt.Sprintf("field %d has wire type %s, want fixed32 or packed bytes", f.num, wireName(f.typ))}
}

// fixed64s appends a repeated double field, packed or not.
func (f field) fixed64s(path string, dst []float64) ([]float64, error) {
	switch f.typ {
	case protowire.Fixed64Type:
		return append(dst, math.Float64frombits(f.u)), nil
	case protowire.BytesType:
		if len(f.b)%8 != 0 {
			return nil, &wireError{path, fmt.Sprintf("packed doubles: %d bytes is not a multiple of 8", len(f.b))}
		}
		for i := 0; i < len(f.b); i += 8 {
			v, _ := protowire.ConsumeFixed64(f.b[i:])
			dst = append(dst, math.Float64frombits(v))
		}
		return dst, nil
	}
	return nil, &wireError{path, fmt.Sprintf("field %d has wire type %s, want fixed64 or packed bytes", f.num, wireName(f.typ))}
}

func decodeModel(b []byte) (*modelProto, error) {
	m := &modelProto{}
	err := fields(b, "model", func(f field) error {
		var err error
		switch f.num {
		case 1:
			m.irVersion, err = f.int64("model.ir_version")
		case 7:
			if err = f.want("model.graph", protowire.BytesType); err == nil {
				m.graph, err = decodeGraph(f.b, "graph")
			}
		case 8:
			path := fmt.Sprintf("model.opset_import[%d]", len(m.opsets))
			if err = f.want(path, protowire.BytesType); err == nil {
				var o opsetID
				o, err = decodeOpset(f.b, path)
				m.opsets = append(m.opsets, o)
			}
		}
		return err
	})
	return m, err
}

func decodeOpset(b []byte, path string) (opsetID, error) {
	var o opsetID
	err := fields(b, path, func(f field) error {
		var err error
		switch f.num {
		case 1:
			o.domain, err = f.str(path + ".domain")
		case 2:
			o.version, err = f.int64(path + ".version")
		}
		return err
	})
	return o, err
}

func decodeGraph(b []byte, path string) (*graphProto, error) {
	g := &graphProto{}
	err := fields(b, path, func(f field) error {
		var err error
		switch f.num {
		case 1:
			p := fmt.Sprintf("%s.node[%d]", path, len(g.nodes))
			if err = f.want(p, protowire.BytesType); err == nil {
				var n nodeProto
				n, err = decodeNode(f.b, p)
				g.nodes = append(g.nodes, n)
			}
		case 2:
			g.name, err = f.str(path + ".name")
		case 5:
			p := fmt.Sprintf("%s.initializer[%d]", path, len(g.initializer))
			if err = f.want(p, protowire.BytesType); err == nil {
				var t tensorProto
				t, err = decodeTensor(f.b, p)
				g.initializer = append(g.initializer, t)
			}
		case 11, 12, 13:
			list := map[protowire.Number]*[]valueInfoProto{11: &g.input, 12: &g.output, 13: &g.valueInfo}[f.num]
			name := map[protowire.Number]string{11: "input", 12: "output", 13: "value_info"}[f.num]
			p := fmt.Sprintf("%s.%s[%d]", path, name, len(*list))
			if err = f.want(p, protowire.BytesType); err == nil {
				var v valueInfoProto
				v, err = decodeValueInfo(f.b, p)
				*list = append(*list, v)
			}
		}
		return err
	})
	return g, err
}

func decodeNode(b []byte, path string) (nodeProto, error) {
	var n nodeProto
	err := fields(b, path, func(f field) error {
		var err error
		var s string
		switch f.num {
		case 1:
			s, err = f.str(fmt.Sprintf("%s.input[%d]", path, len(n.input)))
			n.input = append(n.input, s)
		case 2:
			s, err = f.str(fmt.Sprintf("%s.output[%d]", path, len(n.output)))
			n.output = append(n.output, s)
		case 3:
			n.name, err = f.str(path + ".name")
		case 4:
			n.opType, err = f.str(path + ".op_type")
		case 5:
			p := fmt.Sprintf("%s.attribute[%d]", path, len(n.attribute))
			if err = f.want(p, protowire.BytesType); err == nil {
				var a attributeProto
				a, err = decodeAttribute(f.b, p)
				n.attribute = append(n.attribute, a)
			}
		case 7:
			n.domain, err = f.str(path + ".domain")
		}
		return err
	})
	return n, err
}

func decodeAttribute(b []byte, path string) (attributeProto, error) {
	var a attributeProto
	err := fields(b, path, func(f field) error {
		var err error
		switch f.num {
		case 1:
			a.name, err = f.str(path + ".name")
		case 2:
			if err = f.want(path+".f", protowire.Fixed32Type); err == nil {
				a.f, a.hasF = math.Float32frombits(uint32(f.u)), true
			}
		case 3:
			a.i, err = f.int64(path + ".i")
			a.hasI = true
		case 4:
			if err = f.want(path+".s", protowire.BytesType); err == nil {
				a.s, a.hasS = f.b, true
			}
		case 5:
			if err = f.want(path+".t", protowire.BytesType); err == nil {
				var t tensorProto
				t, err = decodeTensor(f.b, path+".t")
				a.t = &t
			}
		case 7:
			a.floats, err = f.fixed32s(path+".floats", a.floats)
		case 8:
			a.ints, err = f.varints(path+".ints", a.ints)
		case 9:
			if err = f.want(path+".strings", protowire.BytesType); err == nil {
				a.strings = append(a.strings, f.b)
			}
		case 20:
			a.typ, err = f.int32(path + ".type")
		}
		return err
	})
	if err == nil && a.typ == 0 { // IR < 4 may leave type unset
		switch {
		case a.t != nil:
			a.typ = attrTensor
		case a.hasF:
			a.typ = attrFloat
		case a.hasI:
			a.typ = attrInt
		case a.hasS:
			a.typ = attrString
		case a.floats != nil:
			a.typ = attrFloats
		case a.ints != nil:
			a.typ = attrInts
		case a.strings != nil:
			a.typ = attrStrings
		}
	}
	return a, err
}

func decodeTensor(b []byte, path string) (tensorProto, error) {
	var t tensorProto
	err := fields(b, path, func(f field) error {
		var err error
		switch f.num {
		case 1:
			t.dims, err = f.varints(path+".dims", t.dims)
		case 2:
			t.dataType, err = f.int32(path + ".data_type")
		case 4:
			t.floatData, err = f.fixed32s(path+".float_data", t.floatData)
		case 5:
			var v []int64
			if v, err = f.varints(path+".int32_data", nil); err == nil {
				for _, x := range v {
					t.int32Data = append(t.int32Data, int32(x))
				}
			}
		case 6:
			err = f.want(path+".string_data", protowire.BytesType)
			t.nStrings++
		case 7:
			t.int64Data, err = f.varints(path+".int64_data", t.int64Data)
		case 8:
			t.name, err = f.str(path + ".name")
		case 9:
			if err = f.want(path+".raw_data", protowire.BytesType); err == nil {
				t.rawData, t.hasRaw = f.b, true
			}
		case 10:
			t.doubleData, err = f.fixed64s(path+".double_data", t.doubleData)
		case 11:
			var v []int64
			if v, err = f.varints(path+".uint64_data", nil); err == nil {
				for _, x := range v {
					t.uint64Data = append(t.uint64Data, uint64(x))
				}
			}
		case 14:
			var loc int64
			loc, err = f.int64(path + ".data_location")
			t.external = loc == 1
		}
		return err
	})
	return t, err
}

func decodeValueInfo(b []byte, path string) (valueInfoProto, error) {
	var v valueInfoProto
	err := fields(b, path, func(f field) error {
		switch f.num {
		case 1:
			var err error
			v.name, err = f.str(path + ".name")
			return err
		case 2:
			if err := f.want(path+".type", protowire.BytesType); err != nil {
				return err
			}
			return fields(f.b, path+".type", func(f field) error {
				if f.num != 1 { // tensor_type; other kinds leave isTensor false
					return nil
				}
				if err := f.want(path+".type.tensor_type", protowire.BytesType); err != nil {
					return err
				}
				v.isTensor = true
				return decodeTensorType(f.b, path+".type.tensor_type", &v)
			})
		}
		return nil
	})
	return v, err
}

func decodeTensorType(b []byte, path string, v *valueInfoProto) error {
	return fields(b, path, func(f field) error {
		var err error
		switch f.num {
		case 1:
			v.elemType, err = f.int32(path + ".elem_type")
		case 2:
			if err = f.want(path+".shape", protowire.BytesType); err != nil {
				return err
			}
			v.hasShape = true
			v.dims = v.dims[:0]
			err = fields(f.b, path+".shape", func(f field) error {
				if f.num != 1 {
					return nil
				}
				p := fmt.Sprintf("%s.shape.dim[%d]", path, len(v.dims))
				if err := f.want(p, protowire.BytesType); err != nil {
					return err
				}
				var d dimProto
				err := fields(f.b, p, func(f field) error {
					var err error
					switch f.num {
					case 1:
						d.value, err = f.int64(p + ".dim_value")
						d.hasValue = true
					case 2:
						d.param, err = f.str(p + ".dim_param")
					}
					return err
				})
				v.dims = append(v.dims, d)
				return err
			})
		}
		return err
	})
}
