package zoo

import "math"

// Part is one piece of a decoder-only transformer as a pipeline stage
// holds it: a layer's attention block or feed-forward block, the
// embedding (first stage) or the head (last stage: final norm, output
// layer, loss).
type Part int

// Parts of a decoder-only transformer.
const (
	PartAttention Part = iota
	PartMLP
	PartEmbedding
	PartHead
)

// String names the part.
func (p Part) String() string {
	return [...]string{"attention", "mlp", "embedding", "head"}[p]
}

// Phase is where an op stands among a block's tensor-parallel
// collectives: Megatron's block is [sequence region] all-gather (SP) or
// identity, [tensor-parallel region], all-reduce or reduce-scatter (SP),
// [sequence region] (Korthikanti et al. 2022, Figure 5).
type Phase int

// Phases of a block.
const (
	// PhasePre: before the block's all-gather (the norm).
	PhasePre Phase = iota
	// PhaseTP: inside the tensor-parallel region.
	PhaseTP
	// PhaseExpert: an MoE layer's experts, between the all-to-all
	// dispatch and combine.
	PhaseExpert
	// PhasePost: after the reduce-scatter / all-reduce (dropout, residual).
	PhasePost
)

// Shard is how one GPU holds a part: the tensor-, context- and
// expert-parallel sizes, sequence parallelism and the micro-batch.
type Shard struct {
	TP, CP, EP int
	SP         bool
	MicroBatch int
	// ActBytes is bytes per activation element (2 for BF16/FP16).
	ActBytes int
}

// LLMOp is one kernel of a part's forward on one GPU with its backward.
type LLMOp struct {
	// Name of the op, e.g. "qkv".
	Name string
	// Type is the workloads op type that picks its kernel class
	// ("matmul", "layernorm", "softmax", ...).
	Type string
	// Phase among the block's collectives.
	Phase Phase
	// ModelFLOPs is the forward's FLOPs as the field counts them for MFU
	// (matrix products only, 2 FLOPs per multiply-add, the full
	// seq x seq attention matrix; Narayanan et al. SC'21 appendix);
	// 0 for other ops. The backward counts twice as many.
	ModelFLOPs float64
	// FwdFLOPs and BwdFLOPs are what the kernels execute (a causal flash
	// attention skips the masked blocks; its backward recomputes the
	// scores: 5 matrix products against the forward's 2, Dao et al. 2022
	// section 3.1).
	FwdFLOPs, BwdFLOPs float64
	// FwdBytes and BwdBytes are the memory traffic.
	FwdBytes, BwdBytes int64
	// Saved is the activation bytes the op keeps for the backward
	// without recomputation; SavedCore the part of them that selective
	// recomputation drops (the attention core's seq x seq tensors,
	// Korthikanti et al. 2022 section 4.3).
	Saved, SavedCore int64
	// Expert ops run on the routed tokens (their time scales with the
	// MoE imbalance factor).
	Expert bool
	// Groups > 0 marks a grouped matrix product: Groups independent
	// GEMMs (one per local expert, Megatron-core's grouped GEMM), each
	// of the forward shape [GroupM x GroupK] x [GroupK x GroupN]; the
	// backward is each group's data gradient ([GroupM x GroupN] x
	// [GroupN x GroupK]) and weight gradient ([GroupK x GroupM] x
	// [GroupM x GroupN]).
	Groups                 int
	GroupM, GroupN, GroupK float64
	// Launches and BwdLaunches > 0 mark an op the framework runs as that
	// many small eager kernels issued one at a time from the host (a
	// Python loop over the local experts): its time is at least the
	// host's issue time of that many kernels (engine/llm prices it);
	// 0 is one fused kernel.
	Launches, BwdLaunches int
	// Module is the Megatron-core recompute module the op belongs to
	// (--recompute-modules: "layernorm" for the attention and MLP input
	// norms, "moe_act" for an MoE layer's expert activation); "" for
	// none.
	Module string
}

// RecomputeModules are the modules Module names.
var RecomputeModules = []string{"layernorm", "moe_act"}

