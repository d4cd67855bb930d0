package onnx

import (
	"fmt"
	"sort"
	"strings"
)

// The recurrent ops LSTM, GRU and RNN of the ONNX operator specification
// (opset 7 to 22; layout since opset 14). Inputs, by position:
//
//	0 X              [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1)
//	1 W              [dirs, gates*hidden, input]
//	2 R              [dirs, gates*hidden, hidden]
//	3 B              [dirs, 2*gates*hidden] (Wb and Rb), optional
//	4 sequence_lens  [batch], integer, optional
//	5 initial_h      [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]), optional
//	6 initial_c      LSTM only, like initial_h, optional
//	7 P              LSTM only, [dirs, 3*hidden] peepholes, optional
//
// Outputs: Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs,
// hidden]), Y_h and (LSTM) Y_c [dirs, batch, hidden] (layout 1: [batch,
// dirs, hidden]), each optional. gates is 4 (LSTM: i, o, f, c), 3 (GRU: z,
// r, h) or 1 (RNN); dirs is 2 for direction "bidirectional", else 1.

// recSpec is what differs between LSTM, GRU and RNN.
type recSpec struct {
	op, typ       string
	gates         int64
	maxIn, maxOut int
	// defActs are the default activations of one direction (f, g, h).
	defActs []string
}

var (
	specLSTM = recSpec{"LSTM", "lstm", 4, 8, 3, []string{"Sigmoid", "Tanh", "Tanh"}}
	specGRU  = recSpec{"GRU", "gru", 3, 6, 2, []string{"Sigmoid", "Tanh"}}
	specRNN  = recSpec{"RNN", "rnn", 1, 6, 2, []string{"Tanh"}}
)

// activationFLOPs are the FLOPs per element of the activation functions
// the recurrent ops accept (the element-wise ops' convention: Sigmoid and
// Tanh 4, as the zoo counts transcendental functions).
func activationFLOPs() map[string]float64 {
	return map[string]float64{
		"Sigmoid": 4, "Tanh": 4, "Relu": 1, "Affine": 2, "LeakyRelu": 2, "ThresholdedRelu": 1,
		"ScaledTanh": 6, "HardSigmoid": 3, "Elu": 3, "Softsign": 3, "Softplus": 3,
	}
}

// maxUnrollSteps bounds the step ops one recurrent node unrolls into
// (sequence length times directions), and maxUnrollTotal those of a
// whole import, so that a small file cannot ask for billions of ops; a
// longer sequence imports with rnn=fused.
const (
	maxUnrollSteps = 1 << 15
	maxUnrollTotal = 1 << 18
)

// recurrent is an inferred LSTM, GRU or RNN node, kept for unrolling.
type recurrent struct {
	spec                      recSpec
	dirs                      int
	reverse                   bool // direction "reverse"
	layout                    int64
	seq, batch, input, hidden int64
	dtype                     int32
	// rowFLOPs is the work of one batch row in one time step, per
	// direction.
	rowFLOPs []float64
	// lens are the known sequence lengths (nil: every row runs seq steps).
	lens []int64
}

func addRecurrent(h map[string]handler) {
	for _, s := range []recSpec{specLSTM, specGRU, specRNN} {
		h[s.op] = handler{recurrent: true, infer: func(c *nodeCtx) error { return inferRecurrent(c, s) }}
	}
}

