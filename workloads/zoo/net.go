package zoo

import (
	"fmt"
	"strings"

	"placesim/workloads"
)

// f32 is the size of an FP32 element, the default of a tensor whose
// element size is not set.
const f32 = 4

// tensor is an op's output as seen by its consumers: the producing op and
// the shape (batch dimension first). view, when > 0, is the bytes an edge
// carries instead of the whole tensor (a consumer that reads one slice).
// esz is the element size in bytes (0: f32).
type tensor struct {
	op    int
	shape []int
	view  int64
	esz   int64
}

// elems is the number of elements.
func (t tensor) elems() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= int64(d)
	}
	return n
}

// bytes is the size of the tensor in memory.
func (t tensor) bytes() int64 {
	if t.esz > 0 {
		return t.esz * t.elems()
	}
	return f32 * t.elems()
}

// edgeBytes is what an edge from the tensor's op carries.
func (t tensor) edgeBytes() int64 {
	if t.view > 0 {
		return t.view
	}
	return t.bytes()
}

// dim is the size of the last dimension (channels or features).
func (t tensor) dim() int { return t.shape[len(t.shape)-1] }

// sliceOf returns t read through a view of the given shape.
func (t tensor) sliceOf(shape ...int) tensor {
	v := tensor{op: t.op, shape: shape, esz: t.esz}
	v.view = v.bytes()
	return v
}

// block is a layer-granularity unit: a named group of ops.
type block struct {
	name, layer, typ string
}

// net builds a forward graph op by op (TensorFlow-like granularity) and
// records, per op, its block for layer granularity and its parameter
// tensors for the training derivation.
type net struct {
	g *workloads.Graph
	// train: the graph is a training step's forward pass (dropout, batch
	// statistics, moving-average updates, auxiliary heads).
	train bool
	// fusedBN makes batch norm one op instead of TensorFlow's unfused ops.
	fusedBN bool
	// prof is the framework profile (what runs fused).
	prof profile
	// prec is the precision; act and par the bytes of an activation and
	// of a parameter element.
	prec     workloads.Precision
	act, par int64

	cur     int32 // current block
	blocks  []block
	blockOf []int32
	// tensors: parameter tensor sizes (bytes) of ops with more than one
	tensors map[int][]int64
	// gradExtra: bytes that the gradient op of a forward op (by name)
	// reads beyond what the training derivation counts (momentsPasses;
	// added by addGradExtra, one of afterTraining)
	gradExtra map[string]int64
	// afterTraining are corrections of the training graph's backward ops
	// where the program's kernels differ from DeriveTraining's rules
	// (run at op granularity only: XLA's layer-norm gradients, fairseq's
	// loss and embedding).
	afterTraining []func(*workloads.Graph) error
	err           error
}

func newNet(name string, p *Params) *net {
	return &net{g: workloads.NewGraph(name, p.Batch), train: p.Training, cur: -1, tensors: map[int][]int64{},
		prof: p.prof, prec: p.Precision, act: p.Precision.ActivationBytes(), par: p.Precision.ParamBytes()}
}

// autocastFP32 are the op types that mixed precision runs in FP32 with an
// FP32 output (PyTorch, "Automatic Mixed Precision package - torch.amp",
// CUDA ops that autocast to float32: softmax, log_softmax, layer_norm,
// the losses).
var autocastFP32 = map[string]bool{"softmax": true, "layernorm": true, "sparse-softmax-xent": true, "softmax-xent": true,
	"log-softmax": true, "nll-loss": true, "cast-fp32": true}

// dtype is the arithmetic of an op of type typ under the net's precision:
// matrix products and convolutions in the compute type, the rest in the
// elementwise type.
func (n *net) dtype(typ string) workloads.DType {
	switch workloads.TypeKernelClass(typ) {
	case workloads.KernelGEMM, workloads.KernelConv:
		return n.prec.Compute()
	}
	return n.prec.Elementwise()
}

// in makes later ops part of the block name (also their Layer) of type typ.
func (n *net) in(name, typ string) { n.inLayer(name, name, typ) }

