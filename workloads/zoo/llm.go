package zoo

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Arch is the family of a decoder-only transformer.
type Arch string

// Decoder-only transformer families.
const (
	// ArchGPT is Megatron-LM's GPT (Shoeybi et al. 2019; Narayanan et al.
	// SC'21): pre-LayerNorm blocks with biases, multi-head attention with
	// softmax and attention dropout, a GeLU MLP, dropout after the
	// attention and the MLP, learned position embeddings, the output layer
	// tied to the token embedding.
	ArchGPT Arch = "gpt"
	// ArchLlama is Llama (Touvron et al. 2023; Llama Team, "The Llama 3
	// Herd of Models", 2024, section 3.1.1 and Table 3): pre-RMSNorm
	// blocks without biases, rotary position embeddings, grouped-query
	// attention (KVHeads < Heads), a SwiGLU feed-forward
	// (W2(SiLU(W1 x) * W3 x)), no dropout, untied input and output
	// embeddings. With Experts > 0 each feed-forward is a mixture of
	// SwiGLU experts with a router (Mixtral, Jiang et al. 2024).
	ArchLlama Arch = "llama"
)

// LLM is a decoder-only transformer's shape: what the columns of
// ../shared/fidelity/llm.tsv give, plus what a published config adds.
type LLM struct {
	// Name of the preset ("" for a shape from a table).
	Name string
	// Arch is the family.
	Arch Arch
	// Layers, Hidden, Heads, KVHeads, FFN, Vocab: the shape (FFN is each
	// expert's intermediate size for an MoE model).
	Layers, Hidden, Heads, KVHeads, FFN, Vocab int
	// HeadDim is the size of one attention head; 0 means Hidden/Heads.
	HeadDim int
	// Experts per MoE layer and experts each token is routed to (TopK);
	// 0 = dense.
	Experts, TopK int
	// Imbalance is the MoE load-imbalance factor (>= 1): the busiest
	// expert rank gets Imbalance times the balanced share of tokens. 1 is
	// dropless with balanced load (the default; GPT-OSS's NeMo recipe
	// forces balance).
	Imbalance float64
	// Seq is the training sequence length in tokens.
	Seq int
	// FlashAttention: the attention core runs as one fused kernel (Dao et
	// al. 2022; Transformer Engine's fused attention) that keeps no
	// seq x seq matrix and skips the blocks a causal mask hides.
	FlashAttention bool
	// Window is the sliding-window size in tokens of the windowed
	// layers (a query attends to itself and the Window-1 tokens before
	// it; GPT-OSS: 128); 0 = every layer attends to the whole causal
	// prefix.
	Window int
	// WindowSkip: with Window > 0, every WindowSkip-th layer attends
	// fully and the others through the window (Megatron-core's
	// window_attn_skip_freq; GPT-OSS alternates: 2); 0 = every layer is
	// windowed.
	WindowSkip int
	// Sinks: each attention head has a learnable sink logit added to its
	// softmax denominator (GPT-OSS; Megatron's softmax_type "learnable",
	// fused in Transformer Engine >= 2.8's cuDNN attention): one parameter
	// per head and layer, no kernel of its own.
	Sinks bool
	// Bias: the linear layers of a Llama-style model carry biases
	// (Megatron's add_bias_linear; GPT-OSS), added in the GEMM epilogue.
	Bias bool
	// ClampedGLU: the experts' gated activation clamps its two halves
	// first (GPT-OSS's swiglu_limit 7.0: the gate at most 7, the linear
	// half within +-7; Megatron's activation_func_clamp_value), which
	// Megatron-core runs as eager kernels before the fused activation.
	ClampedGLU bool
	// YaRNFactor is the YaRN rotary scaling factor of the model's
	// positions (Peng et al. 2023, arXiv 2309.00071; GPT-OSS: rope_scaling
	// factor 32 over 4,096 original positions); 0 or 1 is plain RoPE.
	// YaRN multiplies the rotary cosines and sines by its attention
	// factor 0.1 ln(factor) + 1 (1.347 at 32), which Transformer
	// Engine's fused RoPE kernel does not take, so Megatron-core applies
	// the rotation in eager PyTorch (unfusedRotary).
	YaRNFactor float64
	// Source cites the published configuration.
	Source string
}

// WindowedFraction is the share of layers that attend through the
// sliding window.
func (m *LLM) WindowedFraction() float64 {
	switch {
	case m.Window <= 0:
		return 0
	case m.WindowSkip <= 0:
		return 1
	}
	return 1 - 1/float64(m.WindowSkip)
}

// headDim is the size of one attention head.
func (m *LLM) headDim() int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	return m.Hidden / m.Heads
}

// MoE reports whether the feed-forward layers are mixtures of experts.
func (m *LLM) MoE() bool { return m.Experts > 0 }

