package onnx

import "fmt"

// FLOPs per output element of the element-wise ops (a documented
// convention: a multiply, add, compare or select is 1; transcendental
// functions count as a few).
func unaryFLOPs() map[string]float64 {
	return map[string]float64{
		"Relu": 1, "LeakyRelu": 2, "Elu": 3, "Selu": 3, "Sigmoid": 4, "HardSigmoid": 3, "HardSwish": 4,
		"Tanh": 4, "Gelu": 8, "Erf": 4, "Softplus": 3, "Exp": 1, "Log": 1, "Sqrt": 1, "Reciprocal": 1,
		"Neg": 1, "Abs": 1, "Floor": 1, "Ceil": 1, "Round": 1, "Sign": 1, "Not": 1, "Sin": 1, "Cos": 1,
	}
}

// binaryOp is a broadcasting op's arity; cmp marks a boolean result.
type binaryOp struct {
	minIn, maxIn int
	cmp          bool
}

// binaryOps are the broadcasting ops.
func binaryOps() map[string]binaryOp {
	return map[string]binaryOp{
		"Add": {2, 2, false}, "Sub": {2, 2, false}, "Mul": {2, 2, false}, "Div": {2, 2, false},
		"Pow": {2, 2, false}, "PRelu": {2, 2, false}, "Mod": {2, 2, false},
		"Max": {1, 1 << 10, false}, "Min": {1, 1 << 10, false}, "Sum": {1, 1 << 10, false}, "Mean": {1, 1 << 10, false},
		"Equal": {2, 2, true}, "Less": {2, 2, true}, "Greater": {2, 2, true}, "LessOrEqual": {2, 2, true},
		"GreaterOrEqual": {2, 2, true}, "And": {2, 2, true}, "Or": {2, 2, true}, "Xor": {2, 2, true},
	}
}

func addElementwise(h map[string]handler) {
	for name, f := range unaryFLOPs() {
		h[name] = handler{infer: func(c *nodeCtx) error {
			if err := c.arity(1, 1, 1, 1); err != nil {
				return err
			}
			x := c.in[0]
			c.set(0, x.dtype, clone(x.shape), nil)
			c.flops = f * float64(numel(x.shape))
			return nil
		}}
	}
	for name, b := range binaryOps() {
		h[name] = handler{infer: func(c *nodeCtx) error {
			if err := c.arity(b.minIn, b.maxIn, 1, 1); err != nil {
				return err
			}
			return c.broadcastOp(name, b.cmp, 0, float64(max(1, len(c.in)-1)))
		}}
	}
	h["Where"] = handler{infer: func(c *nodeCtx) error {
		if err := c.arity(3, 3, 1, 1); err != nil {
			return err
		}
		return c.broadcastOp("Where", false, 1, 1)
	}}
	h["Clip"] = handler{infer: func(c *nodeCtx) error {
		if err := c.arity(1, 3, 1, 1); err != nil {
			return err
		}
		x := c.in[0]
		c.set(0, x.dtype, clone(x.shape), nil)
		c.flops = 2 * float64(numel(x.shape))
		return nil
	}}
	h["Cast"] = handler{infer: func(c *nodeCtx) error {
		if err := c.arity(1, 1, 1, 1); err != nil {
			return err
		}
		to, err := c.attrInt("to", -1)
		if err != nil {
			return err
		}
		if err := checkDtype(int32(to)); err != nil || to != int64(int32(to)) {
			return fmt.Errorf("attribute to = %d: not a tensor data type (valid: 1-%d except 8)", to, dtLast)
		}
		x := c.in[0]
		var vals []int64
		if isInt(int32(to)) && isInt(x.dtype) {
			vals = x.vals
		}
		c.set(0, int32(to), clone(x.shape), vals)
		return nil
	}}
	h["Identity"] = handler{view: true, infer: func(c *nodeCtx) error {
		if err := c.arity(1, 1, 1, 1); err != nil {
			return err
		}
		x := c.in[0]
		c.set(0, x.dtype, clone(x.shape), x.vals)
		return nil
	}}
	h["Dropout"] = handler{infer: func(c *nodeCtx) error {
		if err := c.arity(1, 3, 1, 2); err != nil {
			return err
		}
		x := c.in[0]
		c.set(0, x.dtype, clone(x.shape), nil)
		c.set(1, dtBool, clone(x.shape), nil)
		c.flops = float64(numel(x.shape))
		return nil
	}}
}

