package zoo

// Convolutional building blocks on NHWC tensors [batch, height, width,
// channels], TensorFlow 1.x style.

// padding of a convolution or pooling window.
type padding bool

const (
	same  padding = true  // output = ceil(input / stride)
	valid padding = false // output = floor((input - window) / stride) + 1
)

// outSize is a spatial output size.
func outSize(in, window, stride int, p padding) int {
	if p == same {
		return (in + stride - 1) / stride
	}
	return (in-window)/stride + 1
}

// conv2d is a convolution with an owned kernel [kh, kw, cin, cout] (no
// bias): 2·B·Ho·Wo·cout·kh·kw·cin FLOPs.
func (n *net) conv2d(name string, x tensor, cout, kh, kw, stride int, p padding) tensor {
	b, h, w, cin := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	ho, wo := outSize(h, kh, stride, p), outSize(w, kw, stride, p)
	flops := 2 * float64(b) * float64(ho) * float64(wo) * float64(cout) * float64(kh*kw) * float64(cin)
	return n.op(name, "conv2d", flops, []int{b, ho, wo, cout}, []int64{int64(kh) * int64(kw) * int64(cin) * int64(cout)}, x)
}

// depthwise is a depthwise convolution (one k x k filter per channel).
func (n *net) depthwise(name string, x tensor, k, stride int, p padding) tensor {
	b, h, w, c := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	ho, wo := outSize(h, k, stride, p), outSize(w, k, stride, p)
	flops := 2 * float64(b) * float64(ho) * float64(wo) * float64(c) * float64(k*k)
	return n.op(name, "depthwise-conv2d", flops, []int{b, ho, wo, c}, []int64{int64(k) * int64(k) * int64(c)}, x)
}

// separable is tf.nn.separable_conv2d: depthwise then pointwise 1x1.
func (n *net) separable(name string, x tensor, cout, k, stride int) tensor {
	d := n.depthwise(name+"/depthwise", x, k, stride, same)
	return n.conv2d(name+"/pointwise", d, cout, 1, 1, 1, same)
}

// pool is a k x k max or average pooling window.
func (n *net) pool(name, typ string, x tensor, k, stride int, p padding) tensor {
	b, h, w, c := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	ho, wo := outSize(h, k, stride, p), outSize(w, k, stride, p)
	o := tensor{shape: []int{b, ho, wo, c}}
	return n.op(name, typ, float64(k*k)*float64(o.elems()), o.shape, nil, x)
}

func (n *net) maxPool(name string, x tensor, k, stride int, p padding) tensor {
	return n.pool(name, "max-pool", x, k, stride, p)
}

// globalAvgPool averages over height and width: [B, C].
func (n *net) globalAvgPool(name string, x tensor) tensor {
	return n.op(name, "global-avg-pool", float64(x.elems()), []int{x.shape[0], x.shape[3]}, nil, x)
}

// addRelu is a residual add followed by a ReLU: two ops, or one when the
// framework fuses them.
func (n *net) addRelu(name string, a, b tensor) tensor {
	if n.prof.fuseAddAct {
		return n.elementwise(name, "add", 2*flopArith, a, b)
	}
	return n.relu("relu", n.add(name, a, b))
}

// batchNorm normalises over batch, height and width with an offset (beta)
// and, when scale, a scale (gamma).
//
// Training, unfused (TensorFlow 1.x tf.nn.moments, assign_moving_average
// and tf.nn.batch_normalization, op by op): mean, stop_gradient,
// squared_difference, mean (variance), two squeezes, for each moving
// statistic sub, mul, assign_sub (state, no gradient), then add eps,
// rsqrt, [mul scale], mul x, mul mean, sub from offset, add.
// Inference uses the moving statistics: add eps, rsqrt, [mul scale],
// mul x, mul mean, sub, add. With fusedBN it is one op ("batchnorm").
func (n *net) batchNorm(name string, x tensor, scale bool) tensor {
	c := x.dim()
	cc := int64(c)
	params := []int64{cc} // offset
	if scale {
		params = []int64{cc, cc}
	}
	if n.fusedBN {
		return n.op(name, "batchnorm", 8*float64(x.elems()), x.shape, params, x)
	}
	e := float64(x.elems())
	stat := []int{c}
	var mean, variance tensor
	if n.train {
		mean = n.op(name+"/moments/mean", "mean", e, stat, nil, x)
		sg := n.op(name+"/moments/stop_gradient", "stop-gradient", 0, stat, nil, mean)
		sq := n.op(name+"/moments/squared_difference", "squared-difference", 2*e, x.shape, nil, x, sg)
		v := n.op(name+"/moments/variance", "mean", e, stat, nil, sq)
		mean = n.op(name+"/moments/squeeze", "squeeze", 0, stat, nil, mean)
		variance = n.op(name+"/moments/squeeze_1", "squeeze", 0, stat, nil, v)
		for _, m := range []struct {
			name string
			t    tensor
		}{{"assign_moving_mean", mean}, {"assign_moving_variance", variance}} {
			d := n.op(name+"/"+m.name+"/sub", "sub", float64(c), stat, nil, m.t)
			d = n.op(name+"/"+m.name+"/mul", "mul", float64(c), stat, nil, d)
			n.op(name+"/"+m.name, "assign-sub", float64(c), stat, []int64{cc}, d)
		}
	}
	var ve tensor
	if n.train {
		ve = n.op(name+"/batchnorm/add", "add", float64(c), stat, nil, variance)
	} else { // the moving variance is state of this op
		ve = n.op(name+"/batchnorm/add", "add", float64(c), stat, []int64{cc})
	}
	inv := n.op(name+"/batchnorm/rsqrt", "rsqrt", flopTranscendental*float64(c), stat, nil, ve)
	if scale {
		inv = n.op(name+"/batchnorm/mul", "mul", float64(c), stat, []int64{cc}, inv)
	}
	xm := n.op(name+"/batchnorm/mul_1", "mul", e, x.shape, nil, x, inv)
	var mm tensor
	if n.train {
		mm = n.op(name+"/batchnorm/mul_2", "mul", float64(c), stat, nil, mean, inv)
	} else { // the moving mean is state of this op
		mm = n.op(name+"/batchnorm/mul_2", "mul", float64(c), stat, []int64{cc}, inv)
	}
	off := n.op(name+"/batchnorm/sub", "sub", float64(c), stat, []int64{cc}, mm)
	return n.op(name+"/batchnorm/add_1", "add", e, x.shape, nil, xm, off)
}

// convBN is conv2d + batch norm (+ ReLU when relu).
// When the framework fuses batch norm with its activation, the ReLU is
// part of the batch-norm op.
func (n *net) convBN(name string, x tensor, cout, kh, kw, stride int, p padding, scale, relu bool) tensor {
	y := n.conv2d(name+"/conv2d", x, cout, kh, kw, stride, p)
	y = n.batchNorm(name+"/batchnorm", y, scale)
	if relu && n.fusedBN && n.prof.fuseBNAct {
		n.g.Ops[y.op].FLOPs += float64(y.elems())
		return y
	}
	if relu {
		y = n.relu(name+"/relu", y)
	}
	return y
}