// flashBlock is the key/query block of FlashAttention-2's forward kernel
// (128 for head dimensions up to 128; Dao 2023, section 3.3): a causal
// mask skips the blocks above the diagonal, so the kernel computes
// (n+1)/(2n) of the full matrix for n blocks per row.
const flashBlock = 128

// causalFraction is the share of the seq x seq score matrix a causal
// flash kernel computes.
func causalFraction(seq int) float64 {
	n := math.Ceil(float64(seq) / flashBlock)
	return (n + 1) / (2 * n)
}

// windowFraction is the share of the seq x seq score matrix a causal
// flash kernel with a sliding window of w tokens computes: query block i
// visits the key blocks from the one w tokens back to the diagonal, at
// most ceil(w/B)+1 of them (FlashAttention-2's local attention and
// cuDNN's sliding window skip the blocks outside the band).
func windowFraction(seq, w int) float64 {
	n := int(math.Ceil(float64(seq) / flashBlock))
	wb := int(math.Ceil(float64(w)/flashBlock)) + 1
	var blocks float64
	for i := 0; i < n; i++ {
		blocks += float64(min(i+1, wb))
	}
	return blocks / float64(n*n)
}

func mmBytes(m, k, n float64, ab int) int64 {
	return int64(float64(ab) * (m*k + k*n + m*n))
}

