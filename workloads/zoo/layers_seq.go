package zoo

import "fmt"

// Sequence-model building blocks: LSTM cells unrolled over time,
// multi-head attention, position-wise feed-forward networks.

// lstmWeights are one LSTM layer's kernel [in+hidden, 4·hidden] and bias
// [4·hidden], shared by the layer's time steps.
type lstmWeights struct{ kernel, bias tensor }

// lstmLayerWeights adds the variables of an LSTM layer, each in its own
// block (a parameter read by every time step).
func (n *net) lstmLayerWeights(layer string, in, hidden int) lstmWeights {
	n.inLayer(layer+"/kernel", layer, "variable")
	k := n.variable("kernel", in+hidden, 4*hidden)
	n.inLayer(layer+"/bias", layer, "variable")
	b := n.variable("bias", 4*hidden)
	return lstmWeights{k, b}
}

// lstmCell is one time step of TensorFlow 1.x BasicLSTMCell (Hochreiter
// and Schmidhuber 1997 with a forget-gate bias): concat [x, h], matmul,
// bias_add, split into i, j, f, o, then
// c' = c·σ(f+1) + σ(i)·tanh(j) and h' = tanh(c')·σ(o), op by op.
func (n *net) lstmCell(x, h, c tensor, w lstmWeights) (hNew, cNew tensor) {
	hidden := w.bias.shape[0] / 4
	xh := n.concat("concat", x, h)
	z := n.matmulShared("matmul", xh, w.kernel)
	z = n.op("bias_add", "bias-add", float64(z.elems()), z.shape, nil, z, w.bias)
	g := n.split("split", z, 4)
	if g[0].dim() != hidden {
		n.fail("lstm cell: gates of %d units, hidden %d", g[0].dim(), hidden)
	}
	f := n.elementwise("add", "add", flopArith, g[2])
	m1 := n.mul("mul", c, n.sigmoid("sigmoid", f))
	m2 := n.mul("mul_1", n.sigmoid("sigmoid_1", g[0]), n.tanh("tanh", g[1]))
	cNew = n.add("add_1", m1, m2)
	hNew = n.mul("mul_2", n.tanh("tanh_1", cNew), n.sigmoid("sigmoid_2", g[3]))
	return hNew, cNew
}

// zeroState is the initial h and c of a recurrent layer (constants).
func (n *net) zeroState(batch, hidden int) (h, c tensor) {
	return n.source("zero_h", "constant", batch, hidden), n.source("zero_c", "constant", batch, hidden)
}

// attnConfig describes a multi-head attention sublayer.
type attnConfig struct {
	heads int
	// bias: the projections have biases (BERT, GPT-2).
	bias bool
	// fused: TensorFlow's batched heads (dense, reshape, transpose, batch
	// matmul over all heads at once) instead of one op chain per head.
	fused bool
}

