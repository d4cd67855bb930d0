package zoo

import (
	"fmt"
	"strings"
)

// attentionParam reads the attention granularity: one op chain per head
// (the paper's formulation, the tf1-graph default) or batched heads (the
// default of the other framework profiles).
func attentionParam(p *Params) (bool, error) {
	def := "heads"
	if p.prof.batchedHeads {
		def = "fused"
	}
	a, err := p.String("attention", def, "heads", "fused")
	return a == "fused", err
}

// buildTransformer is the Transformer (Vaswani et al. 2017, "Attention Is
// All You Need", Section 3 and Figure 1): token embeddings shared by
// encoder, decoder and the pre-softmax projection (Section 3.4), scaled by
// √d_model, plus sinusoidal positional encodings (constants) and dropout;
// layers encoder layers of self-attention and a position-wise FFN, layers
// decoder layers of masked self-attention, encoder-decoder attention and an
// FFN, each sublayer as LayerNorm(x + Dropout(Sublayer(x))); softmax
// cross-entropy over the vocabulary. The Celeritas configuration is
// layers=12, heads=16, hidden=2048. Layers: encoder/embedding,
// encoder/layer_<i>/self_attention, encoder/layer_<i>/ffn,
// decoder/layer_<i>/{self_attention,encdec_attention,ffn}, decoder/softmax.
//
// impl=fairseq (the default of the pytorch profile) builds instead the
// program the PyTorch rows of validation/ ran, NVIDIA's fairseq
// (buildFairseqTransformer); impl=vaswani builds the paper's graph in any
// profile. norm=pre|post puts the layer norms before each sublayer (with a
// final norm after each stack, tensor2tensor's order) or after it (the
// paper's); the default is post, pre for impl=fairseq (the DLE scripts'
// --arch transformer_wmt_en_de_big_t2t).
func buildTransformer(p *Params) (*net, error) {
	if lengths, ok := p.lookup("lengths"); ok {
		// fairseq's token batches of a distribution of lengths are
		// several graphs (TokenMixOf)
		p.lookup("max-tokens")
		p.lookup("ratio")
		return nil, fmt.Errorf("lengths=%s: %w: placesim validate and stats take the expectation over fairseq's batches (zoo.TokenMixOf); one length is seq= with batch=", lengths, ErrLengthMix)
	}
	for _, k := range []string{"max-tokens", "ratio"} {
		if _, ok := p.lookup(k); ok {
			return nil, fmt.Errorf("parameter %s= needs lengths= (valid: lengths=%s)", k, strings.Join(PairLengths(), "|"))
		}
	}
	layers, err := p.Int("layers", 6, 1, 256)
	if err != nil {
		return nil, err
	}
	hid, err := p.Int("hidden", 512, 8, 65536)
	if err != nil {
		return nil, err
	}
	heads, err := p.Int("heads", 8, 1, 1024)
	if err != nil {
		return nil, err
	}
	if hid%heads != 0 {
		return nil, fmt.Errorf("parameter hidden=%d is not a multiple of heads=%d", hid, heads)
	}
	ff, err := p.Int("ff", 4*hid, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	seq, err := p.Int("seq", 128, 1, 65536)
	if err != nil {
		return nil, err
	}
	vocab, err := p.Int("vocab", 32000, 2, 1<<20)
	if err != nil {
		return nil, err
	}
	impl, norm, err := transformerImpl(p)
	if err != nil {
		return nil, err
	}
	// tgt-seq= is the target's length when it differs from the source's
	// (seq=): fairseq's batches of sentence pairs (TokenMixOf) run the
	// encoder at the source's length and the decoder at the target's
	tgtSeq, err := p.Int("tgt-seq", seq, 1, 65536)
	if err != nil {
		return nil, err
	}
	if tgtSeq != seq && impl != implFairseq {
		return nil, fmt.Errorf("parameter tgt-seq=%d differs from seq=%d: only impl=fairseq runs the two stacks at their own lengths", tgtSeq, seq)
	}
	if impl == implFairseq {
		a, err := p.String("attention", "fused", "heads", "fused")
		if err != nil {
			return nil, err
		}
		if a != "fused" {
			return nil, fmt.Errorf("parameter attention=%q with impl=fairseq (valid: fused: fairseq runs the heads as batched GEMMs; attention=heads needs impl=vaswani)", a)
		}
		return buildFairseqTransformer(p, fairseqDims{layers: layers, hid: hid, heads: heads, ff: ff, seq: seq, tgtSeq: tgtSeq, vocab: vocab, preNorm: norm == "pre"})
	}
	fused, err := attentionParam(p)
	if err != nil {
		return nil, err
	}
	cfg := attnConfig{heads: heads, fused: fused}
	preNorm := norm == "pre"
	b := p.Batch
	n := newNet("transformer", p)
	n.in("input", "input")
	src := n.source("source_ids", "input", b, seq)
	tgt := n.source("target_ids", "input", b, seq)
	labels := n.source("labels", "labels", b, seq)
	pad := n.source("padding_bias", "constant", b, 1, seq)
	causal := n.source("causal_bias", "constant", seq, seq)
	n.inLayer("embedding/table", "embedding", "variable")
	table := n.variable("table", vocab, hid)

	embed := func(side string, ids tensor) tensor {
		n.inLayer(side+"/embedding", side+"/embedding", "embedding")
		e := n.scale("scale", n.lookup("lookup", ids, table))
		e = n.add("add_positional_encoding", e, n.source("positional_encoding", "constant", seq, hid))
		return n.dropout("dropout", e, nil)
	}
	x := embed("encoder", src)
	for l := 0; l < layers; l++ {
		pre := fmt.Sprintf("encoder/layer_%d", l)
		n.in(pre+"/self_attention", "attention")
		x = n.sublayer(x, preNorm, func(h tensor) tensor { return n.attention(h, h, pad, cfg) })
		n.in(pre+"/ffn", "ffn")
		x = n.sublayer(x, preNorm, func(h tensor) tensor { return n.ffn(h, ff, "relu") })
	}
	if preNorm {
		n.in("encoder/layer_norm", "layernorm")
		x = n.layerNorm("layer_norm", x)
	}
	mem := x
	y := embed("decoder", tgt)
	for l := 0; l < layers; l++ {
		pre := fmt.Sprintf("decoder/layer_%d", l)
		n.in(pre+"/self_attention", "attention")
		y = n.sublayer(y, preNorm, func(h tensor) tensor { return n.attention(h, h, causal, cfg) })
		n.in(pre+"/encdec_attention", "attention")
		y = n.sublayer(y, preNorm, func(h tensor) tensor { return n.attention(h, mem, pad, cfg) })
		n.in(pre+"/ffn", "ffn")
		y = n.sublayer(y, preNorm, func(h tensor) tensor { return n.ffn(h, ff, "relu") })
	}
	if preNorm {
		n.in("decoder/layer_norm", "layernorm")
		y = n.layerNorm("layer_norm", y)
	}
	// Audit (issue 29): the projection to the vocabulary and the loss run
	// at every target position, as the reference trainers compute them:
	// fairseq's decoder (DeepLearningExamples
	// PyTorch/Translation/Transformer/fairseq/models/transformer.py,
	// TransformerDecoder.forward) projects every position, padding
	// included, and the trainer's log_softmax covers the whole [tokens, V]
	// (ddp_trainer.py, _forward); the criterion masks padding only in the
	// sum (criterions.py). tensor2tensor likewise.
	n.in("decoder/softmax", "softmax")
	logits := n.tiedLogits("logits", y, table)
	n.xentLoss("loss", logits, labels)
	return n, nil
}

// tiedLogits multiplies x [..., D] by the transpose of an embedding table
// [V, D] shared with the input embedding: [..., V].
func (n *net) tiedLogits(name string, x, table tensor) tensor {
	v, d := table.shape[0], table.shape[1]
	if x.dim() != d {
		n.fail("%s: %v times the transpose of %v", name, x.shape, table.shape)
	}
	out := append(append([]int(nil), x.shape[:len(x.shape)-1]...), v)
	rows := x.elems() / int64(d)
	return n.op(name, "matmul", 2*float64(rows)*float64(d)*float64(v), out, nil, x, table)
}

// posTable is a learned position embedding table [ctx, D] of which the
// first seq rows are used (BERT, GPT-2): a slice with parameters.
func (n *net) posTable(name string, ctx, seq, d int) tensor {
	return n.op(name, "slice", 0, []int{seq, d}, []int64{int64(ctx) * int64(d)})
}
