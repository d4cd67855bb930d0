package zoo

import (
	"fmt"

	"placesim/workloads"
)

// The Transformer as NVIDIA's fairseq trains it: the PyTorch program of
// the Transformer rows of validation/ (NVIDIA/DeepLearningExamples at
// 729963dd, PyTorch/Translation/Transformer, pytorch-22.06-py3). Each
// difference from the paper's graph (buildTransformer's vaswani
// implementation) is cited below as file:line at that commit, paths under
// PyTorch/Translation/Transformer/. The scripts run (scripts/
// run_DGX1_FP32.sh, run_DGXA100_AMP.sh, run_training.sh) pass --arch
// transformer_wmt_en_de_big_t2t --share-all-embeddings --fuse-layer-norm
// --criterion label_smoothed_cross_entropy --label-smoothing 0.1
// --dropout 0.1 and, for mixed precision, --amp; not --fuse-dropout-add
// nor --fuse-relu-dropout, so dropout, the residual add and the ReLU are
// separate kernels (fairseq/models/transformer.py:378-399).

const (
	// implFairseq is NVIDIA's fairseq program; implVaswani the paper's
	// graph.
	implFairseq = "fairseq"
	implVaswani = "vaswani"
)

// transformerImpl reads impl= and norm=: the program's default is
// fairseq in the pytorch profile (the PyTorch reference program of the
// validation rows), vaswani in the others; norm's default is pre for
// fairseq (transformer_wmt_en_de_big_t2t sets encoder_ and
// decoder_normalize_before, fairseq/models/transformer.py:615-618), post
// for the paper.
func transformerImpl(p *Params) (impl, norm string, err error) {
	def := implVaswani
	if p.prof.fairseqTransformer {
		def = implFairseq
	}
	if impl, err = p.String("impl", def, implFairseq, implVaswani); err != nil {
		return "", "", err
	}
	defNorm := "post"
	if impl == implFairseq {
		defNorm = "pre"
	}
	norm, err = p.String("norm", defNorm, "pre", "post")
	return impl, norm, err
}

// fairseqDims are the model's sizes: seq the source's length, tgtSeq
// the target's.
type fairseqDims struct {
	layers, hid, heads, ff, seq, tgtSeq, vocab int
	preNorm                                    bool
}

