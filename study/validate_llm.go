package study

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"placesim/engine/llm"
	"placesim/internal/tsv"
	"placesim/parallel"
	"placesim/workloads/zoo"
)

// llmColumns are the columns of a large-model validation file
// (../shared/fidelity/llm.tsv; columns in ../shared/fidelity/README.md).
var llmColumns = []string{"id", "model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "experts", "top_k", "seq",
	"global_batch", "micro_batch", "system", "gpus", "precision", "tp", "pp", "vp", "cp", "ep", "dp",
	"sequence_parallel", "optimizer_sharding", "recompute", "measured", "unit", "source", "note"}

// LLMRow is one setting of a large-model validation file.
type LLMRow struct {
	Line                  int
	ID, ModelName, System string
	Model                 zoo.LLM
	Layout                parallel.Layout
	GPUs                  int
	Measured              float64
	Unit                  string
	Source, Note          string
	// Defaults lists the settings the row leaves open ("?") and the value
	// the simulation uses.
	Defaults []string
	// RecomputeModules are Megatron's --recompute-modules of the recipe
	// that ran the row (llm.Job.RecomputeModules), when its recompute is
	// not stated and the model's published recipe sets them.
	RecomputeModules []string
	// BF16Grads: the framework that ran the row reduces gradients in BF16
	// (llm.Job.BF16Grads).
	BF16Grads bool
}

// LLMRowResult is a row's outcome.
type LLMRowResult struct {
	ID        string  `json:"id"`
	Model     string  `json:"model"`
	System    string  `json:"system"`
	GPUs      int     `json:"gpus"`
	Layout    string  `json:"layout"`
	Measured  float64 `json:"measured"`
	Simulated float64 `json:"simulated"`
	Unit      string  `json:"unit"`
	// Error = placesim's throughput / measured throughput - 1 (for
	// s/iteration: measured / simulated - 1).
	Error      float64  `json:"error"`
	MFU        float64  `json:"mfu"`
	PeakMemory int64    `json:"peakMemory"`
	OOM        string   `json:"oom,omitempty"`
	Defaults   []string `json:"defaults,omitempty"`
	Failure    string   `json:"failure,omitempty"`
}

// LLMValidationSummary is every row's result with the median and worst
// |error| over the rows that ran.
type LLMValidationSummary struct {
	File        string         `json:"file"`
	Rows        []LLMRowResult `json:"rows"`
	MedianError float64        `json:"medianError"`
	WorstError  float64        `json:"worstError"`
	WorstID     string         `json:"worstId"`
}

// IsLLMValidation reports whether the file's header is the large-model
// validation format (it has the columns tp, pp and global_batch).
func IsLLMValidation(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("read validation file: %w", err)
	}
	defer f.Close()
	tab, err := tsv.Read(f, nil)
	if err != nil {
		return false, tableError(path, err)
	}
	return tab.Has("tp") && tab.Has("pp") && tab.Has("global_batch"), nil
}

