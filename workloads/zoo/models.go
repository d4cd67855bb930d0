package zoo

import (
	"placesim/workloads"
)

// models is the one list of zoo entries: the seed papers' models and the
// decoder-only presets (llmGraphModels).
func models() []Model {
	return append([]Model{
		{Name: "mlp", Description: "multi-layer perceptron (layers=, hidden=, input=, classes=)",
			Source: "-", DefaultBatch: 128, DefaultOptimizer: workloads.SGD, build: buildMLP},
		{Name: "resnet50", Description: "ResNet v1.5 (depth=50|101|152, image=, classes=, bn=unfused|fused: default by framework)",
			Source: "He et al. 2016", DefaultBatch: 64, DefaultOptimizer: workloads.Momentum, build: buildResNet},
		{Name: "vgg19", Description: "VGG-19 (image=, classes=)",
			Source: "Simonyan and Zisserman 2015", DefaultBatch: 32, DefaultOptimizer: workloads.Momentum, build: buildVGG19},
		{Name: "inception_v3", Description: "Inception-V3 (image=, classes=, aux=false|true, bn=unfused|fused)",
			Source: "Szegedy et al. 2016", DefaultBatch: 32, DefaultOptimizer: workloads.Momentum, build: buildInceptionV3},
		{Name: "nasnet", Description: "NASNet-A (cells= per stack, filters=, image=, aux=, bn=unfused|fused)",
			Source: "Zoph et al. 2018", DefaultBatch: 32, DefaultOptimizer: workloads.Momentum, build: buildNASNet},
		{Name: "gnmt", Description: "GNMT LSTM encoder-decoder with attention, unrolled (layers=, hidden=, seq=, vocab=)",
			Source: "Wu et al. 2016", DefaultBatch: 128, DefaultOptimizer: workloads.SGD, build: buildGNMT},
		{Name: "rnnlm", Description: "LSTM language model, unrolled (layers=, hidden=, seq=, vocab=)",
			Source: "Zaremba et al. 2014; Jozefowicz et al. 2016", DefaultBatch: 128, DefaultOptimizer: workloads.SGD, build: buildRNNLM},
		{Name: "transformer", Description: "Transformer encoder-decoder (layers=, hidden=, heads=, ff=, seq=, vocab=, attention=heads|fused, impl=fairseq|vaswani: NVIDIA's fairseq program, the pytorch profile's default, or the paper's graph, norm=pre|post, tgt-seq= the target's length with impl=fairseq, lengths=wmt16-en-de with max-tokens= for fairseq's token batches, ratio=gale-church|equal their target lengths: a mix of batch shapes)",
			Source: "Vaswani et al. 2017", DefaultBatch: 64, DefaultOptimizer: workloads.Adam, build: buildTransformer},
		{Name: "bert", Description: "BERT pre-training (size=base|large, layers=, seq=, predictions= masked positions per sequence, default 20 at seq 128 and 80 at 512, attention=heads|fused, lengths=wikipedia with seq=512 and bin= for LDDL's binned phase-2 data: a mix of padded lengths)",
			Source: "Devlin et al. 2019", DefaultBatch: 32, DefaultOptimizer: workloads.Adam, build: buildBERT},
		{Name: "gpt", Description: "GPT-2 decoder (size=small|medium|large|xl, layers=, hidden=, heads=, seq=, attention=heads|fused)",
			Source: "Radford et al. 2019", DefaultBatch: 8, DefaultOptimizer: workloads.Adam, build: buildGPT},
		{Name: "tensor_holography", Description: "TensorHolo CNN with focal-stack loss (layers=, filters=, resolution=, planes=)",
			Source: "Shi et al. 2021", DefaultBatch: 16, DefaultOptimizer: workloads.Adam, build: buildTensorHolography},
	}, llmGraphModels()...)
}

// imageInput reads the image classifiers' common parameters (image side
// in [minImage, 2048], default defImage; classes) and starts their net with
// an "input" block holding the images (batch x side x side x 3) and the
// labels; batchNorm also reads the bn= parameter.
func imageInput(p *Params, name string, defImage, minImage int, batchNorm bool) (n *net, images, labels tensor, classes int, err error) {
	image, err := p.Int("image", defImage, minImage, 2048)
	if err != nil {
		return nil, images, labels, 0, err
	}
	if classes, err = p.Int("classes", 1000, 1, 1<<20); err != nil {
		return nil, images, labels, 0, err
	}
	n = newNet(name, p)
	if batchNorm {
		if err := bnParam(p, n); err != nil {
			return nil, images, labels, 0, err
		}
	}
	n.in("input", "input")
	images = n.source("images", "input", p.Batch, image, image, 3)
	labels = n.source("labels", "labels", p.Batch)
	return n, images, labels, classes, nil
}

// bnParam reads the batch-norm granularity parameter of the CNNs.
func bnParam(p *Params, n *net) error {
	def := "unfused"
	if p.prof.fusedBN {
		def = "fused"
	}
	bn, err := p.String("bn", def, "unfused", "fused")
	n.fusedBN = bn == "fused"
	return err
}

func buildMLP(p *Params) (*net, error) {
	layers, err := p.Int("layers", 4, 1, 1000)
	if err != nil {
		return nil, err
	}
	hidden, err := p.Int("hidden", 4096, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	in, err := p.Int("input", 1024, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	classes, err := p.Int("classes", 1000, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	widths := []int{in}
	for i := 0; i < layers-1; i++ {
		widths = append(widths, hidden)
	}
	widths = append(widths, classes)
	return netFromGraph(workloads.MLP(p.Batch, widths), p), nil
}

// netFromGraph wraps a graph built elsewhere; its blocks are its Layers.
// Its sizes, built in FP32, are converted to p's precision.
func netFromGraph(g *workloads.Graph, p *Params) *net {
	n := &net{g: g, train: p.Training, tensors: map[int][]int64{}, prof: p.prof, prec: p.Precision,
		act: p.Precision.ActivationBytes(), par: p.Precision.ParamBytes()}
	for i := range g.Ops {
		op := &g.Ops[i]
		op.ParamBytes = op.ParamBytes / 4 * n.par
		op.OutputBytes = op.OutputBytes / 4 * n.act
		op.BytesAccessed = op.BytesAccessed / 4 * n.act
		op.FixedBytes = op.FixedBytes / 4 * n.act
		op.Precision = n.dtype(op.Type)
	}
	for i := range g.Edges {
		g.Edges[i].Bytes = g.Edges[i].Bytes / 4 * n.act
	}
	idx := map[string]int32{}
	for i := range g.Ops {
		l := g.Ops[i].Layer
		if l == "" {
			l = g.Ops[i].Name
		}
		b, ok := idx[l]
		if !ok {
			b = int32(len(n.blocks))
			idx[l] = b
			n.blocks = append(n.blocks, block{name: l, layer: g.Ops[i].Layer, typ: "layer"})
		}
		n.blockOf = append(n.blockOf, b)
	}
	return n
}
