package zoo

import "fmt"

// buildBERT is BERT pre-training (Devlin et al. 2019, "BERT: Pre-training
// of Deep Bidirectional Transformers for Language Understanding", Section
// 3 and Appendix A): word, segment and learned position embeddings summed,
// layer norm and dropout; Transformer encoder layers (post-norm, GELU
// FFN of 4·hidden); the pooler (tanh dense on the first token) with the
// next-sentence classifier; the masked-LM head (dense + GELU + layer norm
// on the 20 masked positions per sequence, then the word embeddings
// transposed and a bias). size=base is L=12, H=768, A=12 (110 M
// parameters); size=large L=24, H=1024, A=16 (340 M); layers= sets L
// (BERT-3/6/12/24). Layers: embedding, encoder/layer_<i>/self_attention,
// encoder/layer_<i>/ffn, pooler, nsp, mlm/transform, mlm/softmax.
func buildBERT(p *Params) (*net, error) {
	size, err := p.String("size", "base", "base", "large")
	if err != nil {
		return nil, err
	}
	defL, hid, heads := 12, 768, 12
	if size == "large" {
		defL, hid, heads = 24, 1024, 16
	}
	layers, err := p.Int("layers", defL, 1, 256)
	if err != nil {
		return nil, err
	}
	seq, err := p.Int("seq", 128, 1, 512)
	if err != nil {
		return nil, err
	}
	fused, err := attentionParam(p)
	if err != nil {
		return nil, err
	}
	const vocab, maxPos, predictions = 30522, 512, 20
	cfg := attnConfig{heads: heads, bias: true, fused: fused}
	b := p.Batch
	n := newNet("bert", p)
	n.in("input", "input")
	ids := n.source("input_ids", "input", b, seq)
	segs := n.source("segment_ids", "input", b, seq)
	mask := n.source("attention_bias", "constant", b, 1, seq)
	positions := n.source("masked_positions", "input", b*predictions)
	mlmLabels := n.source("masked_labels", "labels", b*predictions)
	nspLabels := n.source("next_sentence_labels", "labels", b)
	n.inLayer("embedding/word_table", "embedding", "variable")
	table := n.variable("word_embeddings", vocab, hid)

	n.in("embedding", "embedding")
	e := n.lookup("word_lookup", ids, table)
	e = n.add("add_segment", e, n.embedding("segment_lookup", segs, 2, hid))
	e = n.add("add_position", e, n.posTable("position_embeddings", maxPos, seq, hid))
	x := n.dropout("dropout", n.layerNorm("layer_norm", e), nil)
	ff := 4 * hid
	for l := 0; l < layers; l++ {
		pre := fmt.Sprintf("encoder/layer_%d", l)
		n.in(pre+"/self_attention", "attention")
		x = n.sublayer(x, false, func(h tensor) tensor { return n.attention(h, h, mask, cfg) })
		n.in(pre+"/ffn", "ffn")
		x = n.sublayer(x, false, func(h tensor) tensor { return n.ffn(h, ff, "gelu") })
	}

	n.in("pooler", "dense")
	first := n.op("first_token", "slice", 0, []int{b, hid}, nil, x.sliceOf(b, hid))
	pooled := n.dense("dense", first, hid, "tanh")
	n.in("nsp", "dense")
	nsp := n.xentLoss("loss", n.dense("dense", pooled, 2, ""), nspLabels)

	n.in("mlm/transform", "dense")
	g := n.op("gather", "gather", 0, []int{b * predictions, hid}, nil, x, positions)
	t := n.layerNorm("layer_norm", n.dense("dense", g, hid, "gelu"))
	n.in("mlm/softmax", "softmax")
	logits := n.biasAdd("bias", n.tiedLogits("logits", t, table))
	mlm := n.xentLoss("loss", logits, mlmLabels)
	n.in("loss", "loss")
	n.add("total", mlm, nsp)
	return n, nil
}
