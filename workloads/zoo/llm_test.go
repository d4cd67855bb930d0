package zoo

import (
	"math"
	"strings"
	"testing"
)

// closedFormTol is the tolerance of the published closed forms, which
// count matrix products only where the zoo's ops also count the small
// elementwise work (0.5 %, as issue 25 asks).
const closedFormTol = 0.005

func relErr(got, want float64) float64 { return math.Abs(got/want - 1) }

// NVIDIA's benchmark README for Llama 3.1 (NVIDIA/dgxc-benchmarking,
// llama3.1/README.md) gives 4.74e14 model FLOPs per 8,192-token sequence
// of Llama 3.1 8B (forward and backward, full attention matrix).
func TestLlama8BModelFLOPs(t *testing.T) {
	m, err := LLMByName("llama3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ModelFLOPsPerSequence(); relErr(got, 4.74e14) > closedFormTol {
		t.Fatalf("model FLOPs per sequence %.4g, want 4.74e14 within %.1f %%", got, 100*closedFormTol)
	}
}

// Narayanan et al. SC'21, appendix "Floating-point operations": with full
// activation recomputation a GPT iteration does
// 96·B·s·l·h²·(1 + s/6h + V/16lh) FLOPs.
func TestGPT3FullRecomputeFLOPs(t *testing.T) {
	m, err := LLMByName("gpt3-175b")
	if err != nil {
		t.Fatal(err)
	}
	const B = 1536 // the paper's batch for 175B (Table 1)
	s, l, h, V := float64(m.Seq), float64(m.Layers), float64(m.Hidden), float64(m.Vocab)
	want := 96 * B * s * l * h * h * (1 + s/(6*h) + V/(16*l*h))
	got := B * m.TrainingFLOPsPerSequence("full")
	if relErr(got, want) > closedFormTol {
		t.Fatalf("training FLOPs %.6g, want %.6g within %.1f %% (error %.3f %%)", got, want, 100*closedFormTol, 100*relErr(got, want))
	}
	// without recomputation the same count is 72·B·s·l·h²·(1 + s/6h + V/12lh)
	want72 := 72 * B * s * l * h * h * (1 + s/(6*h) + V/(12*l*h))
	if got := B * m.ModelFLOPsPerSequence(); relErr(got, want72) > closedFormTol {
		t.Fatalf("model FLOPs %.6g, want %.6g", got, want72)
	}
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", section 4 (Table 2): activation bytes per layer
// with tensor parallelism t.
func TestGPT3ActivationBytesKorthikanti(t *testing.T) {
	m, err := LLMByName("gpt3-175b")
	if err != nil {
		t.Fatal(err)
	}
	const tp, b = 8, 2
	s, h, a := int64(m.Seq), int64(m.Hidden), int64(m.Heads)
	sbh := s * b * h
	as2b := a * s * s * b
	for _, c := range []struct {
		name, rec string
		sp        bool
		want      int64
	}{
		// sbh(10 + 24/t + 5as/(ht))
		{"none", "none", false, 10*sbh + 24*sbh/tp + 5*as2b/tp},
		// sbh/t (34 + 5as/h)
		{"none+sp", "none", true, 34*sbh/tp + 5*as2b/tp},
		// sbh(10 + 24/t)
		{"selective", "selective", false, 10*sbh + 24*sbh/tp},
		// 34 sbh/t
		{"selective+sp", "selective", true, 34 * sbh / tp},
		// 2sbh
		{"full", "full", false, 2 * sbh},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := m.ActivationBytesPerLayer(Shard{TP: tp, CP: 1, EP: 1, SP: c.sp, MicroBatch: b, ActBytes: 2}, c.rec)
			if got != c.want {
				t.Fatalf("activation bytes per layer %d, want %d (Korthikanti et al. 2022 section 4)", got, c.want)
			}
		})
	}
}

// Parameter counts of the presets against their published sizes.
func TestLLMParamCounts(t *testing.T) {
	for name, want := range map[string]float64{
		"llama3.1-8b":   8.03e9,  // Hugging Face model card: 8.03B
		"llama3.1-70b":  70.6e9,  // 70.6B
		"llama3.1-405b": 405.9e9, // 405.9B (Llama 3 paper, 405B)
		"gpt3-175b":     174.6e9, // Narayanan et al. SC'21 Table 1: 174.6B (vocab 51200)
		"mixtral-8x7b":  46.7e9,  // Jiang et al. 2024: 46.7B (total)
		// OpenAI gpt-oss model card (2025), Table 1: 116.83B total; the
		// count holds only with the sinks and the linear biases
		"gpt-oss-120b": 116.83e9,
	} {
		m, err := LLMByName(name)
		if err != nil {
			t.Fatal(err)
		}
		tol := 0.01
		if name == "gpt-oss-120b" {
			tol = 1e-4 // the card gives five digits
		}
		if got := float64(m.ParamCount()); relErr(got, want) > tol {
			t.Errorf("%s: %.6g parameters, want %.6g within %g", name, got, want, tol)
		}
	}
}