// Ops lists the forward kernels of part on one GPU holding it as sh says,
// in execution order, with their backward costs and saved activations.
// Per GPU: T = micro-batch x seq / CP tokens, of which the sequence region
// holds T/TP with sequence parallelism; matrix products of the
// tensor-parallel region are split over TP (Megatron's column- and
// row-parallel linear layers); an MoE layer's experts over EP x TP (expert
// tensor parallelism equal to TP, balanced routing: each GPU runs
// T x TopK / TP token-expert pairs).
func (m *LLM) Ops(part Part, sh Shard) []LLMOp {
	ab := sh.ActBytes
	t := float64(sh.TP)
	T := float64(sh.MicroBatch) * float64(m.Seq) / float64(sh.CP)
	Tseq := T
	if sh.SP {
		Tseq = T / t
	}
	h := float64(m.Hidden)
	a := float64(m.Heads)
	g := float64(m.KVHeads)
	d := float64(m.headDim())
	f := float64(m.FFN)
	s := float64(m.Seq)
	V := float64(m.Vocab)
	fb := float64(ab)
	gpt := m.Arch == ArchGPT
	norm := "rmsnorm"
	normFLOPs := 4.0 // square, sum, rsqrt-scale, weight
	if gpt {
		norm, normFLOPs = "layernorm", 8
	}
	elem := func(name, typ string, ph Phase, n float64, flopsPer float64, saved int64) LLMOp {
		return LLMOp{Name: name, Type: typ, Phase: ph, FwdFLOPs: flopsPer * n, BwdFLOPs: 2 * flopsPer * n,
			FwdBytes: int64(2 * fb * n), BwdBytes: int64(3 * fb * n), Saved: saved}
	}
	mm := func(name string, ph Phase, tokens, k, n float64, saved int64) LLMOp {
		fl := 2 * tokens * k * n
		return LLMOp{Name: name, Type: "matmul", Phase: ph, ModelFLOPs: fl, FwdFLOPs: fl, BwdFLOPs: 2 * fl,
			FwdBytes: mmBytes(tokens, k, n, ab), BwdBytes: 2 * mmBytes(tokens, k, n, ab), Saved: saved}
	}
	var ops []LLMOp
	switch part {
	case PartAttention:
		qd, kvd := a*d, g*d
		ops = append(ops, inputNorm(elem("norm", norm, PhasePre, Tseq*h, normFLOPs, int64(fb*Tseq*h))))
		// the QKV projection keeps its input as the sequence region
		// holds it (sharded with SP, all-gathered again in the backward)
		ops = append(ops, mm("qkv", PhaseTP, T, h, (qd+2*kvd)/t, int64(fb*Tseq*h)))
		if !gpt {
			if m.YaRNFactor > 1 {
				ops = append(ops, unfusedRotary(T*qd/t, T*kvd/t, fb))
			} else {
				ops = append(ops, elem("rotary", "rotary", PhaseTP, T*(qd+kvd)/t, 3, 0))
			}
		}
		score := 2 * T * s * qd / t // one of QK^T and attention x V
		if m.FlashAttention {
			// a model with a sliding window on some layers: the layer's
			// cost is the mean over its windowed and full layers (the
			// model FLOPs count the window's band, W of the s keys per
			// query, where a full layer counts the whole matrix)
			wf := m.WindowedFraction()
			frac := causalFraction(m.Seq)
			model := 2 * score
			if wf > 0 {
				frac = wf*windowFraction(m.Seq, m.Window) + (1-wf)*frac
				model = 2 * score * (wf*float64(m.Window)/s + 1 - wf)
			}
			saved := int64(fb*T*(qd+2*kvd)/t + 4*T*a/t) // Q, K, V and the FP32 log-sum-exp
			ops = append(ops, LLMOp{Name: "flash-attention", Type: "batch-matmul", Phase: PhaseTP,
				ModelFLOPs: model, FwdFLOPs: 2 * score * frac, BwdFLOPs: 5 * score * frac,
				FwdBytes: int64(fb * T * (2*qd + 2*kvd) / t), BwdBytes: int64(2 * fb * T * (2*qd + 2*kvd) / t), Saved: saved})
			if sh.CP > 1 {
				ops = append(ops, cpMerge(T*qd/t, T*kvd/t, float64(sh.CP), fb))
			}
		} else {
			probs := a * T * s / t // elements of the score matrix on this GPU
			ops = append(ops, LLMOp{Name: "scores", Type: "batch-matmul", Phase: PhaseTP, ModelFLOPs: score, FwdFLOPs: score, BwdFLOPs: 2 * score,
				FwdBytes: int64(fb * (T*(qd+kvd)/t + probs)), BwdBytes: int64(2 * fb * (T*(qd+kvd)/t + probs)), Saved: int64(fb * T * (qd + kvd) / t)})
			ops = append(ops, LLMOp{Name: "softmax", Type: "softmax", Phase: PhaseTP, FwdFLOPs: 5 * probs, BwdFLOPs: 4 * probs,
				FwdBytes: int64(2 * fb * probs), BwdBytes: int64(3 * fb * probs), Saved: int64(fb * probs), SavedCore: int64(fb * probs)})
			ops = append(ops, LLMOp{Name: "attention-dropout", Type: "dropout", Phase: PhaseTP, FwdFLOPs: 2 * probs, BwdFLOPs: probs,
				FwdBytes: int64((2*fb + 1) * probs), BwdBytes: int64((2*fb + 1) * probs), Saved: int64(probs), SavedCore: int64(probs)})
			ops = append(ops, LLMOp{Name: "context", Type: "batch-matmul", Phase: PhaseTP, ModelFLOPs: score, FwdFLOPs: score, BwdFLOPs: 2 * score,
				FwdBytes: int64(fb * (T*(qd+kvd)/t + probs)), BwdBytes: int64(2 * fb * (T*(qd+kvd)/t + probs)),
				Saved: int64(fb*probs + fb*T*kvd/t), SavedCore: int64(fb * probs)})
		}
		ops = append(ops, mm("out-proj", PhaseTP, T, qd/t, h, int64(fb*T*qd/t)))
		if gpt {
			ops = append(ops, elem("dropout-residual", "dropout", PhasePost, Tseq*h, 3, int64(Tseq*h)))
		} else {
			ops = append(ops, elem("residual", "add", PhasePost, Tseq*h, 1, 0))
		}
	case PartMLP:
		ops = append(ops, inputNorm(elem("norm", norm, PhasePre, Tseq*h, normFLOPs, int64(fb*Tseq*h))))
		switch {
		case gpt:
			ops = append(ops, mm("fc1", PhaseTP, T, h, f/t, int64(fb*Tseq*h)))
			ops = append(ops, elem("gelu", "gelu", PhaseTP, T*f/t, 8, int64(fb*T*f/t)))
			ops = append(ops, mm("fc2", PhaseTP, T, f/t, h, int64(fb*T*f/t)))
			ops = append(ops, elem("dropout-residual", "dropout", PhasePost, Tseq*h, 3, int64(Tseq*h)))
		case !m.MoE():
			ops = append(ops, mm("fc13", PhaseTP, T, h, 2*f/t, int64(fb*Tseq*h)))
			ops = append(ops, elem("swiglu", "swiglu", PhaseTP, T*f/t, 6, int64(2*fb*T*f/t)))
			ops = append(ops, mm("fc2", PhaseTP, T, f/t, h, int64(fb*T*f/t)))
			ops = append(ops, elem("residual", "add", PhasePost, Tseq*h, 1, 0))
		default:
			E, k := float64(m.Experts), float64(m.TopK)
			ops = append(ops, mm("router", PhaseTP, T, h, E, int64(fb*Tseq*h)))
			ops = append(ops, elem("topk", "softmax", PhaseTP, T*E, 6, int64(4*T*E)))
			pairs := T * k / t // token-expert pairs this GPU runs (balanced)
			// Megatron-core's token dispatcher permutes the routed
			// tokens into expert order before the dispatch all-to-all
			// and back after the combine (moe_utils.permute and
			// unpermute: a row gather of pairs x hidden each way, the
			// unpermute weighting each copy by its router probability)
			move := func(name string, flops float64) LLMOp {
				return LLMOp{Name: name, Type: "gather", Phase: PhaseExpert, FwdFLOPs: flops * pairs * h, BwdFLOPs: flops * pairs * h,
					FwdBytes: int64(2 * fb * pairs * h), BwdBytes: int64(2 * fb * pairs * h)}
			}
			ops = append(ops, move("permute", 0))
			// the local experts' products as grouped GEMMs: E/EP
			// experts on this GPU, each of pairs/(E/EP) tokens
			local := math.Max(1, E/float64(sh.EP))
			// tokens arrive from the EP ranks grouped by source rank;
			// with several local experts the dispatcher sorts them by
			// expert after the all-to-all and back before the combine
			// (Megatron-core MoEAlltoAllTokenDispatcher.dispatch_postprocess
			// and combine_preprocess: sort_chunks_by_idxs, a row gather
			// of pairs x hidden each way, NVIDIA/Megatron-LM@d98e8a64
			// megatron/core/transformer/moe/token_dispatcher.py)
			sorted := sh.EP > 1 && local > 1
			if sorted {
				ops = append(ops, move("sort-chunks", 0))
			}
			fc13 := mm("expert-fc13", PhaseExpert, pairs, h, 2*f, int64(fb*pairs*h))
			fc13.Groups, fc13.GroupM, fc13.GroupK, fc13.GroupN = int(local), pairs/local, h, 2*f
			fc2 := mm("expert-fc2", PhaseExpert, pairs, f, h, int64(fb*pairs*f))
			fc2.Groups, fc2.GroupM, fc2.GroupK, fc2.GroupN = int(local), pairs/local, f, h
			// the gated activation reads both halves of fc13's output
			// and writes one (the router probability applied in the
			// same fused kernel); its backward reads the gradient and
			// both halves and writes the gradients of both halves
			// (Megatron-core fused_bias_geglu / fused_bias_swiglu)
			glu := elem("expert-swiglu", "swiglu", PhaseExpert, pairs*f, 6, int64(2*fb*pairs*f))
			glu.FwdBytes, glu.BwdBytes = int64(3*fb*pairs*f), int64(5*fb*pairs*f)
			glu.Module = "moe_act"
			expert := []LLMOp{fc13}
			if m.ClampedGLU {
				expert = append(expert, clampGLU(pairs, f, fb))
			}
			for _, op := range append(expert, glu, fc2) {
				op.Expert = true
				ops = append(ops, op)
			}
			if m.Bias {
				ops = append(ops, expertBias(pairs, h, local, fb))
			}
			if sorted {
				ops = append(ops, move("unsort-chunks", 0))
			}
			ops = append(ops, move("unpermute", 2))
			ops = append(ops, elem("residual", "add", PhasePost, Tseq*h, 1, 0))
		}
	case PartEmbedding:
		ops = append(ops, LLMOp{Name: "token-embedding", Type: "embedding", Phase: PhasePost,
			FwdBytes: int64(2 * fb * Tseq * h), BwdBytes: int64(3 * fb * Tseq * h)})
		if gpt {
			ops = append(ops, elem("position-dropout", "dropout", PhasePost, Tseq*h, 4, int64(Tseq*h)))
		}
	case PartHead:
		ops = append(ops, elem("final-norm", norm, PhasePre, Tseq*h, normFLOPs, int64(fb*Tseq*h)))
		ops = append(ops, mm("output-layer", PhaseTP, T, h, V/t, int64(fb*Tseq*h)))
		// vocabulary-parallel cross-entropy on FP32 logits, which it
		// keeps for the backward
		ops = append(ops, LLMOp{Name: "cross-entropy", Type: "softmax-xent", Phase: PhaseTP, FwdFLOPs: 5 * T * V / t, BwdFLOPs: 2 * T * V / t,
			FwdBytes: int64((fb + 8) * T * V / t), BwdBytes: int64((4 + fb) * T * V / t), Saved: int64(4 * T * V / t)})
	}
	return ops
}