// inLayer makes later ops part of block name with the given Layer (an
// unrolled recurrent layer has one block per time step, one Layer).
func (n *net) inLayer(name, layer, typ string) {
	n.blocks = append(n.blocks, block{name: name, layer: layer, typ: typ})
	n.cur = int32(len(n.blocks) - 1)
}

// fail records the first error; later ops are still added so the code that
// builds a model needs no error checks of its own.
func (n *net) fail(format string, args ...any) {
	if n.err == nil {
		n.err = fmt.Errorf(format, args...)
	}
}

// op adds an op of the current block. flops are its FLOPs (1 MAC = 2
// FLOPs); out its output shape; params the element counts of its own
// parameter tensors. BytesAccessed is the inputs, parameters and output
// (reads + writes); of it, the parameters and any whole variable read
// (not a view of one: a lookup's rows shrink with the batch) are
// FixedBytes, the same at any batch.
func (n *net) op(name, typ string, flops float64, out []int, params []int64, ins ...tensor) tensor {
	b := &n.blocks[n.cur]
	name = strings.TrimPrefix(name, "/") // helpers called with an empty prefix
	res := tensor{shape: out, esz: n.act}
	if n.prec.Mixed() && autocastFP32[typ] {
		res.esz = f32
	}
	var pb, acc, whole int64
	for _, p := range params {
		pb += n.par * p
	}
	for _, x := range ins {
		acc += x.edgeBytes()
		if x.view == 0 && n.g.Ops[x.op].Type == "variable" {
			whole += x.edgeBytes()
		}
	}
	for _, d := range out {
		if d <= 0 {
			n.fail("%s/%s: output shape %v has a non-positive dimension (an input too small for the model)", b.name, name, out)
			break
		}
	}
	// appended directly: the graph's adjacency is built once, when it is
	// first traversed
	id := len(n.g.Ops)
	n.g.Ops = append(n.g.Ops, workloads.Op{ID: id, Name: b.name + "/" + name, Type: typ, Layer: b.layer, FLOPs: flops,
		BytesAccessed: acc + pb + res.bytes(), FixedBytes: pb + whole, OutputBytes: res.bytes(), ParamBytes: pb, Precision: n.dtype(typ)})
	n.blockOf = append(n.blockOf, n.cur)
	if len(params) > 1 {
		ts := make([]int64, len(params))
		for i, p := range params {
			ts[i] = n.par * p
		}
		n.tensors[id] = ts
	}
	for _, x := range ins {
		n.g.Edges = append(n.g.Edges, workloads.Edge{From: x.op, To: id, Bytes: x.edgeBytes()})
	}
	res.op = id
	return res
}

// source adds an op without inputs (data, labels, constants, random numbers).
func (n *net) source(name, typ string, shape ...int) tensor {
	return n.op(name, typ, 0, shape, nil)
}

// variable adds a parameter tensor read by several ops (shared weights):
// its output is the parameters themselves, so it allocates nothing.
func (n *net) variable(name string, shape ...int) tensor {
	t := tensor{shape: shape}
	v := n.op(name, "variable", 0, shape, []int64{t.elems()})
	n.g.Ops[v.op].OutputBytes = 0
	n.g.Ops[v.op].BytesAccessed, n.g.Ops[v.op].FixedBytes = 0, 0
	return v
}

// elementwise adds an op of flopsPerElem FLOPs per output element whose
// output has the shape of the first input.
func (n *net) elementwise(name, typ string, flopsPerElem float64, ins ...tensor) tensor {
	big := ins[0]
	for _, x := range ins[1:] {
		if x.elems() > big.elems() {
			big = x
		}
	}
	return n.op(name, typ, flopsPerElem*float64(big.elems()), big.shape, nil, ins...)
}

// FLOPs per element of elementwise functions (see doc.go).
const (
	flopArith          = 1 // add, sub, mul, div, relu, max
	flopTranscendental = 4 // exp, tanh, sigmoid, rsqrt, sqrt, cos, sin
	flopSoftmax        = 5 // max, subtract, exp, sum, divide
)

