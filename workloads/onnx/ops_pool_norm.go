package onnx

import "fmt"

func addPoolNorm(h map[string]handler) {
	h["MaxPool"] = handler{infer: func(c *nodeCtx) error { return inferPool(c, "max-pool", 2) }}
	h["AveragePool"] = handler{infer: func(c *nodeCtx) error { return inferPool(c, "avg-pool", 1) }}
	h["GlobalAveragePool"] = handler{infer: func(c *nodeCtx) error { return inferGlobalPool(c, "global-avg-pool") }}
	h["GlobalMaxPool"] = handler{infer: func(c *nodeCtx) error { return inferGlobalPool(c, "global-max-pool") }}
	h["BatchNormalization"] = handler{infer: inferBatchNorm}
	h["LayerNormalization"] = handler{infer: inferLayerNorm}
	h["InstanceNormalization"] = handler{infer: inferInstanceNorm}
	h["Softmax"] = handler{infer: inferSoftmax}
	h["LogSoftmax"] = handler{infer: inferSoftmax}
}

// inferPool: X (N, C, D1...) -> (N, C, out...); MaxPool may output the
// indices (int64). FLOPs = output elements * kernel size.
func inferPool(c *nodeCtx, typ string, maxOut int) error {
	if err := c.arity(1, 1, 1, maxOut); err != nil {
		return err
	}
	x := c.in[0].shape
	if len(x) < 3 {
		return fmt.Errorf("X of shape %v: want (N, C, spatial...)", x)
	}
	w, err := c.readWindow(len(x)-2, nil)
	if err != nil {
		return err
	}
	out, err := w.outShape(x[:2], x)
	if err != nil {
		return err
	}
	c.flops = float64(numel(out)) * float64(prod(w.kernel))
	c.typ = typ
	c.set(0, c.in[0].dtype, out, nil)
	c.set(1, dtInt64, clone(out), nil)
	return nil
}

// inferGlobalPool: X (N, C, D1...) -> (N, C, 1...); FLOPs = input elements.
func inferGlobalPool(c *nodeCtx, typ string) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	x := c.in[0].shape
	if len(x) < 3 {
		return fmt.Errorf("X of shape %v: want (N, C, spatial...)", x)
	}
	out := clone(x[:2])
	for range x[2:] {
		out = append(out, 1)
	}
	c.flops = float64(numel(x))
	c.typ = typ
	c.set(0, c.in[0].dtype, out, nil)
	return nil
}

// checkChannelVec checks that input i is a vector of c values.
func (c *nodeCtx) checkChannelVec(i int, what string, ch int64) error {
	v := c.opt(i)
	if v == nil {
		return nil
	}
	if len(v.shape) != 1 || v.shape[0] != ch {
		return fmt.Errorf("input %d (%s) of shape %v: want (%d), one per channel", i, what, v.shape, ch)
	}
	return nil
}

// inferBatchNorm: X (N, C, ...), scale, B, mean, var (C) -> Y like X, and
// in training mode the running mean and variance (C). FLOPs = 2 per
// element (the inference form y = a*x + b).
func inferBatchNorm(c *nodeCtx) error {
	if err := c.arity(5, 5, 1, 3); err != nil {
		return err
	}
	x := c.in[0].shape
	if len(x) < 2 {
		return fmt.Errorf("X of shape %v: want (N, C, ...)", x)
	}
	for i, what := range []string{"", "scale", "B", "mean", "var"} {
		if i > 0 {
			if err := c.checkChannelVec(i, what, x[1]); err != nil {
				return err
			}
		}
	}
	c.flops = 2 * float64(numel(x))
	c.typ = "batchnorm"
	c.set(0, c.in[0].dtype, clone(x), nil)
	c.set(1, c.in[3].dtype, []int64{x[1]}, nil)
	c.set(2, c.in[4].dtype, []int64{x[1]}, nil)
	return nil
}

// inferLayerNorm: X normalized over dims [axis, rank); Scale and B
// broadcast to them; optional Mean and InvStdDev have those dims set to 1.
// FLOPs = 8 per element (mean, variance, normalize, scale, shift).
func inferLayerNorm(c *nodeCtx) error {
	if err := c.arity(2, 3, 1, 3); err != nil {
		return err
	}
	x := c.in[0].shape
	a, err := c.attrAxis(-1, len(x))
	if err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if v := c.opt(i); v != nil {
			if bc, err := broadcast(v.shape, x[a:]); err != nil || len(bc) != len(x[a:]) || numel(bc) != numel(x[a:]) {
				return fmt.Errorf("input %d of shape %v does not broadcast to the normalized dims %v", i, v.shape, x[a:])
			}
		}
	}
	c.flops = 8 * float64(numel(x))
	c.typ = "layernorm"
	c.set(0, c.in[0].dtype, clone(x), nil)
	stat := clone(x)
	for i := a; i < len(stat); i++ {
		stat[i] = 1
	}
	c.set(1, dtFloat, stat, nil)
	c.set(2, dtFloat, clone(stat), nil)
	return nil
}

// inferInstanceNorm: X (N, C, ...), scale and B (C). FLOPs = 8 per element.
func inferInstanceNorm(c *nodeCtx) error {
	if err := c.arity(3, 3, 1, 1); err != nil {
		return err
	}
	x := c.in[0].shape
	if len(x) < 3 {
		return fmt.Errorf("X of shape %v: want (N, C, spatial...)", x)
	}
	if err := c.checkChannelVec(1, "scale", x[1]); err != nil {
		return err
	}
	if err := c.checkChannelVec(2, "B", x[1]); err != nil {
		return err
	}
	c.flops = 8 * float64(numel(x))
	c.typ = "instancenorm"
	c.set(0, c.in[0].dtype, clone(x), nil)
	return nil
}

// inferSoftmax: the shape is kept; FLOPs = 5 per element (max, subtract,
// exp, sum, divide).
func inferSoftmax(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	x := c.in[0].shape
	axis, err := c.attrInt("axis", -1)
	if err != nil {
		return err
	}
	if len(x) > 0 {
		if _, err := normAxis(axis, len(x)); err != nil {
			return fmt.Errorf("attribute axis: %v", err)
		}
	}
	c.flops = 5 * float64(numel(x))
	c.set(0, c.in[0].dtype, clone(x), nil)
	return nil
}
