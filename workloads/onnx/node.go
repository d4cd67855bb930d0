package onnx

import (
	"fmt"
	"sort"
)

// handler infers one op type's outputs and cost.
type handler struct {
	infer func(c *nodeCtx) error
	// view marks ops that only reinterpret their input (Reshape, Squeeze...):
	// no memory traffic.
	view bool
	// alwaysFold marks ops whose outputs are known at import time whatever
	// their inputs (Constant, Shape): they never become graph ops.
	alwaysFold bool
	// recurrent marks LSTM, GRU and RNN, which unroll (Options.RNN).
	recurrent bool
}

// nodeCtx is one node during inference.
type nodeCtx struct {
	imp *importer
	n   *nodeProto
	idx int
	in  []*value // by input position; nil for an omitted optional input
	out []*value // by output position; nil for an omitted optional output
	// set by handlers:
	typ           string  // the op's Type in the graph
	flops         float64 // 1 MAC = 2 FLOPs
	bytesAccessed int64   // 0: inputs + outputs
	// rnn is set by the recurrent ops, for unrolling.
	rnn *recurrent
}

// wrap prefixes err with the node and tags it with kind unless it is
// already classified.
func (c *nodeCtx) wrap(kind, err error) error {
	if !classified(err) {
		err = tagged{kind, err}
	}
	return fmt.Errorf("node %q (graph.node[%d], %s): %w", c.name(), c.idx, c.n.opType, err)
}

// name is the node's name, or OPTYPE_INDEX when it has none.
func (c *nodeCtx) name() string {
	if c.n.name != "" {
		return c.n.name
	}
	return fmt.Sprintf("%s_%d", c.n.opType, c.idx)
}

// folds reports whether the node's outputs are constants.
func (c *nodeCtx) folds(h handler) bool {
	if h.alwaysFold {
		return true
	}
	for _, v := range c.in {
		if v != nil && !v.constant() {
			return false
		}
	}
	for _, v := range c.out {
		if v != nil && v.vals == nil {
			return false
		}
	}
	return true
}

// fromValueInfo takes the outputs' shapes from value_info when they
// depend on run-time data.
func (c *nodeCtx) fromValueInfo(cause error) error {
	for i, v := range c.out {
		if v == nil {
			continue
		}
		vi, ok := c.imp.valueInfo[v.name]
		if !ok || !vi.isTensor || !vi.hasShape {
			return errorf(ErrUnsupported, "%v, and no value_info gives the shape of output %d %q", cause, i, v.name)
		}
		shape, why, ok := c.imp.resolveDims(vi, false)
		if !ok {
			return errorf(ErrUnsupported, "%v, and the value_info of output %d %q is not static: %s", cause, i, v.name, why)
		}
		v.shape, v.dtype, v.vals = shape, vi.elemType, nil
	}
	return nil
}

// arity checks the number of inputs and outputs.
func (c *nodeCtx) arity(minIn, maxIn, minOut, maxOut int) error {
	if len(c.in) < minIn || len(c.in) > maxIn {
		return fmt.Errorf("%d inputs (valid range: %d to %d)", len(c.in), minIn, maxIn)
	}
	if len(c.out) < minOut || len(c.out) > maxOut {
		return fmt.Errorf("%d outputs (valid range: %d to %d)", len(c.out), minOut, maxOut)
	}
	for i := 0; i < minIn; i++ {
		if c.in[i] == nil {
			return fmt.Errorf("input %d is required", i)
		}
	}
	if c.out[0] == nil {
		return fmt.Errorf("output 0 is required")
	}
	return nil
}

// set fills output i (ignored when the output is omitted).
func (c *nodeCtx) set(i int, dtype int32, shape []int64, vals []int64) {
	if i < len(c.out) && c.out[i] != nil {
		c.out[i].dtype, c.out[i].shape = dtype, shape
		if vals != nil && len(vals) <= maxFold && int64(len(vals)) == numel(shape) {
			c.out[i].vals = vals
		}
	}
}

// opt returns input i or nil when it is omitted.
func (c *nodeCtx) opt(i int) *value {
	if i < len(c.in) {
		return c.in[i]
	}
	return nil
}