// broadcastOp infers a broadcasting op with perElem FLOPs per output
// element; the result has the type of input typeFrom, or bool for a
// comparison. Integer results fold when every input's values are known.
func (c *nodeCtx) broadcastOp(name string, cmp bool, typeFrom int, perElem float64) error {
	shapes := make([][]int64, len(c.in))
	for i, v := range c.in {
		if v == nil {
			return fmt.Errorf("input %d is required", i)
		}
		shapes[i] = v.shape
	}
	out, err := broadcast(shapes...)
	if err != nil {
		return err
	}
	if err := checkShape(out); err != nil {
		return err
	}
	dt := c.in[typeFrom].dtype
	if cmp {
		dt = dtBool
	}
	n := numel(out)
	c.flops = float64(n) * perElem
	if name == "Add" && len(c.in) == 2 && c.in[0].param != c.in[1].param {
		c.typ = "bias-add" // an activation plus a parameter, as the zoo names it
	}
	c.set(0, dt, out, foldBroadcast(name, out, c.in))
	return nil
}

// foldBroadcast computes an integer broadcasting op on known values (nil
// when they are not all known, too many, or the op does not fold).
func foldBroadcast(name string, out []int64, in []*value) []int64 {
	n := numel(out)
	if n > maxFold {
		return nil
	}
	for _, v := range in {
		if v.vals == nil || !isInt(v.dtype) {
			return nil
		}
	}
	res := make([]int64, n)
	args := make([]int64, len(in))
	idx := make([]int64, len(out))
	for k := int64(0); k < n; k++ {
		// the multi-index of k in out, then each input's element
		r := k
		for d := len(out) - 1; d >= 0; d-- {
			idx[d] = r % out[d]
			r /= out[d]
		}
		for a, v := range in {
			off, stride := int64(0), int64(1)
			for d := len(v.shape) - 1; d >= 0; d-- {
				od := d + len(out) - len(v.shape)
				if v.shape[d] != 1 {
					off += idx[od] * stride
				}
				stride *= v.shape[d]
			}
			args[a] = v.vals[off]
		}
		x, ok := apply(name, args)
		if !ok {
			return nil
		}
		res[k] = x
	}
	return res
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// apply evaluates one element of an integer op.
func apply(name string, a []int64) (int64, bool) {
	switch name {
	case "Add":
		return a[0] + a[1], true
	case "Sub":
		return a[0] - a[1], true
	case "Mul":
		return a[0] * a[1], true
	case "Div":
		if a[1] == 0 || (a[1] == -1 && a[0] < -1<<62) {
			return 0, false
		}
		return a[0] / a[1], true
	case "Equal":
		return b2i(a[0] == a[1]), true
	case "Less":
		return b2i(a[0] < a[1]), true
	case "Greater":
		return b2i(a[0] > a[1]), true
	case "LessOrEqual":
		return b2i(a[0] <= a[1]), true
	case "GreaterOrEqual":
		return b2i(a[0] >= a[1]), true
	case "And":
		return b2i(a[0] != 0 && a[1] != 0), true
	case "Or":
		return b2i(a[0] != 0 || a[1] != 0), true
	case "Where":
		if a[0] != 0 {
			return a[1], true
		}
		return a[2], true
	case "Max", "Min":
		m := a[0]
		for _, x := range a[1:] {
			if (name == "Max") == (x > m) {
				m = x
			}
		}
		return m, true
	}
	return 0, false
}
