package zoo

import (
	"fmt"

	"placesim/workloads"
)

// llmGraphModels are the decoder-only presets (llmPresets) as zoo graphs,
// so that simulate, stats, compare and every placer take them as they
// take the seed papers' models: zoo:llama3.1-8b?layers=2&seq=1024. Each
// op is one kernel of LLM.Ops on one GPU (no tensor, context or expert
// parallelism: the whole model is one graph for a placer to split), with
// its forward FLOPs; training is derived by the zoo as for every model.
func llmGraphModels() []Model {
	var ms []Model
	for _, m := range llmPresets() {
		m := m
		ms = append(ms, Model{Name: m.Name,
			Description: fmt.Sprintf("%s decoder-only transformer, %d layers, hidden %d (layers=, seq=; the large-model simulator's preset: placesim train)", m.Name, m.Layers, m.Hidden),
			Source:      m.Source, DefaultBatch: 1, DefaultOptimizer: workloads.Adam,
			build: func(p *Params) (*net, error) { return buildLLMGraph(m, p) }})
	}
	return ms
}

// buildLLMGraph is m's forward pass as a graph of b sequences: input ids
// and labels, the embedding block, per layer an attention and a
// feed-forward (or mixture-of-experts) block of LLM.Ops' kernels chained
// in their order with the residual adds reading the block input, and the
// head (final norm, output layer, cross-entropy). Parameters sit on the
// op that uses them (LLM.Params per part, in total ParamCount).
func buildLLMGraph(m LLM, p *Params) (*net, error) {
	var err error
	if m.Layers, err = p.Int("layers", m.Layers, 1, 4096); err != nil {
		return nil, err
	}
	if m.Seq, err = p.Int("seq", m.Seq, 1, 1<<20); err != nil {
		return nil, err
	}
	if m.Window > m.Seq {
		m.Window, m.WindowSkip = 0, 0 // a window as long as the sequence is full attention
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b := p.Batch
	T := b * m.Seq
	sh := Shard{TP: 1, CP: 1, EP: 1, MicroBatch: b, ActBytes: 2}
	h, a, g, d := m.Hidden, m.Heads, m.KVHeads, m.headDim()
	qd, kvd := a*d, g*d
	f, V, E, k := m.FFN, m.Vocab, m.Experts, m.TopK
	gpt := m.Arch == ArchGPT
	bias := gpt || m.Bias
	hh, ff, qq, kk := int64(h), int64(f), int64(qd), int64(kvd)
	// shape and parameters of each kernel by name
	type spec struct {
		out    []int
		params []int64
	}
	normP := []int64{hh}
	if gpt {
		normP = []int64{hh, hh}
	}
	withBias := func(w, b int64) []int64 {
		if bias {
			return []int64{w, b}
		}
		return []int64{w}
	}
	specs := map[string]spec{
		"norm": {[]int{T, h}, normP}, "final-norm": {[]int{T, h}, normP},
		"qkv":    {[]int{T, qd + 2*kvd}, withBias(hh*(qq+2*kk), qq+2*kk)},
		"rotary": {[]int{T, qd + kvd}, nil},
		"scores": {[]int{T, a * m.Seq}, nil}, "softmax": {[]int{T, a * m.Seq}, nil}, "attention-dropout": {[]int{T, a * m.Seq}, nil},
		"context": {[]int{T, qd}, nil}, "flash-attention": {[]int{T, qd}, nil},
		"out-proj": {[]int{T, h}, withBias(qq*hh, hh)},
		"residual": {[]int{T, h}, nil}, "dropout-residual": {[]int{T, h}, nil},
		"fc1": {[]int{T, f}, withBias(hh*ff, ff)}, "gelu": {[]int{T, f}, nil},
		"fc13": {[]int{T, 2 * f}, withBias(2*hh*ff, 2*ff)}, "swiglu": {[]int{T, f}, nil},
		"fc2":    {[]int{T, h}, withBias(ff*hh, hh)},
		"router": {[]int{T, E}, withBias(hh*int64(E), int64(E))}, "topk": {[]int{T, E}, nil},
		"permute": {[]int{T * k, h}, nil}, "unpermute": {[]int{T, h}, nil},
		"sort-chunks": {[]int{T * k, h}, nil}, "unsort-chunks": {[]int{T * k, h}, nil},
		"expert-bias": {[]int{T * k, h}, nil}, "expert-clamp": {[]int{T * k, 2 * f}, nil},
		"expert-fc13":      {[]int{T * k, 2 * f}, withBias(int64(E)*2*hh*ff, int64(E)*2*ff)},
		"expert-swiglu":    {[]int{T * k, f}, nil},
		"expert-fc2":       {[]int{T * k, h}, withBias(int64(E)*ff*hh, int64(E)*hh)},
		"position-dropout": {[]int{T, h}, nil},
		"cross-entropy":    {[]int{1}, nil},
	}
	if m.Sinks {
		specs["flash-attention"] = spec{[]int{T, qd}, []int64{int64(a)}}
	}
	n := newNet(m.Name, p)
	n.in("input", "input")
	ids := n.source("input_ids", "input", T)
	labels := n.source("labels", "labels", T)
	n.in("embedding", "embedding")
	wte := n.variable("wte", V, h)
	x := n.lookup("token_lookup", ids, wte)
	if gpt {
		x = n.add("add_position", x, n.posTable("wpe", m.Seq, m.Seq, h))
	}
	part := func(pt Part, x tensor) tensor {
		in := x
		for _, op := range m.Ops(pt, sh) {
			if op.Name == "token-embedding" {
				continue // the lookup above
			}
			s, ok := specs[op.Name]
			if !ok {
				n.fail("%s: kernel %q has no graph shape", m.Name, op.Name)
				continue
			}
			ins := []tensor{x}
			switch op.Name {
			case "residual", "dropout-residual":
				ins = append(ins, in)
			case "cross-entropy":
				ins = append(ins, labels)
			}
			x = n.op(op.Name, op.Type, op.FwdFLOPs, s.out, s.params, ins...)
		}
		return x
	}
	x = part(PartEmbedding, x)
	for l := 0; l < m.Layers; l++ {
		n.in(fmt.Sprintf("layer_%d/attention", l), "attention")
		x = part(PartAttention, x)
		n.in(fmt.Sprintf("layer_%d/mlp", l), "ffn")
		x = part(PartMLP, x)
	}
	n.in("head", "softmax")
	if gpt {
		// the output layer is tied to the token embedding (read again)
		specs["output-layer"] = spec{[]int{T, V}, nil}
		x = n.layerNorm("final_norm", x)
		logits := n.op("output-layer", "matmul", 2*float64(T)*float64(h)*float64(V), []int{T, V}, nil, x, wte)
		for _, op := range m.Ops(PartHead, sh) {
			if op.Name == "cross-entropy" {
				n.op(op.Name, op.Type, op.FwdFLOPs, []int{1}, nil, logits, labels)
			}
		}
		return n, nil
	}
	specs["output-layer"] = spec{[]int{T, V}, []int64{int64(V) * hh}}
	part(PartHead, x)
	return n, nil
}