// ints returns the known contents of input i, or errDynamic.
func (c *nodeCtx) ints(i int, what string) ([]int64, error) {
	v := c.opt(i)
	if v == nil {
		return nil, fmt.Errorf("input %d (%s) is required", i, what)
	}
	if v.vals == nil {
		return nil, fmt.Errorf("input %d (%s) %q: %w", i, what, v.name, errDynamic)
	}
	return v.vals, nil
}

func (c *nodeCtx) attr(name string) *attributeProto {
	for i := range c.n.attribute {
		if c.n.attribute[i].name == name {
			return &c.n.attribute[i]
		}
	}
	return nil
}

func attrTypeErr(a *attributeProto, want string) error {
	return fmt.Errorf("attribute %s has type %d, want %s", a.name, a.typ, want)
}

// attrInt reads an INT attribute, def when absent.
func (c *nodeCtx) attrInt(name string, def int64) (int64, error) {
	a := c.attr(name)
	if a == nil {
		return def, nil
	}
	if a.typ != attrInt {
		return 0, attrTypeErr(a, "INT")
	}
	return a.i, nil
}

// attrAxis reads the INT attribute "axis" (def when absent) as an axis of
// a tensor of the given rank, negative axes counted from the end; out of
// range is an error naming the attribute.
func (c *nodeCtx) attrAxis(def int64, rank int) (int, error) {
	axis, err := c.attrInt("axis", def)
	if err != nil {
		return 0, err
	}
	a, err := normAxis(axis, rank)
	if err != nil {
		return 0, fmt.Errorf("attribute axis: %v", err)
	}
	return a, nil
}

// attrInts reads an INTS attribute (ok false when absent).
func (c *nodeCtx) attrInts(name string) ([]int64, bool, error) {
	a := c.attr(name)
	if a == nil {
		return nil, false, nil
	}
	if a.typ != attrInts {
		return nil, false, attrTypeErr(a, "INTS")
	}
	return a.ints, true, nil
}

// attrFloat reads a FLOAT attribute, def when absent.
func (c *nodeCtx) attrFloat(name string, def float64) (float64, error) {
	a := c.attr(name)
	if a == nil {
		return def, nil
	}
	if a.typ != attrFloat {
		return 0, attrTypeErr(a, "FLOAT")
	}
	return float64(a.f), nil
}

// attrString reads a STRING attribute, def when absent.
func (c *nodeCtx) attrString(name, def string) (string, error) {
	a := c.attr(name)
	if a == nil {
		return def, nil
	}
	if a.typ != attrString {
		return "", attrTypeErr(a, "STRING")
	}
	return string(a.s), nil
}

// intsAttrOrInput reads a list given as an INTS attribute (older opsets)
// or as a constant input (newer ones): axes, pads, split, shape.
func (c *nodeCtx) intsAttrOrInput(name string, input int) ([]int64, bool, error) {
	v, ok, err := c.attrInts(name)
	if ok || err != nil {
		return v, ok, err
	}
	if c.opt(input) == nil {
		return nil, false, nil
	}
	v, err = c.ints(input, name)
	return v, err == nil, err
}

// requiredInts is intsAttrOrInput for a list the op cannot do without:
// its absence is an error naming the input and the attribute.
func (c *nodeCtx) requiredInts(name string, input int) ([]int64, error) {
	v, ok, err := c.intsAttrOrInput(name, input)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s (input %d or attribute %s) is required", name, input, name)
	}
	return v, nil
}

// maxWindow bounds kernel sizes, strides, dilations and pads (2^31), so
// that window arithmetic on checked shapes cannot overflow.
const maxWindow = int64(1) << 31

// checkEach checks that every element of list is in [lo, maxWindow].
func checkEach(name string, list []int64, lo int64) error {
	for _, v := range list {
		if v < lo || v > maxWindow {
			return fmt.Errorf("attribute %s = %v (valid range: each in [%d, 2^31])", name, list, lo)
		}
	}
	return nil
}

// newHandlers is the table of supported op types (rebuilt per import: the
// package keeps no global mutable state).
func newHandlers() map[string]handler {
	h := map[string]handler{}
	addElementwise(h)
	addLinear(h)
	addPoolNorm(h)
	addShapeOps(h)
	addReduce(h)
	addRecurrent(h)
	return h
}

// SupportedOps lists the ONNX op types the importer handles, sorted.
func SupportedOps() []string {
	var s []string
	for k := range newHandlers() {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