// ReadLLMValidation reads a large-model validation file; an error names
// the file, the line and the column.
func ReadLLMValidation(path string) ([]LLMRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read validation file: %w", err)
	}
	defer f.Close()
	bad := func(line int, col, format string, args ...any) error {
		where := fmt.Sprintf("%s:%d", path, line)
		if col != "" {
			where += ": column " + col
		}
		return fmt.Errorf("%w: %s: %s", ErrValidationFile, where, fmt.Sprintf(format, args...))
	}
	tab, err := tsv.Read(f, llmColumns)
	if err != nil {
		return nil, tableError(path, err)
	}
	var rows []LLMRow
	ids := map[string]bool{}
	for _, row := range tab.Rows {
		line, get := row.Line, row.Get
		num := func(c string, lo, hi int) (int, error) {
			n, err := strconv.Atoi(get(c))
			if err != nil || n < lo || n > hi {
				return 0, bad(line, c, "%q (valid range: an integer in [%d, %d])", get(c), lo, hi)
			}
			return n, nil
		}
		r := LLMRow{Line: line, ID: get("id"), ModelName: get("model"), System: get("system"), Unit: get("unit"), Source: get("source"), Note: get("note")}
		if r.ID == "" || ids[r.ID] {
			return nil, bad(line, "id", "%q is empty or repeated", r.ID)
		}
		ids[r.ID] = true
		ints := map[string]*int{}
		var sh struct{ layers, hidden, heads, kv, ffn, vocab, experts, topk, seq, gbs, mbs, tp, pp, vp, cp, ep, dp int }
		for _, c := range []struct {
			name   string
			p      *int
			lo, hi int
		}{{"layers", &sh.layers, 1, 4096}, {"hidden", &sh.hidden, 1, 1 << 20}, {"heads", &sh.heads, 1, 1 << 14}, {"kv_heads", &sh.kv, 1, 1 << 14},
			{"ffn", &sh.ffn, 1, 1 << 22}, {"vocab", &sh.vocab, 1, 1 << 24}, {"experts", &sh.experts, 0, 1 << 14}, {"top_k", &sh.topk, 0, 1 << 14},
			{"seq", &sh.seq, 1, 1 << 24}, {"global_batch", &sh.gbs, 1, 1 << 24}, {"micro_batch", &sh.mbs, 1, 1 << 16}, {"gpus", &r.GPUs, 1, 1 << 20},
			{"tp", &sh.tp, 1, 1 << 16}, {"pp", &sh.pp, 1, 1 << 16}, {"vp", &sh.vp, 1, 1 << 16}, {"cp", &sh.cp, 1, 1 << 16}, {"ep", &sh.ep, 1, 1 << 16}, {"dp", &sh.dp, 1, 1 << 20}} {
			if *c.p, err = num(c.name, c.lo, c.hi); err != nil {
				return nil, err
			}
			ints[c.name] = c.p
		}
		r.Model = llmModelOf(r.ModelName, sh.layers, sh.hidden, sh.heads, sh.kv, sh.ffn, sh.vocab, sh.experts, sh.topk, sh.seq)
		if err := r.Model.Validate(); err != nil {
			return nil, bad(line, "", "model: %v", err)
		}
		if r.Measured, err = strconv.ParseFloat(get("measured"), 64); err != nil || !(r.Measured > 0) || math.IsInf(r.Measured, 0) {
			return nil, bad(line, "measured", "%q (valid range: a number > 0)", get("measured"))
		}
		if r.Unit != "s/iteration" && r.Unit != "tokens/s/GPU" {
			return nil, bad(line, "unit", "%q (valid: s/iteration, tokens/s/GPU)", r.Unit)
		}
		l := parallel.Default()
		l.TP, l.PP, l.VP, l.CP, l.EP, l.DP = sh.tp, sh.pp, sh.vp, sh.cp, sh.ep, sh.dp
		l.MicroBatch, l.GlobalBatch = sh.mbs, sh.gbs
		if l.Precision, err = parallel.ParsePrecision(get("precision")); err != nil {
			return nil, bad(line, "precision", "%v", err)
		}
		// "?": the documented defaults of the framework that ran it:
		// NeMo's Llama 3.1 recipes (NVIDIA/NeMo@00aa2e1
		// nemo/collections/llm/recipes/llama31_405b.py, trainer and
		// pretrain_recipe) set sequence_parallel=True, the distributed
		// fused Adam (ZeRO-1), grad_reduce_in_fp32, overlapped gradient
		// reduction and parameter gather, and no activation
		// recomputation
		switch v := get("sequence_parallel"); v {
		case "yes", "no":
			l.SequenceParallel = v == "yes"
		case "?":
			l.SequenceParallel = l.TP > 1
			r.Defaults = append(r.Defaults, fmt.Sprintf("sequence_parallel=%v (NeMo recipes: on when tp > 1)", l.SequenceParallel))
			// NeMo's performance recipes run MegatronCommOverlapCallback
			// with tp_comm_overlap and a Transformer Engine userbuffers
			// configuration (NVIDIA/dgxc-benchmarking@741c886
			// llama3.1/pretrain_llama31.py: the 70B and 405B runs of
			// these rows, userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192
			// and its h16384 tp8 cp2 sibling)
			if l.SequenceParallel {
				l.TPOverlap = true
				r.Defaults = append(r.Defaults, "tp_comm_overlap=true (NeMo performance recipes: Transformer Engine userbuffers with sequence parallelism)")
			}
		default:
			return nil, bad(line, "sequence_parallel", "%q (valid: yes, no, ?)", v)
		}
		switch v := get("optimizer_sharding"); v {
		case "?":
			l.Sharding = parallel.ShardZeRO1
			r.Defaults = append(r.Defaults, "optimizer_sharding=distributed (NeMo recipes: distributed fused Adam)")
		default:
			if l.Sharding, err = parallel.ParseSharding(v); err != nil {
				return nil, bad(line, "optimizer_sharding", "%v", err)
			}
		}
		switch v := get("recompute"); v {
		case "?":
			l.Recompute = parallel.RecomputeNone
			if r.Model.Name == "gpt-oss-120b" {
				// Megatron-Bridge's GPT-OSS 120B performance
				// configuration (NVIDIA-NeMo/Megatron-Bridge@c8327cf~1
				// scripts/performance/configs/gpt_oss/
				// gpt_oss_workload_base_configs.py,
				// GPT_OSS_120B_PRETRAIN_CONFIG_H100_BF16_V1/V2:
				// recompute_modules ["layernorm", "moe_act"])
				r.RecomputeModules = []string{"layernorm", "moe_act"}
				r.Defaults = append(r.Defaults, "recompute=none with recompute modules layernorm, moe_act (Megatron-Bridge's GPT-OSS 120B H100 performance configuration)")
			} else {
				r.Defaults = append(r.Defaults, "recompute=none (NeMo recipes set no recomputation)")
			}
		default:
			if l.Recompute, err = parallel.ParseRecompute(v); err != nil {
				return nil, bad(line, "recompute", "%v", err)
			}
		}
		// Megatron-Bridge's performance scripts, which ran the rows of
		// its performance summary, keep and reduce the gradients in BF16
		// (NVIDIA-NeMo/Megatron-Bridge@39d02fe scripts/performance/configs/
		// llama/llama3_llm_pretrain.py and gpt_oss/gpt_oss_llm_pretrain.py:
		// mixed_precision and ddp grad_reduce_in_fp32 = False), where
		// NeMo's recipes reduce them in FP32
		if strings.Contains(r.Source, "Megatron-Bridge") && l.Precision != parallel.FP16 {
			r.BF16Grads = true
			r.Defaults = append(r.Defaults, "gradients reduced in BF16 (Megatron-Bridge's performance scripts: grad_reduce_in_fp32=False)")
		}
		if err := l.Validate(); err != nil {
			return nil, bad(line, "", "layout: %v", err)
		}
		// the MoE runs of Megatron-Bridge's performance summary
		// "force-balance the token distribution among experts"
		// (docs/performance-summary-archive.md): random router logits,
		// balanced on average, with the busiest expert rank's excess
		// (llm.RandomRoutingImbalance)
		if r.Model.MoE() && strings.Contains(r.Source, "Megatron-Bridge") && l.EP > 1 {
			imb, err := llm.RandomRoutingImbalance(r.Model.Experts, r.Model.TopK, l.EP, l.MicroBatch*r.Model.Seq/(l.CP*l.TP))
			if err != nil {
				return nil, bad(line, "experts", "%v", err)
			}
			r.Model.Imbalance = imb
			r.Defaults = append(r.Defaults, fmt.Sprintf("expert load %.4f x balanced (force-balanced routing: random router logits, busiest of %d expert ranks)", imb, l.EP))
		}
		if l.GPUs() != r.GPUs {
			return nil, bad(line, "gpus", "%d, but tp*pp*cp*dp = %d", r.GPUs, l.GPUs())
		}
		r.Layout = l
		rows = append(rows, r)
	}
	if tab.Header == nil {
		return nil, fmt.Errorf("%w: %s: no header", ErrValidationFile, path)
	}
	return rows, nil
}