// buildFairseqTransformer builds the Transformer as fairseq computes it.
// Layers as buildTransformer's, plus encoder/layer_norm and
// decoder/layer_norm with pre-norm.
//
// Under mixed precision (--amp: torch.cuda.amp.autocast,
// fairseq/ddp_trainer.py:197) the residual stream is FP32: the embedding
// is not autocast (its output is the FP32 table's), and residual + x of an
// FP32 residual and an FP16 sublayer output promotes to FP32
// (transformer.py:382). apex's FusedLayerNorm (--fuse-layer-norm) casts
// its input, weight and bias to the autocast type and normalises in FP16
// (apex/normalization/fused_layer_norm.py, fused_layer_norm_affine with
// _cast_if_autocast_enabled since NVIDIA/apex@365fdc18, 2021-10, before
// the pytorch-22.06 container): each layer norm is a cast of the FP32
// stream and an FP16 kernel, whose FP16 output the sublayers read without
// a cast of their own, and whose backward casts the gradient back to FP32.
func buildFairseqTransformer(p *Params, dm fairseqDims) (*net, error) {
	b, seq, tseq, hid := p.Batch, dm.seq, dm.tgtSeq, dm.hid
	n := newNet("transformer", p)
	n.in("input", "input")
	src := n.source("source_ids", "input", b, seq)
	tgt := n.source("target_ids", "input", b, tseq)
	labels := n.source("labels", "labels", b, tseq)
	causal := n.source("causal_bias", "constant", tseq, tseq)
	n.inLayer("embedding/table", "embedding", "variable")
	// --share-all-embeddings: one table for both embeddings and the
	// output projection (transformer.py:123-134, 281)
	table := n.variable("table", dm.vocab, hid)

	embed := func(side string, ids tensor) tensor {
		seq := ids.shape[1]
		n.inLayer(side+"/embedding", side+"/embedding", "embedding")
		// x = embed_scale * embed_tokens(tokens), FP32 (transformer.py:212)
		e := n.asF32(n.lookup("lookup", ids, table))
		e = n.asF32(n.scale("scale", e))
		// SinusoidalPositionalEmbedding.forward: the FP32 table's rows
		// for the positions, index_select into [B, T, D]
		// (modules/sinusoidal_positional_embedding.py:83); make_positions'
		// kernels over [B, T] are negligible and not modelled
		pos := n.asF32(n.op("positions", "gather", 0, []int{b, seq, hid}, nil,
			n.source("sinusoidal_table", "constant", seq+2, hid), ids))
		// x += positions (transformer.py:214), in place
		e = n.asF32(n.add("add_positions", e, pos))
		// F.dropout, then x.transpose(0, 1): a view without
		// --fuse-dropout-add (transformer.py:215-223)
		return n.dropoutKeep("dropout", e)
	}
	x := embed("encoder", src)
	for l := 0; l < dm.layers; l++ {
		pre := fmt.Sprintf("encoder/layer_%d", l)
		n.in(pre+"/self_attention", "attention")
		x = n.fairseqSublayer(x, dm.preNorm, func(h tensor) tensor { return n.fairseqAttention(h, h, dm.heads, nil) })
		n.in(pre+"/ffn", "ffn")
		x = n.fairseqSublayer(x, dm.preNorm, func(h tensor) tensor { return n.fairseqFFN(h, dm.ff) })
	}
	if dm.preNorm { // transformer.py:236-237
		n.in("encoder/layer_norm", "layernorm")
		x = n.fairseqNorm("layer_norm", x)
	}
	mem := x
	y := embed("decoder", tgt)
	for l := 0; l < dm.layers; l++ {
		pre := fmt.Sprintf("decoder/layer_%d", l)
		n.in(pre+"/self_attention", "attention")
		y = n.fairseqSublayer(y, dm.preNorm, func(h tensor) tensor { return n.fairseqAttention(h, h, dm.heads, &causal) })
		n.in(pre+"/encdec_attention", "attention")
		y = n.fairseqSublayer(y, dm.preNorm, func(h tensor) tensor { return n.fairseqAttention(h, mem, dm.heads, nil) })
		n.in(pre+"/ffn", "ffn")
		y = n.fairseqSublayer(y, dm.preNorm, func(h tensor) tensor { return n.fairseqFFN(h, dm.ff) })
	}
	if dm.preNorm { // transformer.py:326-327
		n.in("decoder/layer_norm", "layernorm")
		y = n.fairseqNorm("layer_norm", y)
	}
	n.in("decoder/softmax", "softmax")
	// x.transpose(0, 1) then F.linear(x, embed_out) (transformer.py:330-333):
	// autocast casts an FP32 input to FP16 (keeping its strides), and
	// at::matmul folds the [B, T, D] view into rows with a contiguous
	// copy, as the view is not contiguous
	yh := n.toHalf("input/cast", y)
	yh = n.op("input/contiguous", "transpose", 0, yh.shape, nil, yh)
	logits := n.tiedLogits("logits", yh, table)
	n.fairseqLoss("loss", logits, labels)
	n.afterTraining = append(n.afterTraining, func(g *workloads.Graph) error {
		return fairseqEmbeddingBackward(g, int64(dm.vocab)*int64(hid)*f32)
	})
	return n, nil
}