// Validate checks the shape; errors name the field and its valid range.
func (m *LLM) Validate() error {
	name := m.Name
	if name == "" {
		name = "model"
	}
	if m.Arch != ArchGPT && m.Arch != ArchLlama {
		return fmt.Errorf("%s: field arch = %q (valid: gpt, llama)", name, m.Arch)
	}
	for _, f := range []struct {
		n      string
		v, max int
	}{{"layers", m.Layers, 4096}, {"hidden", m.Hidden, 1 << 20}, {"heads", m.Heads, 1 << 14}, {"kv_heads", m.KVHeads, 1 << 14},
		{"ffn", m.FFN, 1 << 22}, {"vocab", m.Vocab, 1 << 24}, {"seq", m.Seq, 1 << 24}} {
		if f.v < 1 || f.v > f.max {
			return fmt.Errorf("%s: field %s = %d (valid range: 1 to %d)", name, f.n, f.v, f.max)
		}
	}
	if m.HeadDim < 0 || m.HeadDim > 4096 {
		return fmt.Errorf("%s: field head_dim = %d (valid range: 0 = hidden/heads, or 1 to 4096)", name, m.HeadDim)
	}
	if m.HeadDim == 0 && m.Hidden%m.Heads != 0 {
		return fmt.Errorf("%s: field hidden = %d is not a multiple of heads = %d (valid: a multiple, or give head_dim)", name, m.Hidden, m.Heads)
	}
	if m.Heads%m.KVHeads != 0 {
		return fmt.Errorf("%s: field kv_heads = %d must divide heads = %d", name, m.KVHeads, m.Heads)
	}
	if m.Experts < 0 || m.Experts > 1<<14 {
		return fmt.Errorf("%s: field experts = %d (valid range: 0 = dense, or 1 to %d)", name, m.Experts, 1<<14)
	}
	if m.Experts > 0 && (m.TopK < 1 || m.TopK > m.Experts) {
		return fmt.Errorf("%s: field top_k = %d (valid range: 1 to experts = %d)", name, m.TopK, m.Experts)
	}
	if m.Experts == 0 && m.TopK != 0 {
		return fmt.Errorf("%s: field top_k = %d on a dense model (valid: 0 when experts = 0)", name, m.TopK)
	}
	if m.Experts > 0 && m.Arch != ArchLlama {
		return fmt.Errorf("%s: field experts = %d with arch gpt (valid: mixture of experts with arch llama)", name, m.Experts)
	}
	if !(m.Imbalance >= 1) || math.IsInf(m.Imbalance, 0) {
		return fmt.Errorf("%s: field imbalance = %g (valid range: >= 1, finite; 1 = balanced)", name, m.Imbalance)
	}
	if m.Window < 0 || m.Window > m.Seq {
		return fmt.Errorf("%s: field window = %d (valid range: 0 = none, or 1 to seq = %d)", name, m.Window, m.Seq)
	}
	if m.WindowSkip < 0 || m.WindowSkip > m.Layers {
		return fmt.Errorf("%s: field window_skip = %d (valid range: 0 = every layer windowed, or 1 to layers = %d)", name, m.WindowSkip, m.Layers)
	}
	if m.Window == 0 && m.WindowSkip != 0 {
		return fmt.Errorf("%s: field window_skip = %d without a window (valid: 0 when window = 0)", name, m.WindowSkip)
	}
	if m.Experts == 0 && m.Imbalance != 1 {
		return fmt.Errorf("%s: field imbalance = %g on a dense model (valid: 1)", name, m.Imbalance)
	}
	return nil
}