// inferRecurrent checks an LSTM, GRU or RNN node against the operator
// specification and counts its work: per batch row, time step and
// direction, 2*gates*hidden*(input+hidden) FLOPs for the two matrix
// products, 2*gates*hidden for the biases Wb and Rb when B is given, and
// the gate arithmetic (LSTM: 3 f, 1 g, 1 h activations of hidden
// elements, 4*hidden for the cell and output products and sums, 6*hidden
// for peepholes; GRU: 2 f and 1 g activations, 5*hidden for the reset
// product and the update blend, the same with linear_before_reset; RNN: 1
// f). A row with a known sequence_lens entry L runs L steps; with unknown
// lengths every row runs seq steps (an upper bound).
func inferRecurrent(c *nodeCtx, s recSpec) error {
	if len(c.in) < 3 || len(c.in) > s.maxIn {
		return fmt.Errorf("%d inputs (valid range: 3 to %d)", len(c.in), s.maxIn)
	}
	if len(c.out) > s.maxOut {
		return fmt.Errorf("%d outputs (valid range: 0 to %d)", len(c.out), s.maxOut)
	}
	for i, what := range []string{"X", "W", "R"} {
		if c.in[i] == nil {
			return fmt.Errorf("input %d (%s) is required", i, what)
		}
	}
	r := &recurrent{spec: s, dirs: 1}
	dir, err := c.attrString("direction", "forward")
	if err != nil {
		return err
	}
	switch dir {
	case "forward":
	case "reverse":
		r.reverse = true
	case "bidirectional":
		r.dirs = 2
	default:
		return fmt.Errorf("attribute direction = %q (valid: forward, reverse, bidirectional)", dir)
	}
	if r.layout, err = c.attrInt("layout", 0); err != nil {
		return err
	}
	if r.layout != 0 && r.layout != 1 {
		return fmt.Errorf("attribute layout = %d (valid: 0 for [seq, batch, ...], 1 for [batch, seq, ...])", r.layout)
	}
	x := c.in[0]
	if len(x.shape) != 3 {
		return fmt.Errorf("X of shape %v: want rank 3 ([seq, batch, input] with layout 0, [batch, seq, input] with layout 1)", x.shape)
	}
	if !isFloat(x.dtype) {
		return fmt.Errorf("X has data type %d: want a floating-point type", x.dtype)
	}
	r.dtype = x.dtype
	r.seq, r.batch, r.input = x.shape[0], x.shape[1], x.shape[2]
	if r.layout == 1 {
		r.seq, r.batch = r.batch, r.seq
	}
	if r.seq < 1 || r.batch < 1 || r.input < 1 {
		return fmt.Errorf("X of shape %v: sequence length, batch and input size must be >= 1", x.shape)
	}
	d, g := int64(r.dirs), s.gates
	w, rr := c.in[1].shape, c.in[2].shape
	if len(rr) != 3 || rr[0] != d || rr[2] < 1 || rr[1]%g != 0 || rr[1]/g != rr[2] {
		return fmt.Errorf("R of shape %v: want [%d, %d*hidden, hidden] (num_directions %d, %d gates)", rr, d, g, d, g)
	}
	r.hidden = rr[2]
	hid := r.hidden
	if hs, err := c.attrInt("hidden_size", hid); err != nil {
		return err
	} else if hs != hid {
		return fmt.Errorf("attribute hidden_size = %d, but R of shape %v has hidden size %d", hs, rr, hid)
	}
	if len(w) != 3 || w[0] != d || w[1] != g*hid || w[2] != r.input {
		return fmt.Errorf("W of shape %v: want [%d, %d, %d] (num_directions, %d*hidden_size, input_size)", w, d, g*hid, r.input, g)
	}
	stateShape := []int64{d, r.batch, hid}
	if r.layout == 1 {
		stateShape = []int64{r.batch, d, hid}
	}
	type opt struct {
		i     int
		name  string
		shape []int64
	}
	opts := []opt{{3, "B", []int64{d, 2 * g * hid}}, {5, "initial_h", stateShape}}
	if s.op == "LSTM" {
		opts = append(opts, opt{6, "initial_c", stateShape}, opt{7, "P", []int64{d, 3 * hid}})
	}
	for _, o := range opts {
		if v := c.opt(o.i); v != nil && !equalShape(v.shape, o.shape) {
			return fmt.Errorf("input %d (%s) of shape %v: want %v", o.i, o.name, v.shape, o.shape)
		}
	}
	if v := c.opt(4); v != nil {
		if !isInt(v.dtype) || !equalShape(v.shape, []int64{r.batch}) {
			return fmt.Errorf("input 4 (sequence_lens) of data type %d and shape %v: want integers of shape [%d]", v.dtype, v.shape, r.batch)
		}
		if v.vals != nil {
			for b, l := range v.vals {
				if l < 0 || l > r.seq {
					return fmt.Errorf("input 4 (sequence_lens)[%d] = %d (valid range: [0, %d], the sequence length)", b, l, r.seq)
				}
			}
			r.lens = v.vals
		}
	}
	acts, err := c.activations(s, r.dirs)
	if err != nil {
		return err
	}
	for _, flag := range []string{"input_forget", "linear_before_reset"} {
		if v, err := c.attrInt(flag, 0); err != nil {
			return err
		} else if v != 0 && v != 1 {
			return fmt.Errorf("attribute %s = %d (valid: 0, 1)", flag, v)
		}
	}
	if _, err := c.attrFloat("clip", 0); err != nil {
		return err
	}
	h := float64(hid)
	hasB, hasP := c.opt(3) != nil, c.opt(7) != nil
	r.rowFLOPs = make([]float64, r.dirs)
	for k := range r.rowFLOPs {
		a := acts[k*len(s.defActs) : (k+1)*len(s.defActs)]
		f := 2 * float64(g) * h * float64(r.input+hid)
		if hasB {
			f += 2 * float64(g) * h
		}
		switch s.op {
		case "LSTM":
			f += h * (3*a[0] + a[1] + a[2] + 4)
			if hasP {
				f += 6 * h
			}
		case "GRU":
			f += h * (2*a[0] + a[1] + 5)
		default:
			f += h * a[0]
		}
		r.rowFLOPs[k] = f
	}
	rows := float64(r.seq) * float64(r.batch)
	if r.lens != nil {
		rows = 0
		for _, l := range r.lens {
			rows += float64(l)
		}
	}
	for _, f := range r.rowFLOPs {
		c.flops += f * rows
	}
	y := []int64{r.seq, d, r.batch, hid}
	if r.layout == 1 {
		y = []int64{r.batch, r.seq, d, hid}
	}
	c.set(0, r.dtype, y, nil)
	c.set(1, r.dtype, clone(stateShape), nil)
	c.set(2, r.dtype, clone(stateShape), nil)
	c.typ = s.typ
	c.rnn = r
	return nil
}

