package zoo

import "fmt"

// rnnLayer runs an LSTM layer over T time steps, one block per step (Layer
// is the layer's name): input(t) gives the step's input (built inside the
// step's block), dropout is applied to it in training, and with residual
// the step's output is h + input (Wu et al. 2016, Section 3.1).
func (n *net) rnnLayer(layer string, w lstmWeights, steps, batch int, input func(t int) tensor, reverse, residual bool) []tensor {
	hidden := w.bias.shape[0] / 4
	outs := make([]tensor, steps)
	var h, c tensor
	for k := 0; k < steps; k++ {
		t := k
		if reverse {
			t = steps - 1 - k
		}
		n.inLayer(fmt.Sprintf("%s/t_%d", layer, t), layer, "lstm-cell")
		if k == 0 {
			h, c = n.zeroState(batch, hidden)
		}
		in := input(t)
		h, c = n.lstmCell(n.dropout("dropout", in, nil), h, c, w)
		outs[t] = h
		if residual {
			outs[t] = n.add("residual", h, in)
		}
	}
	return outs
}

// stack joins per-step outputs [B, H] into [B, T, H] (TensorFlow's Pack).
func (n *net) stack(name string, xs []tensor) tensor {
	b, h := xs[0].shape[0], xs[0].shape[1]
	return n.op(name, "concat", 0, []int{b, len(xs), h}, nil, xs...)
}

