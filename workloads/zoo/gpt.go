package zoo

import "fmt"

// buildGPT is a GPT-2 decoder (Radford et al. 2019, "Language Models are
// Unsupervised Multitask Learners", Section 2.3 and Table 2): token
// embeddings (tied with the output projection) plus learned positions,
// dropout; pre-norm Transformer blocks x + Dropout(Attention(LN(x))) with
// a causal mask and x + Dropout(MLP(LN(x))) with a GELU MLP of 4·hidden; a
// final layer norm; softmax cross-entropy of the next token. Sizes: small
// (12 layers, 768, 12 heads), medium (24, 1024, 16), large (36, 1280, 20),
// xl (48, 1600, 25: 1.56 B parameters); layers=, hidden=, heads= override.
// Layers: embedding, layer_<i>/self_attention, layer_<i>/ffn, final_norm,
// softmax.
func buildGPT(p *Params) (*net, error) {
	size, err := p.String("size", "small", "small", "medium", "large", "xl")
	if err != nil {
		return nil, err
	}
	def := map[string][3]int{"small": {12, 768, 12}, "medium": {24, 1024, 16}, "large": {36, 1280, 20}, "xl": {48, 1600, 25}}[size]
	layers, err := p.Int("layers", def[0], 1, 1024)
	if err != nil {
		return nil, err
	}
	hid, err := p.Int("hidden", def[1], 8, 65536)
	if err != nil {
		return nil, err
	}
	heads, err := p.Int("heads", def[2], 1, 1024)
	if err != nil {
		return nil, err
	}
	if hid%heads != 0 {
		return nil, fmt.Errorf("parameter hidden=%d is not a multiple of heads=%d", hid, heads)
	}
	seq, err := p.Int("seq", 1024, 1, 65536)
	if err != nil {
		return nil, err
	}
	fused, err := attentionParam(p)
	if err != nil {
		return nil, err
	}
	const vocab = 50257
	ctx := max(1024, seq)
	cfg := attnConfig{heads: heads, bias: true, fused: fused}
	b := p.Batch
	n := newNet("gpt", p)
	n.in("input", "input")
	ids := n.source("input_ids", "input", b, seq)
	labels := n.source("labels", "labels", b, seq)
	causal := n.source("causal_bias", "constant", seq, seq)
	n.inLayer("embedding/wte", "embedding", "variable")
	wte := n.variable("wte", vocab, hid)
	n.in("embedding", "embedding")
	x := n.lookup("token_lookup", ids, wte)
	x = n.add("add_position", x, n.posTable("wpe", ctx, seq, hid))
	x = n.dropout("dropout", x, nil)
	for l := 0; l < layers; l++ {
		n.in(fmt.Sprintf("layer_%d/self_attention", l), "attention")
		x = n.sublayer(x, true, func(h tensor) tensor { return n.attention(h, h, causal, cfg) })
		n.in(fmt.Sprintf("layer_%d/ffn", l), "ffn")
		x = n.sublayer(x, true, func(h tensor) tensor { return n.ffn(h, 4*hid, "gelu") })
	}
	n.in("final_norm", "layernorm")
	x = n.layerNorm("layer_norm", x)
	// Audit (issue 29): a language model predicts the next token at every
	// position: the head and the loss run on batch x seq rows (openai
	// gpt-2 src/model.py, logits of every position; Megatron-LM's
	// post_language_model_processing likewise).
	n.in("softmax", "softmax")
	n.xentLoss("loss", n.tiedLogits("logits", x, wte), labels)
	return n, nil
}