func (n *net) relu(name string, x tensor) tensor { return n.elementwise(name, "relu", flopArith, x) }
func (n *net) tanh(name string, x tensor) tensor {
	return n.elementwise(name, "tanh", flopTranscendental, x)
}
func (n *net) sigmoid(name string, x tensor) tensor {
	return n.elementwise(name, "sigmoid", flopTranscendental, x)
}
func (n *net) add(name string, a, b tensor) tensor {
	return n.elementwise(name, "add", flopArith, a, b)
}
func (n *net) mul(name string, a, b tensor) tensor {
	return n.elementwise(name, "mul", flopArith, a, b)
}

// scale multiplies by a constant (no parameter, one input).
func (n *net) scale(name string, x tensor) tensor { return n.elementwise(name, "mul", flopArith, x) }

// reshape is a TensorFlow Reshape/Transpose: no arithmetic, one copy of the
// data (a conservative model of views).
func (n *net) reshape(name, typ string, x tensor, shape ...int) tensor {
	if (tensor{shape: shape}).elems() != x.elems() {
		n.fail("%s: cannot reshape %v to %v", name, x.shape, shape)
	}
	return n.op(name, typ, 0, shape, nil, x)
}

// concat joins tensors along the last dimension.
func (n *net) concat(name string, xs ...tensor) tensor {
	out := append([]int(nil), xs[0].shape...)
	c := 0
	for _, x := range xs {
		if len(x.shape) != len(out) {
			n.fail("%s: concat of ranks %d and %d", name, len(out), len(x.shape))
			return xs[0]
		}
		c += x.dim()
	}
	out[len(out)-1] = c
	return n.op(name, "concat", 0, out, nil, xs...)
}

// split cuts x into k equal parts along the last dimension; the parts are
// views of the split op's output.
func (n *net) split(name string, x tensor, k int) []tensor {
	s := n.op(name, "split", 0, x.shape, nil, x)
	part := append([]int(nil), x.shape...)
	part[len(part)-1] /= k
	parts := make([]tensor, k)
	for i := range parts {
		parts[i] = s.sliceOf(part...)
	}
	return parts
}

// matmul multiplies x [..., K] by an owned weight [K, N] (no bias).
func (n *net) matmul(name string, x tensor, units int) tensor {
	rows := x.elems() / int64(x.dim())
	out := append(append([]int(nil), x.shape[:len(x.shape)-1]...), units)
	return n.op(name, "matmul", 2*float64(rows)*float64(x.dim())*float64(units), out,
		[]int64{int64(x.dim()) * int64(units)}, x)
}

// matmulShared multiplies x [..., K] by a shared weight w [K, N].
func (n *net) matmulShared(name string, x, w tensor) tensor {
	k, units := w.shape[0], w.shape[1]
	if x.dim() != k {
		n.fail("%s: matmul of %v by %v", name, x.shape, w.shape)
	}
	rows := x.elems() / int64(k)
	out := append(append([]int(nil), x.shape[:len(x.shape)-1]...), units)
	return n.op(name, "matmul", 2*float64(rows)*float64(k)*float64(units), out, nil, x, w)
}

// biasAdd adds an owned bias over the last dimension.
func (n *net) biasAdd(name string, x tensor) tensor {
	return n.op(name, "bias-add", float64(x.elems()), x.shape, []int64{int64(x.dim())}, x)
}

// dense is matmul + bias-add, with an optional activation ("" = none).
func (n *net) dense(name string, x tensor, units int, act string) tensor {
	y := n.linear(name, x, units)
	switch act {
	case "relu":
		y = n.relu(name+"/relu", y)
	case "tanh":
		y = n.tanh(name+"/tanh", y)
	case "gelu":
		y = n.elementwise(name+"/gelu", "gelu", 8, y)
	case "":
	default:
		n.fail("%s: unknown activation %q", name, act)
	}
	return y
}