// attention is multi-head scaled dot-product attention (Vaswani et al.
// 2017, Section 3.2): for each head h, Q·W_h^Q, K·W_h^K, V·W_h^V,
// softmax(QKᵀ/√d_k + mask)·V with dropout on the weights, then the heads'
// concatenation times W^O. q is [B, Tq, D], kv [B, Tk, D]; mask is added
// to the logits (padding or causal). By default each head is its own op
// chain, following the paper's MultiHead(Q, K, V) = Concat(head_1..h)·W^O.
func (n *net) attention(q, kv, mask tensor, cfg attnConfig) tensor {
	b, tq, d := q.shape[0], q.shape[1], q.shape[2]
	tk := kv.shape[1]
	if d%cfg.heads != 0 {
		n.fail("attention: hidden size %d is not a multiple of %d heads", d, cfg.heads)
		return q
	}
	dk := d / cfg.heads
	proj := func(name string, x tensor, units int) tensor {
		if cfg.bias {
			return n.linear(name, x, units)
		}
		return n.matmul(name+"/matmul", x, units)
	}
	bmm := func(name string, x, y tensor, out []int, k int) tensor {
		o := tensor{shape: out}
		return n.op(name, "batch-matmul", 2*float64(o.elems())*float64(k), out, nil, x, y)
	}
	var ctx tensor
	if cfg.fused {
		split := func(name string, x tensor, t int) tensor {
			if n.prof.xlaHeads {
				// XLA: the reshape to [b, t, heads, dk] is a bitcast; the
				// transpose to [b, heads, t, dk] a copy, as a batched dot
				// takes its batch dimensions most major (DotDecomposer,
				// tensorflow/compiler/xla/service/dot_decomposer.cc
				// CanonicalizeDot: "Batch dimensions are the most major
				// dimensions. This requires transposing ... of the lhs
				// and rhs"); TensorFlow 1 BERT's transpose_for_scores
				// (modeling.py) is that transpose, of the query, key and
				// value projections; TensorFlow 2 BERT's
				// (official/nlp/modeling/layers/attention.py) transposes
				// the query and key with tf.transpose and the value
				// through its einsum
				return n.reshape(name+"/transpose", "transpose", n.view(x, b, t, cfg.heads, dk), b, cfg.heads, t, dk)
			}
			if n.prof.views { // the batched GEMM reads the heads strided
				return n.view(x, b, cfg.heads, t, dk)
			}
			x = n.reshape(name+"/reshape", "reshape", x, b, t, cfg.heads, dk)
			return n.reshape(name+"/transpose", "transpose", x, b, cfg.heads, t, dk)
		}
		qh := split("q", proj("q", q, d), tq)
		kh := split("k", proj("k", kv, d), tk)
		vh := split("v", proj("v", kv, d), tk)
		if !n.prof.xlaHeads {
			qh = n.scale("q/scale", qh)
		}
		// else TensorFlow BERT scales the scores (attention_layer:
		// tf.multiply(attention_scores, 1/sqrt(size_per_head))), which XLA
		// fuses into the softmax's kernels (its FLOPs are the softmax's
		// extra one per element below)
		l := bmm("logits", qh, kh, []int{b, cfg.heads, tq, tk}, dk)
		var w tensor
		if n.prof.fuseMaskSoftmax {
			f := float64(flopSoftmax + 1)
			if n.prof.xlaHeads {
				f++ // the scale
			}
			w = n.op("softmax", "softmax", f*float64(l.elems()), l.shape, nil, l, mask)
		} else {
			w = n.softmax("softmax", n.add("add_mask", l, mask))
		}
		w = n.dropout("weights_dropout", w, nil)
		c := bmm("context", w, vh, []int{b, cfg.heads, tq, dk}, tk)
		c = n.reshape("combine/transpose", "transpose", c, b, tq, cfg.heads, dk)
		if n.prof.views {
			ctx = n.view(c, b, tq, d)
		} else {
			ctx = n.reshape("combine/reshape", "reshape", c, b, tq, d)
		}
	} else {
		heads := make([]tensor, cfg.heads)
		for h := range heads {
			p := fmt.Sprintf("head_%d/", h)
			qh := n.scale(p+"q/scale", proj(p+"q", q, dk))
			kh := proj(p+"k", kv, dk)
			vh := proj(p+"v", kv, dk)
			l := bmm(p+"logits", qh, kh, []int{b, tq, tk}, dk)
			l = n.add(p+"add_mask", l, mask)
			w := n.dropout(p+"weights_dropout", n.softmax(p+"softmax", l), nil)
			heads[h] = bmm(p+"context", w, vh, []int{b, tq, dk}, tk)
		}
		ctx = n.concat("concat_heads", heads...)
	}
	return proj("output", ctx, d)
}

// ffn is the position-wise feed-forward network (Vaswani et al. 2017,
// Section 3.3): dense to ff units with act, dropout, dense back to D.
func (n *net) ffn(x tensor, ff int, act string) tensor {
	h := n.dropout("dropout_inner", n.dense("dense_1", x, ff, act), nil)
	return n.dense("dense_2", h, x.dim(), "")
}

// sublayer wraps f with the residual connection, dropout and layer norm:
// post-norm LN(x + Dropout(f(x))) (Vaswani 2017, BERT) or pre-norm
// x + Dropout(f(LN(x))) (GPT-2).
//
// When the framework fuses pointwise chains (XLA), dropout, the residual
// add and (post-norm) the layer norm are one op.
func (n *net) sublayer(x tensor, preNorm bool, f func(tensor) tensor) tensor {
	if n.prof.fuseResidualNorm {
		var y, z tensor
		e := float64(x.elems())
		ins := func(y tensor) []tensor {
			if n.train && n.prof.rngOutsideXLA {
				// the dropout's random numbers, drawn outside the
				// fused kernel (xlaDropout), read by it and by its
				// gradient
				return []tensor{x, y, n.randomFP32("dropout/random_uniform", y.shape)}
			}
			return []tensor{x, y}
		}
		if preNorm {
			y = f(n.layerNorm("layer_norm", x))
			z = n.op("dropout_residual", "add", 3*e, x.shape, nil, ins(y)...)
		} else {
			y = f(x)
			d := int64(x.dim())
			z = n.op("dropout_residual_layer_norm", "layernorm", 11*e, x.shape, []int64{d, d}, ins(y)...)
			n.momentsPasses(z)
		}
		if n.train && !n.prof.rngOutsideXLA { // the dropout mask
			op := &n.g.Ops[z.op]
			op.OutputBytes += x.elems()
			op.BytesAccessed += x.elems()
			z.view = x.bytes()
		}
		return z
	}
	if preNorm {
		y := n.dropout("dropout", f(n.layerNorm("layer_norm", x)), nil)
		return n.add("residual", x, y)
	}
	y := n.dropout("dropout", f(x), nil)
	return n.layerNorm("layer_norm", n.add("residual", x, y))
}