// buildGNMT is Google's neural machine translation model (Wu et al. 2016,
// "Google's Neural Machine Translation System", Section 3 and Figure 1),
// unrolled over seq time steps for source and target: an encoder whose
// bottom layer is bi-directional, then uni-directional LSTM layers with
// residual connections from the third layer on; a decoder of LSTM layers
// (residual from the third) fed at every step with the attention context,
// computed by a one-hidden-layer attention network (additive attention)
// from the bottom decoder layer's output of the previous step; a softmax
// over the vocabulary at every step. Dropout on every layer's input in
// training. Layers: encoder/embedding, encoder/lstm_0_fw, lstm_0_bw,
// lstm_1..; decoder/embedding, decoder/attention, decoder/lstm_0..,
// decoder/softmax.
func buildGNMT(p *Params) (*net, error) {
	layers, err := p.Int("layers", 4, 2, 16)
	if err != nil {
		return nil, err
	}
	hid, err := p.Int("hidden", 1024, 8, 16384)
	if err != nil {
		return nil, err
	}
	seq, err := p.Int("seq", 50, 1, 1000)
	if err != nil {
		return nil, err
	}
	vocab, err := p.Int("vocab", 32000, 2, 1<<20)
	if err != nil {
		return nil, err
	}
	b := p.Batch
	n := newNet("gnmt", p)
	n.in("input", "input")
	src := n.source("source_ids", "input", b, seq)
	tgt := n.source("target_ids", "input", b, seq)
	labels := n.source("labels", "labels", b, seq)
	n.inLayer("encoder/embedding/table", "encoder/embedding", "variable")
	srcTab := n.variable("table", vocab, hid)
	n.inLayer("decoder/embedding/table", "decoder/embedding", "variable")
	tgtTab := n.variable("table", vocab, hid)

	// encoder
	embs := make([]tensor, seq)
	for t := range embs {
		n.inLayer(fmt.Sprintf("encoder/embedding/t_%d", t), "encoder/embedding", "embedding")
		embs[t] = n.lookup("lookup", src.sliceOf(b), srcTab)
	}
	fwW := n.lstmLayerWeights("encoder/lstm_0_fw", hid, hid)
	bwW := n.lstmLayerWeights("encoder/lstm_0_bw", hid, hid)
	fw := n.rnnLayer("encoder/lstm_0_fw", fwW, seq, b, func(t int) tensor { return embs[t] }, false, false)
	bw := n.rnnLayer("encoder/lstm_0_bw", bwW, seq, b, func(t int) tensor { return embs[t] }, true, false)
	w1 := n.lstmLayerWeights("encoder/lstm_1", 2*hid, hid)
	x := n.rnnLayer("encoder/lstm_1", w1, seq, b, func(t int) tensor { return n.concat("concat_fw_bw", fw[t], bw[t]) }, false, false)
	for l := 2; l < layers; l++ {
		name := fmt.Sprintf("encoder/lstm_%d", l)
		w := n.lstmLayerWeights(name, hid, hid)
		prev := x
		x = n.rnnLayer(name, w, seq, b, func(t int) tensor { return prev[t] }, false, true)
	}

	// attention memory: keys = W_mem · encoder outputs, once
	n.inLayer("decoder/attention/memory", "decoder/attention", "attention-memory")
	mem := n.stack("stack", x)
	keys := n.matmul("keys", mem, hid)
	n.inLayer("decoder/attention/query_kernel", "decoder/attention", "variable")
	wq := n.variable("query_kernel", hid, hid)
	n.inLayer("decoder/attention/v", "decoder/attention", "variable")
	wv := n.variable("v", hid, 1)
	decW := make([]lstmWeights, layers)
	for l := range decW {
		decW[l] = n.lstmLayerWeights(fmt.Sprintf("decoder/lstm_%d", l), 2*hid, hid)
	}
	n.inLayer("decoder/softmax/kernel", "decoder/softmax", "variable")
	wOut := n.variable("kernel", hid, vocab)
	n.inLayer("decoder/softmax/bias", "decoder/softmax", "variable")
	bOut := n.variable("bias", vocab)

	// decoder, step by step
	hs := make([]tensor, layers)
	cs := make([]tensor, layers)
	losses := make([]tensor, seq)
	var y0prev tensor
	for t := 0; t < seq; t++ {
		n.inLayer(fmt.Sprintf("decoder/embedding/t_%d", t), "decoder/embedding", "embedding")
		e := n.lookup("lookup", tgt.sliceOf(b), tgtTab)

		n.inLayer(fmt.Sprintf("decoder/attention/t_%d", t), "decoder/attention", "attention")
		if t == 0 {
			y0prev = n.source("zero_query", "constant", b, hid)
		}
		q := n.matmulShared("query", y0prev, wq)
		s := n.tanh("tanh", n.add("add", keys, q))
		score := n.matmulShared("score", s, wv)
		pr := n.softmax("softmax", score)
		ctx := n.op("context", "batch-matmul", 2*float64(b)*float64(seq)*float64(hid), []int{b, hid}, nil, pr, mem)

		below := e
		for l := 0; l < layers; l++ {
			name := fmt.Sprintf("decoder/lstm_%d", l)
			n.inLayer(fmt.Sprintf("%s/t_%d", name, t), name, "lstm-cell")
			if t == 0 {
				hs[l], cs[l] = n.zeroState(b, hid)
			}
			in := n.concat("concat_context", below, ctx)
			hs[l], cs[l] = n.lstmCell(n.dropout("dropout", in, nil), hs[l], cs[l], decW[l])
			out := hs[l]
			if l >= 2 {
				out = n.add("residual", hs[l], below)
			}
			if l == 0 {
				y0prev = out
			}
			below = out
		}

		// Audit (issue 29): the softmax layer runs at every target step,
		// as tensorflow/nmt's decoder computes logits for the whole
		// target sequence (model.py, _build_decoder: output_layer on
		// every step's output) before the masked loss.
		n.inLayer(fmt.Sprintf("decoder/softmax/t_%d", t), "decoder/softmax", "softmax")
		logits := n.matmulShared("matmul", below, wOut)
		logits = n.op("bias_add", "bias-add", float64(logits.elems()), logits.shape, nil, logits, bOut)
		losses[t] = n.xent("xent", logits, labels.sliceOf(b))
	}
	n.inLayer("decoder/loss", "decoder/softmax", "loss")
	n.sumLosses(losses)
	return n, nil
}
