package onnx

import (
	"fmt"
	"strings"
)

func addLinear(h map[string]handler) {
	h["MatMul"] = handler{infer: inferMatMul}
	h["Gemm"] = handler{infer: inferGemm}
	h["Conv"] = handler{infer: inferConv}
	h["ConvTranspose"] = handler{infer: inferConvTranspose}
}

// inferMatMul follows numpy.matmul: 1-D operands are promoted to matrices
// and the promoted dimension removed; batch dimensions broadcast.
// FLOPs = 2 * batch * M * K * N.
func inferMatMul(c *nodeCtx) error {
	if err := c.arity(2, 2, 1, 1); err != nil {
		return err
	}
	a, b := c.in[0].shape, c.in[1].shape
	if len(a) == 0 || len(b) == 0 {
		return fmt.Errorf("operands of shapes %v and %v: MatMul needs rank >= 1", a, b)
	}
	pa, pb := clone(a), clone(b)
	if len(a) == 1 {
		pa = []int64{1, a[0]}
	}
	if len(b) == 1 {
		pb = []int64{b[0], 1}
	}
	m, k := pa[len(pa)-2], pa[len(pa)-1]
	k2, n := pb[len(pb)-2], pb[len(pb)-1]
	if k != k2 {
		return fmt.Errorf("operands of shapes %v and %v: inner dimensions %d and %d differ", a, b, k, k2)
	}
	batch, err := broadcast(pa[:len(pa)-2], pb[:len(pb)-2])
	if err != nil {
		return err
	}
	out := append(clone(batch), m, n)
	if err := checkShape(out); err != nil {
		return err
	}
	c.flops = 2 * float64(numel(out)) * float64(k)
	// numpy.matmul: the dimension a promotion added is removed again (M
	// for a 1-D first operand, N for a 1-D second one; both: a scalar)
	res := clone(batch)
	if len(a) != 1 {
		res = append(res, m)
	}
	if len(b) != 1 {
		res = append(res, n)
	}
	out = res
	c.typ = "matmul"
	c.set(0, c.in[0].dtype, out, nil)
	return nil
}

// inferGemm: Y = alpha * A' * B' + beta * C with A' (M, K) and B' (K, N)
// (transposed per transA, transB); C broadcasts to (M, N).
// FLOPs = 2 * M * K * N (+ M * N with C).
func inferGemm(c *nodeCtx) error {
	if err := c.arity(2, 3, 1, 1); err != nil {
		return err
	}
	a, b := c.in[0].shape, c.in[1].shape
	if len(a) != 2 || len(b) != 2 {
		return fmt.Errorf("operands of shapes %v and %v: Gemm needs two matrices", a, b)
	}
	ta, err := c.attrInt("transA", 0)
	if err != nil {
		return err
	}
	tb, err := c.attrInt("transB", 0)
	if err != nil {
		return err
	}
	m, k := a[0], a[1]
	if ta != 0 {
		m, k = k, m
	}
	k2, n := b[0], b[1]
	if tb != 0 {
		k2, n = n, k2
	}
	if k != k2 {
		return fmt.Errorf("A %v (transA=%d) and B %v (transB=%d): inner dimensions %d and %d differ", a, ta, b, tb, k, k2)
	}
	out := []int64{m, n}
	c.flops = 2 * float64(m) * float64(n) * float64(k)
	if cv := c.opt(2); cv != nil {
		if bc, err := broadcast(cv.shape, out); err != nil || bc[0] != m || bc[1] != n || len(bc) != 2 {
			return fmt.Errorf("C of shape %v does not broadcast to (M, N) = %v", cv.shape, out)
		}
		c.flops += float64(m) * float64(n)
	}
	c.typ = "matmul"
	c.set(0, c.in[0].dtype, out, nil)
	return nil
}

// window holds the attributes shared by convolutions and pooling.
type window struct {
	kernel, strides, dilations, pads []int64
	autoPad                          string
	ceil                             bool
}