// Params is the number of parameters of part on one GPU holding it as sh
// says, split into dense parameters (replicated over the data-parallel
// ranks) and expert parameters (each expert on one of EP ranks).
// Replicated norms and the biases of row-parallel layers count whole on
// every tensor-parallel rank.
func (m *LLM) Params(part Part, sh Shard) (dense, expert int64) {
	t := int64(sh.TP)
	h, a, g, d := int64(m.Hidden), int64(m.Heads), int64(m.KVHeads), int64(m.headDim())
	f, V := int64(m.FFN), int64(m.Vocab)
	gpt := m.Arch == ArchGPT
	switch part {
	case PartAttention:
		w := h*(a*d+2*g*d)/t + a*d*h/t
		if gpt {
			return w + (a*d+2*g*d)/t + h + 2*h, 0 // biases, LayerNorm gain and bias
		}
		if m.Sinks {
			w += a / t // one sink logit per head
		}
		if m.Bias {
			w += (a*d+2*g*d)/t + h
		}
		return w + h, 0
	case PartMLP:
		switch {
		case gpt:
			return 2*h*f/t + f/t + h + 2*h, 0
		case !m.MoE():
			if m.Bias {
				return 3*h*f/t + 2*f/t + 2*h, 0
			}
			return 3*h*f/t + h, 0
		default:
			local := int64(m.Experts) / int64(sh.EP)
			if m.Bias {
				E := int64(m.Experts)
				return h*E + E + h, local * (3*h*f/t + 2*f/t + h)
			}
			return h*int64(m.Experts) + h, local * 3 * h * f / t
		}
	case PartEmbedding:
		if gpt {
			return V*h/t + int64(m.Seq)*h, 0
		}
		return V * h / t, 0
	case PartHead:
		// GPT's output layer is tied to the embedding: Megatron keeps a
		// copy on the last stage, kept equal by an all-reduce
		if gpt {
			return V*h/t + 2*h, 0
		}
		return V*h/t + h, 0
	}
	return 0, 0
}

