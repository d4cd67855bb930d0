package onnx

func addReduce(h map[string]handler) {
	for _, name := range []string{"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"} {
		h[name] = handler{infer: inferReduce}
	}
	h["ArgMax"] = handler{infer: inferArg}
	h["ArgMin"] = handler{infer: inferArg}
}

// reduceShape removes (or sets to 1 with keepdims) the reduced axes.
func reduceShape(x []int64, set map[int]bool, keep bool) []int64 {
	out := []int64{}
	for i, d := range x {
		switch {
		case !set[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

// inferReduce: axes from the attribute or input 1 (all axes when none,
// unless noop_with_empty_axes); FLOPs = input elements.
func inferReduce(c *nodeCtx) error {
	if err := c.arity(1, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	axes, ok, err := c.intsAttrOrInput("axes", 1)
	if err != nil {
		return err
	}
	keep, err := c.attrInt("keepdims", 1)
	if err != nil {
		return err
	}
	noop, err := c.attrInt("noop_with_empty_axes", 0)
	if err != nil {
		return err
	}
	set := map[int]bool{}
	if ok && len(axes) > 0 {
		if set, err = axesSet(axes, len(x.shape)); err != nil {
			return err
		}
	} else if noop == 0 {
		for i := range x.shape {
			set[i] = true
		}
	}
	c.flops = float64(numel(x.shape))
	c.set(0, x.dtype, reduceShape(x.shape, set, keep != 0), nil)
	return nil
}

func inferArg(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	a, err := c.attrAxis(0, len(x.shape))
	if err != nil {
		return err
	}
	keep, err := c.attrInt("keepdims", 1)
	if err != nil {
		return err
	}
	c.flops = float64(numel(x.shape))
	c.set(0, dtInt64, reduceShape(x.shape, map[int]bool{a: true}, keep != 0), nil)
	return nil
}