// readWindow reads kernel_shape (or takes kernel), strides, dilations,
// pads, auto_pad and ceil_mode for spatial rank sp.
func (c *nodeCtx) readWindow(sp int, kernel []int64) (window, error) {
	var w window
	ks, ok, err := c.attrInts("kernel_shape")
	if err != nil {
		return w, err
	}
	switch {
	case ok && kernel != nil && fmt.Sprint(ks) != fmt.Sprint(kernel):
		return w, fmt.Errorf("attribute kernel_shape = %v differs from the weight's spatial dims %v", ks, kernel)
	case ok:
		kernel = ks
	case kernel == nil:
		return w, fmt.Errorf("attribute kernel_shape is required")
	}
	if len(kernel) != sp {
		return w, fmt.Errorf("attribute kernel_shape = %v: want %d values, one per spatial dimension", kernel, sp)
	}
	if err := checkEach("kernel_shape", kernel, 1); err != nil {
		return w, err
	}
	if err := checkShape(kernel); err != nil {
		return w, fmt.Errorf("attribute kernel_shape: %v", err)
	}
	w.kernel = kernel
	get := func(name string, n int, def, lo int64) ([]int64, error) {
		v, ok, err := c.attrInts(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != n {
			return nil, fmt.Errorf("attribute %s = %v: want %d values", name, v, n)
		}
		return v, checkEach(name, v, lo)
	}
	if w.strides, err = get("strides", sp, 1, 1); err != nil {
		return w, err
	}
	if w.dilations, err = get("dilations", sp, 1, 1); err != nil {
		return w, err
	}
	if w.pads, err = get("pads", 2*sp, 0, 0); err != nil {
		return w, err
	}
	if w.autoPad, err = c.attrString("auto_pad", "NOTSET"); err != nil {
		return w, err
	}
	switch w.autoPad {
	case "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER":
	default:
		return w, fmt.Errorf("attribute auto_pad = %q (valid: NOTSET, VALID, SAME_UPPER, SAME_LOWER)", w.autoPad)
	}
	cm, err := c.attrInt("ceil_mode", 0)
	if err != nil {
		return w, err
	}
	w.ceil = cm != 0
	return w, nil
}

// outShape is the output shape of an input of shape x (N, C, spatial...)
// under the window: head (N and the output channels) followed by each
// spatial dimension's outSize, checked (checkShape).
func (w window) outShape(head, x []int64) ([]int64, error) {
	out := clone(head)
	for i := range w.kernel {
		o, err := w.outSize(i, x[2+i])
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if err := checkShape(out); err != nil {
		return nil, err
	}
	return out, nil
}

// outSize is the output length of spatial dimension i for input length in.
func (w window) outSize(i int, in int64) (int64, error) {
	ek := w.dilations[i]*(w.kernel[i]-1) + 1
	s := w.strides[i]
	var out int64
	switch w.autoPad {
	case "SAME_UPPER", "SAME_LOWER":
		out = (in + s - 1) / s
	case "VALID":
		if in >= ek {
			out = (in-ek)/s + 1
		}
	default:
		span := in + w.pads[i] + w.pads[i+len(w.kernel)] - ek
		if span >= 0 {
			out = span/s + 1
			if w.ceil && span%s != 0 {
				out++
			}
		}
	}
	if out < 1 {
		return 0, fmt.Errorf("spatial dimension %d: input %d with kernel %d, dilation %d, stride %d, pads %v leaves no output", i, in, w.kernel[i], w.dilations[i], s, w.pads)
	}
	return out, nil
}

// inferConv: X (N, C, D1...), W (M, C/group, k1...), B (M).
// FLOPs = 2 * N * M * prod(out spatial) * (C/group) * prod(k) (+ bias).
func inferConv(c *nodeCtx) error {
	if err := c.arity(2, 3, 1, 1); err != nil {
		return err
	}
	x, wt := c.in[0].shape, c.in[1].shape
	if len(x) < 3 || len(wt) != len(x) {
		return fmt.Errorf("X of shape %v and W of shape %v: want X (N, C, spatial...) and W of the same rank", x, wt)
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return err
	}
	n, ch, m := x[0], x[1], wt[0]
	if group < 1 || group > maxWindow || ch%group != 0 || m%group != 0 || float64(wt[1])*float64(group) != float64(ch) {
		return fmt.Errorf("group = %d with %d input channels, W of shape %v (want C = W[1] * group and M divisible by group)", group, ch, wt)
	}
	sp := len(x) - 2
	w, err := c.readWindow(sp, wt[2:])
	if err != nil {
		return err
	}
	out, err := w.outShape([]int64{n, m}, x)
	if err != nil {
		return err
	}
	if b := c.opt(2); b != nil && (len(b.shape) != 1 || b.shape[0] != m) {
		return fmt.Errorf("bias B of shape %v: want (%d)", b.shape, m)
	}
	c.flops = 2 * float64(numel(out)) * float64(wt[1]) * float64(prod(wt[2:]))
	if c.opt(2) != nil {
		c.flops += float64(numel(out))
	}
	c.typ = fmt.Sprintf("conv%dd", sp)
	c.set(0, c.in[0].dtype, out, nil)
	return nil
}

// inferConvTranspose: X (N, C, D1...), W (C, M/group, k1...); output
// length s*(in-1) + output_padding + dilation*(k-1) + 1 - pads, or
// output_shape. FLOPs = 2 * N * C * prod(in spatial) * (M/group) * prod(k).
func inferConvTranspose(c *nodeCtx) error {
	if err := c.arity(2, 3, 1, 1); err != nil {
		return err
	}
	x, wt := c.in[0].shape, c.in[1].shape
	if len(x) < 3 || len(wt) != len(x) {
		return fmt.Errorf("X of shape %v and W of shape %v: want X (N, C, spatial...) and W of the same rank", x, wt)
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return err
	}
	if group < 1 || group > maxWindow || x[1] != wt[0] || x[1]%group != 0 || float64(wt[1])*float64(group) > float64(maxElems) {
		return fmt.Errorf("group = %d with X of shape %v and W of shape %v (want W[0] = C, divisible by group)", group, x, wt)
	}
	sp := len(x) - 2
	w, err := c.readWindow(sp, wt[2:])
	if err != nil {
		return err
	}
	m := wt[1] * group
	outPad, ok, err := c.attrInts("output_padding")
	if err != nil {
		return err
	}
	if !ok {
		outPad = make([]int64, sp)
	}
	if len(outPad) != sp {
		return fmt.Errorf("attribute output_padding = %v: want %d values", outPad, sp)
	}
	if err := checkEach("output_padding", outPad, 0); err != nil {
		return err
	}
	given, hasShape, err := c.attrInts("output_shape")
	if err != nil {
		return err
	}
	if hasShape && len(given) == len(x) {
		given = given[2:]
	}
	if hasShape && len(given) != sp {
		return fmt.Errorf("attribute output_shape = %v: want %d spatial values", given, sp)
	}
	out := []int64{x[0], m}
	for i := 0; i < sp; i++ {
		var o int64
		switch {
		case hasShape:
			o = given[i]
		default:
			f := float64(w.strides[i])*float64(x[2+i]-1) + float64(outPad[i]+w.dilations[i]*(w.kernel[i]-1)+1-w.pads[i]-w.pads[i+sp])
			if strings.HasPrefix(w.autoPad, "SAME") {
				f = float64(x[2+i]) * float64(w.strides[i])
			}
			if f > float64(maxElems) {
				return fmt.Errorf("spatial dimension %d: output length %g (valid range: [1, 2^48])", i, f)
			}
			o = int64(f)
		}
		if o < 1 || o > maxElems {
			return fmt.Errorf("spatial dimension %d: output length %d (valid range: [1, 2^48])", i, o)
		}
		out = append(out, o)
	}
	if err := checkShape(out); err != nil {
		return err
	}
	c.flops = 2 * float64(numel(x)) * float64(wt[1]) * float64(prod(wt[2:]))
	c.typ = fmt.Sprintf("conv%dd-transpose", sp)
	c.set(0, c.in[0].dtype, out, nil)
	return nil
}