func TestParseLLMErrors(t *testing.T) {
	if m, err := ParseLLM("zoo:llama3.1-8b?seq=4096&layers=4"); err != nil || m.Seq != 4096 || m.Layers != 4 {
		t.Fatalf("%+v %v", m, err)
	}
	for spec, field := range map[string]string{
		"zoo:llama9":                      "llama9",
		"zoo:llama3.1-8b?kv_heads=5":      "kv_heads",
		"zoo:llama3.1-8b?seq=0":           "seq",
		"zoo:mixtral-8x7b?imbalance=0.5":  "imbalance",
		"zoo:mixtral-8x7b?top_k=9":        "top_k",
		"zoo:llama3.1-8b?colour=red":      "colour",
		"zoo:llama3.1-8b?imbalance=2":     "imbalance",
		"zoo:llama3.1-8b?window=9000":     "window",
		"zoo:llama3.1-8b?window_skip=2":   "window_skip",
		"zoo:gpt-oss-120b?window_skip=-1": "window_skip",
	} {
		_, err := ParseLLM(spec)
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v does not name %s", spec, err, field)
		}
	}
}

// The sliding window's share of the score matrix: a window as long as the
// sequence is the causal kernel, and GPT-OSS's 128-token window at 4096
// tokens visits the diagonal block and the one before it in each of the
// 32 block rows (63 of 1024 blocks), counted here block by block.
func TestWindowFraction(t *testing.T) {
	const tol = 1e-12
	for _, seq := range []int{128, 2048, 4096, 5000} {
		if got, want := windowFraction(seq, seq), causalFraction(seq); math.Abs(got-want) > tol {
			t.Errorf("seq %d: window = seq gives %g, causal %g", seq, got, want)
		}
	}
	n, wb := 32, 2
	var visited int
	for q := 0; q < n; q++ {
		for k := 0; k <= q; k++ {
			if q-k < wb {
				visited++
			}
		}
	}
	if got, want := windowFraction(4096, 128), float64(visited)/float64(n*n); math.Abs(got-want) > tol || visited != 63 {
		t.Errorf("window 128 of 4096: %g, want %d/1024", got, visited)
	}
	// GPT-OSS alternates windowed and full layers: its attention core
	// executes the mean of the two
	m, _ := LLMByName("gpt-oss-120b")
	if f := m.WindowedFraction(); f != 0.5 {
		t.Fatalf("gpt-oss-120b windowed fraction %g, want 0.5", f)
	}
	dense := m
	dense.Window, dense.WindowSkip = 0, 0
	core := func(m LLM) LLMOp {
		for _, op := range m.Ops(PartAttention, one(2)) {
			if op.Name == "flash-attention" {
				return op
			}
		}
		t.Fatal("no flash-attention op")
		return LLMOp{}
	}
	w, d := core(m), core(dense)
	want := d.FwdFLOPs * (0.5*windowFraction(4096, 128)/causalFraction(4096) + 0.5)
	if math.Abs(w.FwdFLOPs-want) > 1e-9*want {
		t.Errorf("windowed attention %g FLOPs, want %g", w.FwdFLOPs, want)
	}
	if wantModel := d.ModelFLOPs * (0.5*128.0/4096 + 0.5); math.Abs(w.ModelFLOPs-wantModel) > 1e-9*wantModel {
		t.Errorf("windowed model FLOPs %g, want %g", w.ModelFLOPs, wantModel)
	}
}

// The decoder-only presets as zoo graphs: every parameter of the model
// (LLM.ParamCount, at the graph's FP32 parameters) sits on some op, and
// the graph's forward FLOPs are the large-model simulator's (LLM.Ops on
// one GPU) for the same layers and sequence.
func TestLLMGraphs(t *testing.T) {
	for _, name := range LLMNames() {
		t.Run(name, func(t *testing.T) {
			spec := "zoo:" + name + "?layers=2&seq=512&batch=2"
			g, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseLLM("zoo:" + name + "?layers=2&seq=512")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := g.ParamBytes(), 4*m.ParamCount(); got != want {
				t.Errorf("graph parameters %d bytes, want 4 x %d", got, m.ParamCount())
			}
			sh := Shard{TP: 1, CP: 1, EP: 1, MicroBatch: 2, ActBytes: 2}
			var want float64
			for _, p := range []Part{PartEmbedding, PartAttention, PartMLP, PartHead} {
				times := 1.0
				if p == PartAttention || p == PartMLP {
					times = float64(m.Layers)
				}
				for _, op := range m.Ops(p, sh) {
					want += times * op.FwdFLOPs
				}
			}
			var got float64
			for _, op := range g.Ops {
				got += op.FLOPs
			}
			if m.Arch == ArchGPT {
				// the position add of the embedding block (one FLOP
				// per element) is the graph's own
				got -= float64(2 * 512 * m.Hidden)
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("graph forward %g FLOPs, simulator %g", got, want)
			}
		})
	}
	if _, err := Build("zoo:llama3.1-8b?layers=0"); err == nil || !strings.Contains(err.Error(), "layers") {
		t.Errorf("layers=0: %v", err)
	}
}