// fairseqSublayer is TransformerEncoderLayer/TransformerDecoderLayer's
// residual block without --fuse-dropout-add: pre-norm x + Dropout(f(LN(x)))
// or post-norm LN(x + Dropout(f(x))) (transformer.py:367-401, 441-500;
// MaybeLayerNorm, 513-525), the add promoting to FP32 under autocast.
func (n *net) fairseqSublayer(x tensor, preNorm bool, f func(tensor) tensor) tensor {
	if preNorm {
		y := n.dropout("dropout", f(n.fairseqNorm("layer_norm", x)), nil)
		return n.residualAdd("residual", x, y)
	}
	y := n.dropout("dropout", f(x), nil)
	return n.fairseqNorm("layer_norm", n.residualAdd("residual", x, y))
}

// fairseqNorm is apex's FusedLayerNorm: under autocast a cast of an FP32
// input to FP16 and the layer norm in FP16 (see buildFairseqTransformer);
// otherwise the layer norm.
func (n *net) fairseqNorm(name string, x tensor) tensor {
	if !n.prec.Mixed() {
		return n.layerNorm(name, x)
	}
	return n.asAct(n.layerNorm(name, n.toHalf(name+"/cast", x)))
}

// residualAdd is residual + x, whose output is FP32 when either input is
// (PyTorch's type promotion).
func (n *net) residualAdd(name string, x, y tensor) tensor {
	z := n.add(name, x, y)
	if x.esz == f32 || y.esz == f32 {
		z = n.asF32(z)
	}
	return z
}

// fairseqFFN is fc1, F.threshold (ReLU), F.dropout(relu_dropout = 0.1),
// fc2 (transformer.py:388-393; both Linear with a bias, 528-532), under
// autocast with an FP32 input cast to FP16.
func (n *net) fairseqFFN(x tensor, ff int) tensor {
	h := n.toHalf("input/cast", x)
	h = n.dropout("dropout_inner", n.dense("fc1", h, ff, "relu"), nil)
	return n.dense("fc2", h, x.dim(), "")
}

// fairseqAttention is fairseq's MultiheadAttention.forward in training
// (modules/multihead_attention.py:301-399), x [B, Tq, D] the query and mem
// [B, Tk, D] the keys and values (mem == x for self-attention):
//
//   - q, k, v are three GEMMs without bias (bias=False, :259), the
//     query's 1/√d_k folded into its GEMM's alpha (addmm(..., beta=0.0,
//     alpha=scale), :43-45 and :102-104): no separate scaling kernel;
//   - the inputs are cast to FP16 by custom_fwd(cast_inputs=torch.half)
//     (:39, :65, :98), a kernel where one is FP32 (post-norm's first
//     sublayer; the layer norms' outputs are FP16 already);
//   - the heads are views of the projections, read by strided batched
//     GEMMs (strided_bmm1/2, :365-369, :387), the context written into a
//     buffer already laid out [Tq, B·H, d] (:178-179), so transpose(0,
//     1).contiguous() (:389) copies nothing;
//   - masks: the decoder's self-attention adds the causal mask in place
//     (:373-376); key_padding_mask is None where the source has no
//     padding (transformer.py:226-230, 322), as in the zoo's fixed-length
//     batches (and in most of fairseq's: it orders the pairs by source
//     length last, data/language_pair_dataset.py:93-101, so a batch's
//     sources mostly share one length), so the encoder's and the
//     encoder-decoder attention mask nothing;
//   - F.softmax under autocast writes FP32 (:385), F.dropout keeps FP32
//     (:386), and strided_bmm2's custom_fwd casts the weights to FP16;
//   - out_proj is nn.Linear without bias (:283).
func (n *net) fairseqAttention(x, mem tensor, heads int, causal *tensor) tensor {
	b, tq, d := x.shape[0], x.shape[1], x.shape[2]
	tk := mem.shape[1]
	if d%heads != 0 {
		n.fail("attention: hidden size %d is not a multiple of %d heads", d, heads)
		return x
	}
	dk := d / heads
	xh := n.toHalf("input/cast", x)
	q := n.matmul("q/matmul", xh, d)
	mh := xh
	if mem.op != x.op {
		mh = n.toHalf("memory/cast", mem)
	}
	k := n.matmul("k/matmul", mh, d)
	v := n.matmul("v/matmul", mh, d)
	bmm := func(name string, x, y tensor, out []int, k int) tensor {
		o := tensor{shape: out}
		return n.op(name, "batch-matmul", 2*float64(o.elems())*float64(k), out, nil, x, y)
	}
	l := bmm("logits", n.view(q, b, heads, tq, dk), n.view(k, b, heads, tk, dk), []int{b, heads, tq, tk}, dk)
	if causal != nil {
		l = n.add("add_causal_mask", l, *causal)
	}
	w := n.softmax("softmax", l)
	w = n.dropoutKeep("weights_dropout", w)
	w = n.toHalf("weights/cast", w)
	c := bmm("context", w, n.view(v, b, heads, tk, dk), []int{b, heads, tq, dk}, tk)
	return n.matmul("output/matmul", n.view(c, b, tq, d), d)
}

