package zoo

import "fmt"

// buildRNNLM is a recurrent neural network language model of stacked LSTM
// layers (Zaremba et al. 2014, "Recurrent Neural Network Regularization",
// Section 4.1; Jozefowicz et al. 2016 for the 2048-unit LSTM-2048 size),
// unrolled over seq steps: embedding, LSTM layers with dropout on the
// non-recurrent connections, softmax over the vocabulary at every step.
// Layers: embedding, lstm_0, lstm_1, ..., softmax.
func buildRNNLM(p *Params) (*net, error) {
	layers, err := p.Int("layers", 2, 1, 64)
	if err != nil {
		return nil, err
	}
	hid, err := p.Int("hidden", 2048, 8, 16384)
	if err != nil {
		return nil, err
	}
	seq, err := p.Int("seq", 35, 1, 1000)
	if err != nil {
		return nil, err
	}
	vocab, err := p.Int("vocab", 10000, 2, 1<<20)
	if err != nil {
		return nil, err
	}
	b := p.Batch
	n := newNet("rnnlm", p)
	n.in("input", "input")
	ids := n.source("ids", "input", b, seq)
	labels := n.source("labels", "labels", b, seq)
	n.inLayer("embedding/table", "embedding", "variable")
	tab := n.variable("table", vocab, hid)
	x := make([]tensor, seq)
	for t := range x {
		n.inLayer(fmt.Sprintf("embedding/t_%d", t), "embedding", "embedding")
		x[t] = n.lookup("lookup", ids.sliceOf(b), tab)
	}
	for l := 0; l < layers; l++ {
		name := fmt.Sprintf("lstm_%d", l)
		w := n.lstmLayerWeights(name, hid, hid)
		prev := x
		x = n.rnnLayer(name, w, seq, b, func(t int) tensor { return prev[t] }, false, false)
	}
	n.inLayer("softmax/kernel", "softmax", "variable")
	wOut := n.variable("kernel", hid, vocab)
	n.inLayer("softmax/bias", "softmax", "variable")
	bOut := n.variable("bias", vocab)
	// Audit (issue 29): the softmax runs at every step (Zaremba et al.
	// 2014's PTB model, tensorflow/models ptb_word_lm.py: logits of every
	// step, sequence_loss over all of them).
	losses := make([]tensor, seq)
	for t := range losses {
		n.inLayer(fmt.Sprintf("softmax/t_%d", t), "softmax", "softmax")
		h := n.dropout("dropout", x[t], nil)
		logits := n.matmulShared("matmul", h, wOut)
		logits = n.op("bias_add", "bias-add", float64(logits.elems()), logits.shape, nil, logits, bOut)
		losses[t] = n.xent("xent", logits, labels.sliceOf(b))
	}
	n.inLayer("loss", "softmax", "loss")
	n.sumLosses(losses)
	return n, nil
}