// llmModelOf is the zoo preset whose shape the row's columns give (it
// adds what the columns do not say: head size, flash attention), or a
// model built from the columns: Megatron GPT when the name says so,
// otherwise Llama-style (SwiGLU, GQA, flash attention).
func llmModelOf(name string, layers, hidden, heads, kv, ffn, vocab, experts, topk, seq int) zoo.LLM {
	for _, n := range zoo.LLMNames() {
		p, _ := zoo.LLMByName(n)
		if p.Layers == layers && p.Hidden == hidden && p.Heads == heads && p.KVHeads == kv && p.FFN == ffn &&
			p.Vocab == vocab && p.Experts == experts && p.TopK == topk {
			p.Seq = seq
			return p
		}
	}
	m := zoo.LLM{Name: name, Arch: zoo.ArchLlama, Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv, FFN: ffn, Vocab: vocab,
		Experts: experts, TopK: topk, Seq: seq, Imbalance: 1, FlashAttention: true}
	if strings.Contains(strings.ToLower(name), "gpt (megatron") {
		// Megatron-LM of 2021-22 (Korthikanti et al.): unfused softmax
		m.Arch, m.FlashAttention = zoo.ArchGPT, false
	}
	return m
}

// ValidateLLM simulates every row on its system and layout. A row that
// cannot be simulated is reported with its failure; an out-of-memory
// verdict is reported beside the simulated time.
func ValidateLLM(rows []LLMRow) *LLMValidationSummary {
	s := &LLMValidationSummary{}
	var errs []float64
	for _, r := range rows {
		_, res, err := simulateLLMRow(r)
		out := r.result(res, err)
		s.Rows = append(s.Rows, out)
		if out.Failure != "" {
			continue
		}
		errs = append(errs, math.Abs(out.Error))
		if math.Abs(out.Error) > s.WorstError {
			s.WorstError, s.WorstID = math.Abs(out.Error), r.ID
		}
	}
	if len(errs) > 0 {
		sort.Float64s(errs)
		n := len(errs)
		s.MedianError = errs[n/2]
		if n%2 == 0 {
			s.MedianError = (errs[n/2-1] + errs[n/2]) / 2
		}
	}
	return s
}