// one is the shard of a single GPU with one sequence.
func one(ab int) Shard { return Shard{TP: 1, CP: 1, EP: 1, MicroBatch: 1, ActBytes: ab} }

// ParamCount is the model's total number of parameters.
func (m *LLM) ParamCount() int64 {
	sh := one(2)
	var n int64
	for _, p := range []Part{PartEmbedding, PartHead} {
		d, e := m.Params(p, sh)
		n += d + e
	}
	for _, p := range []Part{PartAttention, PartMLP} {
		d, e := m.Params(p, sh)
		n += int64(m.Layers) * (d + e)
	}
	if m.Arch == ArchGPT {
		d, _ := m.Params(PartEmbedding, sh)
		n -= d - int64(m.Seq)*int64(m.Hidden) // the tied output layer counts once
	}
	return n
}

// forwardModelFLOPs is the model FLOPs of one sequence's forward, split
// into the layers' and the head's, and the attention cores' share of the
// layers'.
func (m *LLM) forwardModelFLOPs() (layers, head, core float64) {
	sh := one(2)
	for _, p := range []Part{PartAttention, PartMLP} {
		for _, op := range m.Ops(p, sh) {
			layers += op.ModelFLOPs
			if op.Name == "scores" || op.Name == "context" || op.Name == "flash-attention" {
				core += op.ModelFLOPs
			}
		}
	}
	for _, op := range m.Ops(PartHead, sh) {
		head += op.ModelFLOPs
	}
	return layers * float64(m.Layers), head, core * float64(m.Layers)
}