// linear is matmul + bias: two ops (BiasAdd), or one when the framework
// adds the bias in the GEMM (addmm, a cuBLASLt epilogue).
func (n *net) linear(name string, x tensor, units int) tensor {
	if !n.prof.biasInGEMM {
		return n.biasAdd(name+"/bias", n.matmul(name+"/matmul", x, units))
	}
	rows := x.elems() / int64(x.dim())
	out := append(append([]int(nil), x.shape[:len(x.shape)-1]...), units)
	y := n.op(name+"/matmul", "matmul", 2*float64(rows)*float64(x.dim())*float64(units)+float64(rows)*float64(units), out,
		[]int64{int64(x.dim()) * int64(units), int64(units)}, x)
	n.g.Ops[y.op].BytesAccessed += y.bytes() // the bias broadcast read back (beta = 1)
	return y
}

// view is a reshape that moves no data (a strided view): no op.
func (n *net) view(x tensor, shape ...int) tensor {
	if (tensor{shape: shape}).elems() != x.elems() {
		n.fail("view of %v as %v", x.shape, shape)
	}
	return tensor{op: x.op, shape: shape, view: x.view, esz: x.esz}
}

// dropout is tf.nn.dropout of TensorFlow 1.x, in training only:
// random_uniform, add keep_prob, floor (the mask), div by keep_prob, mul by
// the mask. noise is the mask's shape (nil: x's shape; NASNet's drop path
// draws one number per sample).
func (n *net) dropout(name string, x tensor, noise []int) tensor {
	if !n.train {
		return x
	}
	if noise == nil {
		noise = x.shape
	}
	if n.prof.rngOutsideXLA {
		return n.xlaDropout(name, x, noise)
	}
	if n.prof.fusedDropout {
		// one kernel: the output and a 1-byte mask (PyTorch's
		// native_dropout); consumers read the output
		mask := (tensor{shape: noise}).elems()
		y := n.op(name, "dropout", 2*float64(x.elems()), x.shape, nil, x)
		op := &n.g.Ops[y.op]
		op.OutputBytes += mask
		op.BytesAccessed += mask
		y.view = x.bytes()
		return y
	}
	r := n.source(name+"/random_uniform", "random-uniform", noise...)
	k := n.elementwise(name+"/add", "add", flopArith, r)
	mask := n.elementwise(name+"/floor", "floor", flopArith, k)
	d := n.elementwise(name+"/div", "div", flopArith, x)
	return n.op(name+"/mul", "mul", float64(x.elems()), x.shape, nil, d, mask)
}

// xlaDropout is tf.nn.dropout under XLA auto-clustering: x * (1/keep) *
// cast(random_uniform(noise) >= rate) (TensorFlow 1.15 and 2.x
// nn_ops.dropout_v2, random_uniform of x's dtype as built: FP32, which
// TF-AMP leaves alone, RandomUniform being in none of the lists of
// grappler/optimizers/auto_mixed_precision_lists.h). The random numbers
// are drawn outside the XLA clusters: auto-clustering refuses stateful
// random ops (tensorflow/compiler/jit/compilability_check_util.h,
// OperationFilter.allow_stateful_rng_ops: "XLA's RNG does not have the
// same seeding behavior as TensorFlow's RNG ... So we avoid
// auto-clustering stateful RNG ops"; the GPU device's registration in
// tf2xla/xla_op_registry.cc keeps DeviceRegistration's default
// cluster_stateful_rng_ops = false). So TensorFlow's RandomUniform
// kernel writes noise's elements as FP32 to memory, the fused kernel
// that applies the mask reads them, and the gradient, x's gradient times
// the same mask, reads them again (the mask's compare and cast are
// fused into each reader, not kept as a 1-byte mask).
func (n *net) xlaDropout(name string, x tensor, noise []int) tensor {
	r := n.randomFP32(name+"/random_uniform", noise)
	return n.op(name, "mul", 2*float64(x.elems()), x.shape, nil, x, r)
}

// randomFP32 is a RandomUniform op writing shape's elements as FP32
// whatever the precision (xlaDropout).
func (n *net) randomFP32(name string, shape []int) tensor {
	r := n.source(name, "random-uniform", shape...)
	r.esz = f32
	op := &n.g.Ops[r.op]
	op.OutputBytes, op.BytesAccessed = r.bytes(), r.bytes()
	return r
}

