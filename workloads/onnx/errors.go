package onnx

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by errors for a file that is not a well-formed ONNX
// ModelProto (bad protobuf encoding, a field of the wrong wire type, no
// graph).
var ErrFormat = errors.New("malformed ONNX model")

// ErrInvalid is wrapped by errors for a model that breaks ONNX's rules: an
// undefined or twice-defined tensor, inputs of incompatible shapes, an
// attribute out of its range, tensor data of the wrong size.
var ErrInvalid = errors.New("invalid ONNX model")

// ErrUnsupported is wrapped by errors for a valid model the importer cannot
// turn into a graph: an op type or domain it does not know, a string
// tensor, a symbolic dimension with no value given, a shape that depends on
// run-time data and that no value_info gives.
var ErrUnsupported = errors.New("unsupported ONNX model")

// errDynamic says a constant input needed for shape inference is computed
// at run time; the importer then falls back to value_info.
var errDynamic = errors.New("shape depends on run-time data")

// tagged adds a sentinel to an error without changing its message.
type tagged struct{ kind, err error }

func (t tagged) Error() string   { return t.err.Error() }
func (t tagged) Unwrap() []error { return []error{t.kind, t.err} }

// errorf formats an error that wraps kind (ErrFormat, ErrInvalid or
// ErrUnsupported) and any %w operand, with the message alone.
func errorf(kind error, format string, args ...any) error {
	return tagged{kind, fmt.Errorf(format, args...)}
}

// classified reports whether err already wraps one of the sentinels.
func classified(err error) bool {
	return errors.Is(err, ErrFormat) || errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnsupported)
}