// fairseqLoss is the loss as fairseq's trainer and criterion compute it:
// F.log_softmax(logits, dim=-1, dtype=torch.float32) (ddp_trainer.py:201),
// one kernel that reads the logits (FP16 under autocast) and writes FP32
// log-probabilities (ATen's log_softmax takes the half-to-float path: no
// separate cast), then LabelSmoothedCrossEntropyCriterion.forward
// (criterions.py:28-42): the NLL gathers the target's log-probability of
// each row (lprobs.gather), the smoothing term sums every row over the
// vocabulary (lprobs.sum(dim=-1): one more pass over the FP32 [rows, V]),
// both summed over the non-padding rows and combined as (1-ε)·nll +
// ε/V·smooth. The backward: gather's gradient is a dense zero-filled
// [rows, V] with the target's element set (one write), the sum's an
// expanded view (no kernel) that autograd adds into it (read it, write
// it; fairseqLossBackward sets that add to its two passes), and
// log_softmax's backward reads that gradient and the saved output and
// writes the logits' gradient.
func (n *net) fairseqLoss(name string, logits, labels tensor) {
	rows := logits.elems() / int64(logits.dim())
	lsm := n.op(name+"/log_softmax", "log-softmax", flopSoftmax*float64(logits.elems()), logits.shape, nil, logits)
	lsm = n.asF32(lsm)
	// the criterion's tensors are FP32, as lprobs is
	nll := n.asF32(n.op(name+"/nll_gather", "gather", 0, []int{int(rows), 1}, nil, lsm, labels))
	op := &n.g.Ops[nll.op]
	op.BytesAccessed = rows*f32 + labels.bytes() + op.OutputBytes // one element per row
	// the smoothing sum reads the whole of lprobs; its edge carries what
	// its gradient (an expanded [rows, 1]) holds
	sv := lsm
	sv.view = rows * f32
	smooth := n.asF32(n.op(name+"/smooth_sum", "sum", float64(lsm.elems()), []int{int(rows), 1}, nil, sv))
	op = &n.g.Ops[smooth.op]
	op.BytesAccessed = lsm.bytes() + op.OutputBytes
	nllSum := n.asF32(n.op(name+"/nll_total", "sum", float64(rows), []int{1}, nil, nll))
	smoothSum := n.asF32(n.op(name+"/smooth_total", "sum", float64(rows), []int{1}, nil, smooth))
	n.asF32(n.op(name+"/combine", "add", 3, []int{1}, nil, nllSum, smoothSum))
	lsmName := n.blocks[n.cur].name + "/" + name + "/log_softmax"
	n.afterTraining = append(n.afterTraining, func(g *workloads.Graph) error {
		return fairseqLossBackward(g, lsmName, rows*f32)
	})
}