// llmPresets are the named models, each with its published configuration.
func llmPresets() []LLM {
	llama3 := "Llama Team, \"The Llama 3 Herd of Models\" (arXiv 2407.21783), Table 3, and the models' config.json on Hugging Face (meta-llama/Llama-3.1-*): rope_theta 500000, vocabulary 128256, untied embeddings"
	return []LLM{
		{Name: "llama3.1-8b", Arch: ArchLlama, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 128256, Seq: 8192, FlashAttention: true, Imbalance: 1, Source: llama3},
		{Name: "llama3.1-70b", Arch: ArchLlama, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672, Vocab: 128256, Seq: 8192, FlashAttention: true, Imbalance: 1, Source: llama3},
		{Name: "llama3.1-405b", Arch: ArchLlama, Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, FFN: 53248, Vocab: 128256, Seq: 8192, FlashAttention: true, Imbalance: 1, Source: llama3},
		// GPT-3 175B: Brown et al. 2020, Table 2.1 (96 layers, d_model
		// 12288, 96 heads, context 2048); Megatron-LM's padded GPT-2
		// vocabulary 51200 as in Narayanan et al. SC'21 and Korthikanti
		// et al. 2022; Megatron of 2021-22 ran the unfused softmax.
		{Name: "gpt3-175b", Arch: ArchGPT, Layers: 96, Hidden: 12288, Heads: 96, KVHeads: 96, FFN: 4 * 12288, Vocab: 51200, Seq: 2048, Imbalance: 1,
			Source: "Brown et al. 2020 (arXiv 2005.14165), Table 2.1; vocabulary 51200 as Megatron-LM pads GPT-2's (Narayanan et al. SC'21, Korthikanti et al. 2022)"},
		{Name: "mixtral-8x7b", Arch: ArchLlama, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 32000, Experts: 8, TopK: 2, Seq: 4096, FlashAttention: true, Imbalance: 1,
			Source: "Jiang et al. 2024, \"Mixtral of Experts\" (arXiv 2401.04088), Table 1: dim 4096, 32 layers, head_dim 128, 32 heads, 8 kv heads, hidden_dim 14336, 8 experts, top-2, context 32768, vocab 32000 (trained here at 4096)"},
		// GPT-OSS 120B: OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card"
		// (2025), section 2.1 and Table 1, and config.json: 36 layers,
		// hidden 2880, 64 query heads of 64, 8 kv heads, 128 experts
		// top-4 of intermediate 2880, vocabulary 201088, layers
		// alternating between a 128-token sliding window and full
		// attention (layer_types, sliding_window 128), a learned sink per
		// head, biases on the attention and expert projections
		// (Megatron-Bridge's GPTOSSProvider: window_size (128, 0),
		// window_attn_skip_freq 2, softmax_type "learnable",
		// add_bias_linear True).
		{Name: "gpt-oss-120b", Arch: ArchLlama, Layers: 36, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, FFN: 2880, Vocab: 201088, Experts: 128, TopK: 4, Seq: 4096, FlashAttention: true, Imbalance: 1,
			Window: 128, WindowSkip: 2, Sinks: true, Bias: true, ClampedGLU: true, YaRNFactor: 32,
			Source: "OpenAI, gpt-oss-120b model card (2025), section 2.1 and Table 1, and config.json (sliding_window 128 on alternate layers, attention sinks, linear biases, swiglu_limit 7.0, rope_scaling yarn factor 32)"},
	}
}

// LLMNames lists the decoder-only presets.
func LLMNames() []string {
	var n []string
	for _, m := range llmPresets() {
		n = append(n, m.Name)
	}
	sort.Strings(n)
	return n
}

// LLMByName returns a preset by name (case-insensitive).
func LLMByName(name string) (LLM, error) {
	for _, m := range llmPresets() {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	return LLM{}, fmt.Errorf("unknown decoder-only model %q (valid: %s)", name, strings.Join(LLMNames(), ", "))
}

// ParseLLM reads "zoo:NAME[?seq=N&layers=N&imbalance=F&flash=true|false]"
// (or NAME alone) naming a preset, with overrides of its shape: layers,
// hidden, heads, kv_heads, ffn, vocab, experts, top_k, head_dim, seq,
// window, window_skip, imbalance, flash. The result is validated.
func ParseLLM(spec string) (LLM, error) {
	s := strings.TrimPrefix(strings.TrimSpace(spec), "zoo:")
	name, query, _ := strings.Cut(s, "?")
	m, err := LLMByName(name)
	if err != nil {
		return LLM{}, fmt.Errorf("model %q: %w", spec, err)
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return LLM{}, fmt.Errorf("model %q: %w", spec, err)
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ints := map[string]*int{"layers": &m.Layers, "hidden": &m.Hidden, "heads": &m.Heads, "kv_heads": &m.KVHeads, "ffn": &m.FFN,
		"vocab": &m.Vocab, "experts": &m.Experts, "top_k": &m.TopK, "head_dim": &m.HeadDim, "seq": &m.Seq,
		"window": &m.Window, "window_skip": &m.WindowSkip}
	for _, k := range keys {
		v := vals.Get(k)
		if p, ok := ints[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return LLM{}, fmt.Errorf("model %q: field %s = %q (valid: an integer)", spec, k, v)
			}
			*p = n
			continue
		}
		switch k {
		case "imbalance":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return LLM{}, fmt.Errorf("model %q: field imbalance = %q (valid range: a number >= 1)", spec, v)
			}
			m.Imbalance = f
		case "flash":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return LLM{}, fmt.Errorf("model %q: field flash = %q (valid: true, false)", spec, v)
			}
			m.FlashAttention = b
		default:
			return LLM{}, fmt.Errorf("model %q: unknown field %q (valid: layers, hidden, heads, kv_heads, ffn, vocab, experts, top_k, head_dim, seq, window, window_skip, imbalance, flash)", spec, k)
		}
	}
	if err := m.Validate(); err != nil {
		return LLM{}, fmt.Errorf("model %q: %w", spec, err)
	}
	return m, nil
}