// activations reads the activations attribute: for each direction, one
// function per slot of the op (f, g, h), or the defaults; it returns
// their FLOPs per element.
func (c *nodeCtx) activations(s recSpec, dirs int) ([]float64, error) {
	names := make([]string, 0, dirs*len(s.defActs))
	for range dirs {
		names = append(names, s.defActs...)
	}
	if a := c.attr("activations"); a != nil {
		if a.typ != attrStrings {
			return nil, attrTypeErr(a, "STRINGS")
		}
		if len(a.strings) != len(names) {
			return nil, fmt.Errorf("attribute activations has %d names, want %d (%d per direction)", len(a.strings), len(names), len(s.defActs))
		}
		for i, b := range a.strings {
			names[i] = string(b)
		}
	}
	costs := activationFLOPs()
	out := make([]float64, len(names))
	for i, n := range names {
		f, ok := costs[n]
		if !ok {
			valid := make([]string, 0, len(costs))
			for k := range costs {
				valid = append(valid, k)
			}
			sort.Strings(valid)
			return nil, fmt.Errorf("attribute activations[%d] = %q (valid: %s)", i, n, strings.Join(valid, ", "))
		}
		out[i] = f
	}
	return out, nil
}

// equalShape reports whether two shapes are the same.
func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// slice is a part of v (a time step of X, one direction's weights or
// state): the same producer, or a parameter of its own named name.
func slice(v *value, name string, shape []int64) *value {
	s := &value{name: v.name, dtype: v.dtype, shape: shape, producer: v.producer, param: v.param}
	if v.param {
		s.name = name
	}
	return s
}