// simulateLLMRow simulates row r's job once and returns the job with its
// result, for ValidateLLM's line and ExplainLLM's breakdown alike.
func simulateLLMRow(r LLMRow) (*llm.Job, *llm.Result, error) {
	j, err := r.job()
	if err != nil {
		return nil, nil, err
	}
	res, err := llm.Simulate(j)
	return j, res, err
}

// result is row r's line of the summary given its simulation (res, or
// the error that stopped it, which becomes the line's Failure).
func (r LLMRow) result(res *llm.Result, err error) LLMRowResult {
	out := LLMRowResult{ID: r.ID, Model: r.ModelName, System: r.System, GPUs: r.GPUs, Layout: r.Layout.String(), Measured: r.Measured, Unit: r.Unit, Defaults: r.Defaults}
	if err != nil {
		out.Failure = err.Error()
		return out
	}
	out.MFU, out.PeakMemory = res.MFU, res.PeakMemory
	if res.OOM != nil {
		out.OOM = res.OOM.Err.Error()
	}
	switch r.Unit {
	case "s/iteration":
		out.Simulated = res.IterationTime
		out.Error = r.Measured/res.IterationTime - 1
	default:
		out.Simulated = res.TokensPerSecPerGPU
		out.Error = res.TokensPerSecPerGPU/r.Measured - 1
	}
	return out
}