// ModelFLOPsPerSequence is the model FLOPs of one sequence's forward and
// backward (3x the forward's matrix products, the full attention matrix
// counted, no recomputation): the numerator of MFU.
func (m *LLM) ModelFLOPsPerSequence() float64 {
	l, h, _ := m.forwardModelFLOPs()
	return 3 * (l + h)
}

// TrainingFLOPsPerSequence is ModelFLOPsPerSequence plus the forward
// recomputed in the backward, counted the same way: full recomputation
// runs every layer's forward again (not the output layer; Narayanan et al.
// SC'21 appendix), selective the attention cores' ("full", "selective",
// anything else: none).
func (m *LLM) TrainingFLOPsPerSequence(recompute string) float64 {
	l, h, core := m.forwardModelFLOPs()
	switch recompute {
	case "full":
		return 4*l + 3*h
	case "selective":
		return 3*(l+h) + core
	}
	return 3 * (l + h)
}

// ActivationBytesPerLayer is the activation memory one transformer layer
// keeps for the backward on one GPU, by recomputation mode ("none",
// "selective", "full"): the sum of its ops' saved tensors, the attention
// core's dropped under selective, only the layer's input (as the
// sequence region holds it) under full.
func (m *LLM) ActivationBytesPerLayer(sh Shard, recompute string) int64 {
	if recompute == "full" {
		T := int64(sh.MicroBatch) * int64(m.Seq) / int64(sh.CP)
		if sh.SP {
			T /= int64(sh.TP)
		}
		return int64(sh.ActBytes) * T * int64(m.Hidden)
	}
	var n int64
	for _, p := range []Part{PartAttention, PartMLP} {
		for _, op := range m.Ops(p, sh) {
			n += op.Saved
			if recompute == "selective" {
				n -= op.SavedCore
			}
		}
	}
	return n
}

// expertBias is the second expert layer's bias as Megatron-core adds it
// (TEGroupedMLP._apply_bias, from the GPT-OSS support of
// NVIDIA/Megatron-LM@a329dd6d "Enable bias in expert mlp" until the
// packed grouped-bias path of 883533e0, 2026-08: TE returns the biases
// apart and the layer adds them in eager PyTorch): for each of the local
// experts, its rows t of the output get t + b*p (b the expert's bias, p
// the rows' router probabilities), then the pieces are concatenated.
// Forward per expert: a product b*p written as a [rows, hidden] tensor,
// the sum (two reads, one write), then the concatenation (one read, one
// write): 6 passes over pairs x hidden elements, 2 kernels per expert and
// the cat. Backward per expert: the bias gradient sum(g*p) and the
// probability gradient sum(g*b) over the rows, a product and a reduction
// each (about 6 passes in all), 4 kernels per expert; the residual
// gradient passes through.
func expertBias(pairs, h, local, fb float64) LLMOp {
	n := pairs * h
	return LLMOp{Name: "expert-bias", Type: "add", Phase: PhaseExpert, Expert: true,
		FwdFLOPs: 2 * n, BwdFLOPs: 4 * n,
		FwdBytes: int64(6 * fb * n), BwdBytes: int64(6 * fb * n),
		Launches: 2*int(local) + 1, BwdLaunches: 4 * int(local)}
}

// clampGLU is the clamp of a clamped gated activation's input as
// Megatron-core runs it (weighted_bias_quick_geglu_impl and
// weighted_bias_swiglu_impl with clamp_value, NVIDIA/Megatron-LM@b3426025
// megatron/core/fusions/fused_bias_geglu.py: chunk, clamp each half,
// torch.cat) in eager PyTorch before the fused activation: forward, two
// clamps (each reads and writes one half, n = pairs x ffn elements) and
// the concatenation (reads and writes both halves): 8n elements moved,
// 3 kernels; backward, the concatenation's gradient is a view, each
// clamp's gradient reads the gradient and the input and writes the
// masked gradient (6n), and the chunk's gradient concatenates the two
// (4n): 10n elements, 3 kernels.
func clampGLU(pairs, f, fb float64) LLMOp {
	n := pairs * f
	return LLMOp{Name: "expert-clamp", Type: "add", Phase: PhaseExpert, Expert: true,
		FwdFLOPs: 2 * n, BwdFLOPs: 2 * n,
		FwdBytes: int64(8 * fb * n), BwdBytes: int64(10 * fb * n),
		// the clamps keep their input for the mask; the activation
		// keeps the clamped copy (its own Saved)
		Saved:    int64(2 * fb * n),
		Launches: 3, BwdLaunches: 3, Module: "moe_act"}
}