// softmax over the last dimension.
func (n *net) softmax(name string, x tensor) tensor {
	return n.elementwise(name, "softmax", flopSoftmax, x)
}

// xent is the sparse softmax cross-entropy of logits [..., classes]
// against labels: one loss per row. Like TensorFlow's kernel it also
// outputs the gradient w.r.t. the logits (kept for the backward pass), so
// in a training step its output holds the logits' size besides the losses.
func (n *net) xent(name string, logits, labels tensor) tensor {
	if n.prof.torchLoss {
		return n.torchXent(name, logits, labels)
	}
	rows := logits.elems() / int64(logits.dim())
	x := n.op(name, "sparse-softmax-xent", flopSoftmax*float64(logits.elems()), []int{int(rows)}, nil, logits, labels)
	if n.train {
		op := &n.g.Ops[x.op]
		op.OutputBytes += logits.bytes()
		op.BytesAccessed += logits.bytes()
	}
	x.view = n.act * rows
	return x
}

// torchXent is the cross-entropy as PyTorch runs it
// (torch.nn.functional.cross_entropy): log_softmax, then nll_loss, two
// kernels (aten/src/ATen/native/cuda/SoftMax.cu and Loss.cu). Unlike
// TensorFlow's fused kernel, the forward writes the log-probabilities
// (saved for the backward), and the backward is two passes over the
// logits' size: nll_loss_backward writes a dense gradient (zero-filled, the
// label's element of each row set), log_softmax_backward reads it with the
// saved log-probabilities and writes the logits' gradient. Under autocast
// log_softmax and nll_loss run in FP32 (torch.amp's float32 op list): the
// FP16 logits are first cast to FP32 (a kernel; its backward casts the
// gradient back).
func (n *net) torchXent(name string, logits, labels tensor) tensor {
	x := logits
	if n.prec.Mixed() {
		x = n.op(name+"/cast", "cast-fp32", 0, logits.shape, nil, logits)
	}
	lsm := n.op(name+"/log_softmax", "log-softmax", flopSoftmax*float64(logits.elems()), logits.shape, nil, x)
	rows := logits.elems() / int64(logits.dim())
	nll := n.op(name+"/nll_loss", "nll-loss", float64(rows), []int{int(rows)}, nil, lsm, labels)
	// nll_loss reads one log-probability per row (and the labels), not
	// the whole input
	op := &n.g.Ops[nll.op]
	op.BytesAccessed = rows*lsm.esz + labels.bytes() + op.OutputBytes
	return nll
}

// xentLoss is xent followed by the mean over rows: the loss.
func (n *net) xentLoss(name string, logits, labels tensor) tensor {
	x := n.xent(name+"/xent", logits, labels)
	return n.op(name+"/mean", "mean", float64(x.elems()), []int{1}, nil, x)
}

// sumLosses adds per-step losses (add-n) and takes the mean: the loss.
func (n *net) sumLosses(losses []tensor) tensor {
	s := n.op("add_n", "add-n", float64(len(losses)-1)*float64(losses[0].elems()), losses[0].shape, nil, losses...)
	return n.op("mean", "mean", float64(s.elems()), []int{1}, nil, s)
}

// layerNorm is the layer normalisation of TensorFlow 1.x Transformer code
// (tensor2tensor / official transformer), over the last dimension:
// mean, x-mean, square, mean (variance), +eps, rsqrt, mul, *scale, +bias.
//
// With a fused layer norm (apex FusedLayerNorm, PyTorch's native kernel)
// it is one op "layernorm" with a scale and a bias.
func (n *net) layerNorm(name string, x tensor) tensor {
	if n.prof.fusedLN {
		d := int64(x.dim())
		y := n.op(name, "layernorm", 8*float64(x.elems()), x.shape, []int64{d, d}, x)
		n.momentsPasses(y)
		return y
	}
	rows := x.elems() / int64(x.dim())
	stat := append(append([]int(nil), x.shape[:len(x.shape)-1]...), 1)
	mean := n.op(name+"/mean", "mean", float64(x.elems()), stat, nil, x)
	c := n.op(name+"/sub", "sub", float64(x.elems()), x.shape, nil, x, mean)
	sq := n.elementwise(name+"/square", "square", flopArith, c)
	v := n.op(name+"/variance", "mean", float64(x.elems()), stat, nil, sq)
	ve := n.op(name+"/add", "add", float64(rows), stat, nil, v)
	inv := n.op(name+"/rsqrt", "rsqrt", flopTranscendental*float64(rows), stat, nil, ve)
	norm := n.op(name+"/mul", "mul", float64(x.elems()), x.shape, nil, c, inv)
	s := n.op(name+"/mul_scale", "mul", float64(x.elems()), x.shape, []int64{int64(x.dim())}, norm)
	return n.op(name+"/add_bias", "add", float64(x.elems()), x.shape, []int64{int64(x.dim())}, s)
}