// job is the large-model job row r describes, the one ValidateLLM
// simulates and ExplainLLM takes apart.
func (r LLMRow) job() (*llm.Job, error) {
	c, err := llm.System(r.System, r.GPUs)
	if err != nil {
		return nil, err
	}
	return &llm.Job{Model: r.Model, Layout: r.Layout, Cluster: c, RecomputeModules: r.RecomputeModules, BF16Grads: r.BF16Grads}, nil
}

// LLMExplanation takes one row of a large-model validation file apart:
// its result, the exposed communication per kind, and every kernel of a
// layer, the embedding and the head on pipeline rank 0's representative
// (one micro-batch), with the modelled mechanisms' share.
type LLMExplanation struct {
	Row LLMRowResult `json:"row"`
	// IterationTime in seconds; Bubble the largest rank's idle fraction;
	// Exposed the communication the slowest rank waited for, by kind.
	IterationTime float64            `json:"iterationTime"`
	Bubble        float64            `json:"bubble"`
	Exposed       map[string]float64 `json:"exposed"`
	// Layers is the transformer layers per pipeline rank, MicroBatches
	// the micro-batches each pipeline runs per iteration.
	Layers       []int `json:"layers"`
	MicroBatches int   `json:"microBatches"`
	// Ops are the kernels (seconds per micro-batch on one GPU).
	Ops []llm.OpCost `json:"ops"`
	// Mechanisms sums each mechanism's added time over an iteration of
	// the pipeline rank holding the most layers (its layers' ops times
	// the micro-batches), in seconds.
	Mechanisms map[string]float64 `json:"mechanisms"`
	// Optimizer is the slowest rank's optimizer step in seconds.
	Optimizer float64 `json:"optimizer"`
}

// ExplainLLM simulates the row with the given id alone and takes it
// apart; an unknown id is an error listing the valid ones.
func ExplainLLM(rows []LLMRow, id string) (*LLMExplanation, error) {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
		if r.ID != id {
			continue
		}
		j, res, err := simulateLLMRow(r) // once: the row's line and the breakdown below read the same result
		out := &LLMExplanation{Row: r.result(res, err), MicroBatches: r.Layout.MicroBatches(), Mechanisms: map[string]float64{}}
		if out.Row.Failure != "" {
			return out, nil
		}
		out.IterationTime, out.Bubble, out.Exposed = res.IterationTime, res.Bubble, res.ExposedByKind()
		out.Layers = make([]int, r.Layout.PP)
		for k, n := range res.Stages {
			out.Layers[k%r.Layout.PP] += n
		}
		most := 0
		for _, n := range out.Layers {
			most = max(most, n)
		}
		if out.Ops, err = llm.OpCosts(j); err != nil {
			return nil, err
		}
		for _, rr := range res.Ranks {
			out.Optimizer = max(out.Optimizer, rr.Optimizer)
		}
		meta, err := llm.DispatchMetadataOf(j)
		if err != nil {
			return nil, err
		}
		if meta > 0 {
			// every layer of an MoE model has experts
			out.Mechanisms["dispatcher metadata"] = meta * float64(most*out.MicroBatches)
		}
		for _, op := range out.Ops {
			if op.Part != "attention" && op.Part != "mlp" {
				continue
			}
			if op.Recomputed {
				out.Mechanisms["recompute modules"] += op.Forward * float64(most*out.MicroBatches)
			}
			if op.Mechanism != "" {
				out.Mechanisms[op.Mechanism] += op.Extra * float64(most*out.MicroBatches)
			}
		}
		return out, nil
	}
	return nil, fieldErr("explain", fmt.Errorf("%q: no such row id (valid: %s)", id, strings.Join(ids, ", ")))
}