// unroll turns a recurrent node into one op per time step and direction
// (named NODE/t_T, or NODE/forward/t_T and NODE/reverse/t_T with two
// directions or direction reverse), all in layer NODE. A step reads its
// time slice of X, the previous step's state and its direction's W, R, B
// and P (each direction's parameters are one tensor, a variable op read
// by every step when there are several), costs its rows' FLOPs, outputs
// h (and c) and holds the gate pre-activations as workspace. Y, Y_h and
// Y_c are the steps' outputs; an op that reads one of them whole reads it
// from a zero-FLOP concat op made for it, while a following recurrent node
// (directly or through Squeeze, Unsqueeze, Reshape, Transpose or Identity
// nodes that keep the time axis) reads the steps themselves, as the zoo's
// stacked LSTM layers do.
func (imp *importer) unroll(c *nodeCtx, base string) error {
	r := c.rnn
	steps := int64(r.dirs) * r.seq
	if steps > maxUnrollSteps || int64(imp.unrolled)+steps > maxUnrollTotal {
		return errorf(ErrUnsupported, "unrolling %d time steps x %d directions (valid range: <= %d step ops per node and %d per model; import with rnn=fused for one op per node)", r.seq, r.dirs, maxUnrollSteps, maxUnrollTotal)
	}
	imp.unrolled += int(steps)
	x := c.in[0]
	timeAxis := int(r.layout)
	var xSteps [][]*value
	if x.lazy != nil && x.lazy.axis == timeAxis && int64(len(x.lazy.parts)) == r.seq {
		xSteps = x.lazy.parts
	} else {
		imp.materialize(x)
		xSteps = make([][]*value, r.seq)
		for t := range xSteps {
			xSteps[t] = []*value{slice(x, fmt.Sprintf("%s[t=%d]", x.name, t), []int64{r.batch, r.input})}
		}
	}
	hid, g := r.hidden, r.spec.gates
	perDir := func(i int, shape ...int64) []*value {
		v := c.opt(i)
		if v == nil {
			return make([]*value, r.dirs)
		}
		if r.dirs == 1 {
			return []*value{v}
		}
		return []*value{slice(v, v.name+"[forward]", shape), slice(v, v.name+"[reverse]", shape)}
	}
	ws := perDir(1, g*hid, r.input)
	rs := perDir(2, g*hid, hid)
	bs := perDir(3, 2*g*hid)
	ps := perDir(7, 3*hid)
	h0 := perDir(5, r.batch, hid)
	c0 := perDir(6, r.batch, hid)
	// active[t] is the number of rows still running at time t: those
	// whose length is > t (counted once, not per step: O(seq + batch))
	active := make([]int64, r.seq)
	for t := range active {
		active[t] = r.batch
	}
	if r.lens != nil {
		ends := make([]int64, r.seq+1)
		for _, l := range r.lens {
			ends[l]++
		}
		run := r.batch
		for t := range active {
			run -= ends[t]
			active[t] = run
		}
	}
	lstm := r.spec.op == "LSTM"
	layer := strings.TrimPrefix(base, "/")
	hs := make([][]*value, r.dirs) // [dir][t]
	cs := make([][]*value, r.dirs)
	stateBytes := sizeBytes(r.dtype, r.batch*hid)
	for d := range r.dirs {
		hs[d], cs[d] = make([]*value, r.seq), make([]*value, r.seq)
		rev := d == 1 || r.reverse
		prefix := base + "/"
		switch {
		case r.dirs == 2 && d == 0:
			prefix += "forward/"
		case rev:
			prefix += "reverse/"
		}
		prevH, prevC := h0[d], c0[d]
		for k := range r.seq {
			t := k
			if rev {
				t = r.seq - 1 - k
			}
			op := pendingOp{name: fmt.Sprintf("%st_%d", prefix, t), typ: r.spec.typ + "-cell", layer: layer,
				flops: r.rowFLOPs[d] * float64(active[t]), tempBytes: sizeBytes(r.dtype, g*r.batch*hid)}
			ins := append([]*value{}, xSteps[t]...)
			ins = append(ins, prevH, prevC, ws[d], rs[d], bs[d], ps[d], c.opt(4))
			var inBytes int64
			seen := map[*value]bool{}
			for _, v := range ins {
				if v != nil && !seen[v] {
					seen[v] = true
					op.inputs = append(op.inputs, v)
					inBytes += v.bytes()
				}
			}
			id := len(imp.ops)
			hv := &value{name: op.name + ":h", dtype: r.dtype, shape: []int64{r.batch, hid}, producer: id}
			hs[d][t], prevH = hv, hv
			op.outputBytes = stateBytes
			if lstm {
				cv := &value{name: op.name + ":c", dtype: r.dtype, shape: []int64{r.batch, hid}, producer: id}
				cs[d][t], prevC = cv, cv
				op.outputBytes += stateBytes
			}
			op.bytesAccessed = inBytes + op.outputBytes
			imp.ops = append(imp.ops, op)
		}
	}
	last := func(vs [][]*value) []*value {
		out := make([]*value, r.dirs)
		for d := range out {
			if d == 1 || r.reverse {
				out[d] = vs[d][0]
			} else {
				out[d] = vs[d][r.seq-1]
			}
		}
		return out
	}
	outs := []struct {
		parts [][]*value
		axis  int
	}{{nil, timeAxis}, {[][]*value{last(hs)}, -1}, {nil, -1}}
	outs[0].parts = make([][]*value, r.seq)
	for t := range outs[0].parts {
		for d := range r.dirs {
			outs[0].parts[t] = append(outs[0].parts[t], hs[d][t])
		}
	}
	if lstm {
		outs[2].parts = [][]*value{last(cs)}
	}
	for i, v := range c.out {
		if v == nil {
			continue
		}
		imp.setLazy(v, outs[i].parts, outs[i].axis, fmt.Sprintf("%s/%s", base, []string{"Y", "Y_h", "Y_c"}[i]), layer)
		imp.vals[v.name] = v
	}
	return nil
}