// inputNorm tags a block's input norm as Megatron's "layernorm" recompute
// module.
func inputNorm(op LLMOp) LLMOp {
	op.Module = "layernorm"
	return op
}

// unfusedRotary is the rotary embedding of the queries (nq elements) and
// keys (nk) as Megatron-core applies it when the rotation carries a
// scale (YaRN's attention factor: apply_rotary_pos_emb falls back from
// Transformer Engine's fused kernel when mscale != 1, "mscale is not
// supported by TE's fused RoPE", NVIDIA/Megatron-LM@87eb3c2b
// megatron/core/models/common/embeddings/rope_utils.py, the code of the
// 26.04 NeMo container; _apply_rotary_pos_emb_bshd): per tensor, forward
// cos and sin of the frequencies times mscale cast to BF16 (6 small
// kernels), then t*cos, the rotated half (a negation of one half and a
// concatenation), its product with sin, the sum and a final
// concatenation with the (empty) unrotated part: 6 kernels moving 12
// times the tensor (1+1, 0.5+0.5, 1+1, 1+1, 2+1, 1+1 reads+writes).
// Backward per tensor, autograd of the same: the gradient times sin, the
// negation of a half, the concatenation of the chunk's gradients, the
// gradient times cos, the sum of the two paths, and the backward of the
// slice t[..., :rot_dim] (PyTorch's slice_backward: a zero-filled tensor
// of the input's shape and a copy into it, even where the slice is the
// whole head): 7 kernels moving 13 times the tensor (1+1, 0.5+0.5, 1+1,
// 1+1, 2+1, 1, 1+1). Nothing large is saved (the cosines and sines are
// [seq, head dim]).
func unfusedRotary(nq, nk, fb float64) LLMOp {
	n := nq + nk
	return LLMOp{Name: "rotary", Type: "rotary", Phase: PhaseTP,
		FwdFLOPs: 3 * n, BwdFLOPs: 3 * n,
		FwdBytes: int64(12 * fb * n), BwdBytes: int64(13 * fb * n),
		Launches: 2 * 12, BwdLaunches: 2 * 7}
}

// cpMerge is what Transformer Engine's ring attention adds beside its
// flash kernels with context parallelism over cp ranks (the P2P
// implementation NeMo and Megatron-Bridge run by default, cp_comm_type
// "p2p": AttnFuncWithCPAndKVP2P, NVIDIA/TransformerEngine@d0067d0
// transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py). Each of the cp steps computes a partial output
// against one block of keys and values, and the partial outputs are
// merged by their log-sum-exp: forward, the first step's output
// rescaled (flash_attn_fwd_out_correction_init: a read and a write of
// the nq output elements) and every later step's added in
// (flash_attn_fwd_out_correction: two reads and a write; a causal
// rank's steps past its own chunk touch half the rows, the busiest rank
// none, so (cp-1) full merges); backward, each step's query gradient is
// copied or added into dq and the key and value gradients into dk, dv
// (copy_/add_: up to two reads and a write of nq + 2 nkv elements a
// step). The log-sum-exp merges are [heads, tokens] and negligible.
func cpMerge(nq, nkv, cp, fb float64) LLMOp {
	passes := 2 + 3*(cp-1)
	return LLMOp{Name: "cp-merge", Type: "add", Phase: PhaseTP,
		FwdFLOPs: 3 * cp * nq, BwdFLOPs: cp * (nq + 2*nkv),
		FwdBytes: int64(passes * fb * nq), BwdBytes: int64(passes * fb * (nq + 2*nkv))}
}