// fairseqLossBackward sets the sum of the log-probabilities' two gradients
// (gather's dense one and the smoothing sum's expanded one, of expanded
// bytes) to what autograd runs: an in-place add of the expanded [rows, 1]
// into the dense [rows, V] (torch/csrc/autograd/input_buffer.cpp,
// accumulate: add_ into the buffer when it may be modified in place), two
// passes over the dense gradient, where DeriveTraining's add-n reads both
// as dense (three).
func fairseqLossBackward(g *workloads.Graph, lsm string, expanded int64) error {
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Name == lsm+"/grad_sum" {
			op.BytesAccessed = 2*op.OutputBytes + expanded
			return nil
		}
	}
	return fmt.Errorf("fairseq loss: no gradient sum %q in the training graph (a bug)", lsm+"/grad_sum")
}

// fairseqEmbeddingBackward charges each lookup of the shared table the
// dense gradient PyTorch's embedding backward makes: embedding_dense_backward
// on CUDA allocates a zero-filled [V, D] gradient and adds the looked-up
// rows' gradients into it (aten/src/ATen/native/cuda/Embedding.cu and
// EmbeddingBackwardKernel.cu: at::zeros({num_weights, ...})), a write of
// the whole table; autograd then sums the shared parameter's three
// gradients (the output projection's and the two lookups') by adding
// each later one into the first (input_buffer.cpp, accumulate: read both,
// write one). DeriveTraining charges a lookup's gradient only the rows
// it writes; tableBytes is the FP32 table. The four passes over the table
// are the same size whatever the batch, so they are the ops' FixedBytes:
// a data-parallel replica makes and sums whole tables on its share of
// the batch too.
func fairseqEmbeddingBackward(g *workloads.Graph, tableBytes int64) error {
	found := 0
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Role != workloads.Backward {
			continue
		}
		if op.Name == "encoder/embedding/lookup/grad" || op.Name == "decoder/embedding/lookup/grad" {
			op.BytesAccessed += tableBytes + 3*tableBytes
			op.FixedBytes += tableBytes + 3*tableBytes
			found++
		}
	}
	if found != 2 {
		return fmt.Errorf("fairseq embedding: %d lookup gradients in the training graph, want 2 (a bug)", found)
	}
	return nil
}

// asF32 makes t's op write FP32 elements (an op PyTorch runs in FP32
// under autocast that the net would otherwise give the activation type);
// a no-op where t is FP32 already.
func (n *net) asF32(t tensor) tensor {
	if t.esz == 0 || t.esz == f32 {
		t.esz = f32
		return t
	}
	d := t.elems() * (f32 - t.esz)
	op := &n.g.Ops[t.op]
	op.OutputBytes += d
	op.BytesAccessed += d
	t.esz = f32
	if t.view > 0 { // a dropout's output, read without its mask
		t.view = t.elems() * f32
	}
	return t
}

// asAct makes t's op write the activation type (an op the net would run
// in FP32 under autocast that the program runs in FP16).
func (n *net) asAct(t tensor) tensor {
	if t.esz != f32 || n.act == f32 {
		return t
	}
	d := t.elems() * (f32 - n.act)
	op := &n.g.Ops[t.op]
	op.OutputBytes -= d
	op.BytesAccessed -= d
	t.esz = n.act
	return t
}

// dropoutKeep is F.dropout, whose output keeps its input's type (FP32 in,
// FP32 out under autocast).
func (n *net) dropoutKeep(name string, x tensor) tensor {
	y := n.dropout(name, x, nil)
	if x.esz == f32 {
		y = n.asF32(y)
	}
	return y
}

// toHalf casts an FP32 tensor to the activation type under mixed
// precision (a kernel: read FP32, write FP16); otherwise x itself.
func (n *net) toHalf(name string, x tensor) tensor {
	if !n.prec.Mixed() || x.esz == n.act {
		return x
	}
	return n.op(name, "cast-fp16", 0, x.shape, nil, x)
}
