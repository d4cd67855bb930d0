package onnx

import (
	"fmt"
	"math/bits"
)

// maxElems bounds a tensor's element count (2^48), so that sizes in
// bytes and FLOP counts stay far from overflow.
const maxElems = int64(1) << 48

// maxFold bounds the integer tensors whose values constant folding keeps.
const maxFold = 1 << 16

// value is what the importer knows of a tensor.
type value struct {
	name  string
	dtype int32
	shape []int64
	// vals holds the contents of an integer tensor when they are known at
	// import time (initializers, Constant, Shape and what folds from them).
	vals []int64
	// producer is the index of the graph op that computes the tensor, or -1
	// for an initializer, a constant or a folded node's output.
	producer int
	// param marks a floating-point initializer: a trainable parameter.
	param bool
	// lazy, when set, says that no op computes the tensor whole (producer
	// is lazyProducer): it is the concatenation of the outputs of an
	// unrolled recurrent node's steps, made into a concat op only when a
	// consumer reads it whole (importer.materialize).
	lazy *lazyValue
	// unknown marks an output of a placeholder op (lenient import) whose
	// shape is not known: it has no size.
	unknown bool
}

// lazyProducer is the producer of a lazy value.
const lazyProducer = -2

// lazyValue is a tensor made of parts computed by separate ops.
type lazyValue struct {
	// parts are the pieces, by time step along axis (axis -1: one group,
	// not split by time); within a step, by direction.
	parts [][]*value
	axis  int
	// name and layer of the concat op that materialize makes.
	name, layer string
}

// constant reports a tensor known before the step runs.
func (v *value) constant() bool { return v.producer == -1 }

// numel is the element count of a checked shape.
func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// bytes is the tensor's size (0 when it is unknown).
func (v *value) bytes() int64 {
	if v.unknown {
		return 0
	}
	return sizeBytes(v.dtype, numel(v.shape))
}

// checkShape refuses negative dimensions and more than maxElems elements;
// zero dimensions are skipped in that product, so that any sub-product of
// a checked shape fits too.
func checkShape(shape []int64) error {
	n := uint64(1)
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("dimension %d is %d (valid range: >= 0)", i, d)
		}
		if d == 0 {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > uint64(maxElems) {
			return fmt.Errorf("shape %v has more than 2^48 elements", shape)
		}
		n = lo
	}
	return nil
}

// normAxis maps an axis in [-rank, rank) to [0, rank).
func normAxis(a int64, rank int) (int, error) {
	r := int64(rank)
	if a < -r || a >= r {
		return 0, fmt.Errorf("axis %d out of range [%d, %d] for rank %d", a, -r, r-1, rank)
	}
	if a < 0 {
		a += r
	}
	return int(a), nil
}

// broadcast applies numpy's multidirectional broadcasting rule.
func broadcast(shapes ...[]int64) ([]int64, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int64, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			switch o := out[off+i]; {
			case d == o || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("shapes %v cannot be broadcast (dimension %d: %d vs %d)", shapes, off+i, o, d)
			}
		}
	}
	return out, nil
}

// clone copies a shape (handlers must not alias their inputs' shapes).
func clone(s []int64) []int64 { return append([]int64{}, s...) }

// prod multiplies dims; shapes are checked, so a sub-product cannot overflow.
func prod(s []int64) int64 { return numel(s) }
