package zoo

import (
	"fmt"
	"strings"
)

// buildBERT is BERT pre-training (Devlin et al. 2019, "BERT: Pre-training
// of Deep Bidirectional Transformers for Language Understanding", Section
// 3 and Appendix A): word, segment and learned position embeddings summed,
// layer norm and dropout; Transformer encoder layers (post-norm, GELU
// FFN of 4·hidden); the pooler (tanh dense on the first token) with the
// next-sentence classifier; the masked-LM head (dense + GELU + layer norm
// on the masked positions only, then the word embeddings transposed, a
// bias and the loss). size=base is L=12, H=768, A=12 (110 M parameters);
// size=large L=24, H=1024, A=16 (340 M); layers= sets L (BERT-3/6/12/24);
// predictions= sets max_predictions_per_seq (DefaultBERTPredictions);
// lengths= (with bin=) gives the samples a distribution of lengths, a mix
// of fixed-length graphs that LengthMixOf returns and Build refuses.
// Layers: embedding, encoder/layer_<i>/self_attention,
// encoder/layer_<i>/ffn, pooler, nsp, mlm/transform, mlm/softmax.
//
// What the reference training programs compute, head by head:
//
//   - Google's BERT (google-research/bert, run_pretraining.py,
//     get_masked_lm_output) gathers the encoder output at the
//     max_predictions_per_seq masked positions (gather_indexes) before
//     the transform, the decoder to the vocabulary, the log-softmax and
//     the loss: the head runs on batch x predictions rows, never on
//     batch x seq. NVIDIA's TensorFlow BERT (DeepLearningExamples,
//     TensorFlow/LanguageModeling/BERT/run_pretraining.py) is the same
//     code; NVIDIA's PyTorch BERT (PyTorch/LanguageModeling/BERT,
//     modeling.py BertPreTrainingHeads with sequence_output_is_dense,
//     on by default in run_pretraining.py: --no_dense_sequence_output
//     turns it off) selects the masked rows before the head likewise.
//   - The next-sentence head (get_next_sentence_output; BertPooler in
//     modeling.py) runs on the pooled first token only: a [batch, H]
//     slice, a tanh dense and a 2-way classifier.
//   - The encoder runs on every position (padding included: neither
//     reference unpads in these recipes).
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
	if lengths, ok := p.lookup("lengths"); ok {
		// a distribution of lengths is several graphs (LengthMixOf); bin=
		// only means something beside it
		p.lookup("bin")
		if _, err := lengthsParam([]string{lengths}); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("lengths=%s: %w: placesim validate and stats take the expectation over its padded lengths (zoo.LengthMixOf); one length is seq= with predictions=", lengths, ErrLengthMix)
	}
	if _, ok := p.lookup("bin"); ok {
		return nil, fmt.Errorf("parameter bin= needs lengths= (valid: lengths=%s with seq=512 and bin= a divisor of 512)", strings.Join(SampleLengths(), "|"))
	}
	predictions, err := p.Int("predictions", DefaultBERTPredictions(seq), 1, seq)
	if err != nil {
		return nil, err
	}
	const maxPos = 512
	// the uncased WordPiece vocabulary (bert_config.json); NVIDIA's
	// PyTorch BERT pads it to 30528 rows (run_pretraining.py, "Padding
	// for divisibility by 8"), 0.02 % more work, left out so that every
	// framework profile builds the same model
	const vocab = 30522
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
		x = n.sublayer(x, false, func(h tensor) tensor { return n.bertFFN(h, ff) })
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

// bertFFN is BERT's feed-forward block: the intermediate dense with its
// GELU, then the output dense, with no dropout between them. The only
// dropouts of a BERT layer are on the attention probabilities and on the
// two sublayer outputs before the residual add (sublayer): Google's
// modeling.py transformer_model (intermediate_output = dense(...,
// activation=intermediate_act_fn), then layer_output = dense(...) and
// dropout(layer_output, hidden_dropout_prob)), NVIDIA's TensorFlow copy
// (DeepLearningExamples TensorFlow/LanguageModeling/BERT/modeling.py, the
// same lines) and NVIDIA's PyTorch BERT (PyTorch/LanguageModeling/BERT/
// modeling.py: BertIntermediate is dense + bias_gelu, BertOutput is dense,
// dropout, LayerNorm(hidden + input)). (The zoo's Transformer keeps its
// ffn, whose inner dropout is tensor2tensor's relu_dropout.)
func (n *net) bertFFN(x tensor, ff int) tensor {
	return n.dense("dense_2", n.dense("dense_1", x, ff, "gelu"), x.dim(), "")
}

// DefaultBERTPredictions is max_predictions_per_seq of the reference
// pre-training recipes for sequence length seq: 20 at 128 (phase 1) and
// 80 at 512 (phase 2) in Google's README (create_pretraining_data.py
// --max_seq_length=128 --max_predictions_per_seq=20; "set this to around
// max_seq_length * masked_lm_prob") and NVIDIA's scripts
// (run_pretraining.sh, phase 1 and phase 2). Both are 5/32 of the
// sequence (masked_lm_prob 0.15 rounded up), so other lengths get
// ceil(5 seq / 32), at least 1.
func DefaultBERTPredictions(seq int) int {
	return max(1, (5*seq+31)/32)
}