// momentsPasses charges layer norm op ln (an op of the normalisation
// class, whose kernels are costed as two passes over their bytes: the
// statistics, then the normalisation; devices normPasses) as TensorFlow
// runs it under XLA auto-clustering: three kernels, each reading the
// layer norm's input (or recomputing it from its fused producers: the
// residual add, the dropout and its random numbers). BERT's layer norm in
// TensorFlow is tf.nn.moments then tf.nn.batch_normalization: NVIDIA's
// TensorFlow 1 BERT (modeling.py layer_norm: tf.contrib.layers.layer_norm
// for FP32 inputs, which TF-AMP's graph rewrite leaves them) and the
// TensorFlow 2 BERT (official/nlp/modeling/layers/transformer.py:
// tf.keras.layers.LayerNormalization with epsilon=1e-12, below the
// 1.001e-5 that its fused_batch_norm path needs, so Keras takes the
// moments path). moments is two dependent row reductions (the mean, then
// the mean of squared_difference(x, stop_gradient(mean))) and the
// normalisation needs both, and XLA's GPU fusion of that time ends a
// fusion at its reduce (reduction epilogue fusion came in 2023,
// openxla/xla#4528): so the mean's kernel, the variance's and the
// normalisation's read the input once each, three reads where a fused
// layer norm kernel makes two. The gradient likewise: the column
// reductions of gamma's and beta's gradients, the row reductions of the
// input gradient's two means, then its elementwise kernel, each reading
// the output gradient and the input. Under the normalisation class's two
// passes, one more read of the input forward and of the input and output
// gradient backward is the difference: ln's bytes grow by its inputs', and
// its gradient's (addGradExtra, after the training derivation) by
// its inputs' and its output's.
func (n *net) momentsPasses(ln tensor) {
	if !n.prof.momentsLN {
		return
	}
	op := &n.g.Ops[ln.op]
	in := op.BytesAccessed - op.OutputBytes - op.ParamBytes
	op.BytesAccessed += in
	if n.train {
		if n.gradExtra == nil {
			n.gradExtra = map[string]int64{}
			n.afterTraining = append(n.afterTraining, n.addGradExtra)
		}
		n.gradExtra[op.Name] = in + op.OutputBytes
	}
}

// addGradExtra adds to each gradient op what it reads beyond the
// training derivation's count (gradExtra, by its forward op's name).
func (n *net) addGradExtra(g *workloads.Graph) error {
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role != workloads.Backward {
			continue
		}
		if fwd, ok := strings.CutSuffix(op.Name, "/grad"); ok {
			op.BytesAccessed += n.gradExtra[fwd]
		}
	}
	return nil
}

// embedding looks up rows of an owned table [vocab, dim] for ids.
func (n *net) embedding(name string, ids tensor, vocab, dim int) tensor {
	out := append(append([]int(nil), ids.shape...), dim)
	return n.op(name, "embedding", 0, out, []int64{int64(vocab) * int64(dim)}, ids)
}

// lookup reads rows of a shared table (a variable [vocab, dim]) for ids.
func (n *net) lookup(name string, ids, table tensor) tensor {
	out := append(append([]int(nil), ids.shape...), table.shape[1])
	// the rows read travel, not the whole table
	return n.op(name, "embedding", 0, out, nil, ids, table.sliceOf(out...))
}
