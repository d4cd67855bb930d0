package study_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/study"
	"placesim/workloads/zoo"
)

// TestValidateTokenMix: a Transformer row on fairseq's token batches of
// the WMT16 lengths is the parts' expectation: on one GPU its tokens/s is
// sum w_l s(l) l over sum w_l T_l, T_l = s(l) l over the part's own
// tokens/s (each part validated as a row of its own); on 8 GPUs the
// mean step is sum w_l 8 s(l) l / throughput_l and the step adds the
// slowest GPU's batch (TokenMix.Slowest > 0), tokens over the step.
func TestValidateTokenMix(t *testing.T) {
	t.Parallel()
	const spec = "zoo:transformer?layers=1&hidden=128&heads=2&ff=256&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560"
	for _, gpus := range []int{1, 8} {
		cl := "1xV100"
		if gpus > 1 {
			cl = "8xV100-nvlink"
		}
		mix, err := zoo.TokenMixOf(spec+"&precision=fp32&framework=pytorch", gpus)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(validationHeader)
		fmt.Fprintf(&b, "mix\t%s\t%s\t%d\tfp32\tpytorch\t1000\ttokens/s\t1\tsrc\t\n", spec, cl, gpus)
		for i, p := range mix.Parts {
			fmt.Fprintf(&b, "p%d\t%s\t%s\t%d\tfp32\tpytorch\t1000\ttokens/s\t%d\tsrc\t\n", i, p.Spec, cl, gpus, p.Seq)
		}
		s := validateText(t, b.String())
		var tokens, step float64
		for i, p := range mix.Parts {
			r := s.Rows[i+1]
			if r.Failure != "" || !(r.Simulated > 0) {
				t.Fatalf("part %s: %+v", p.Spec, r)
			}
			n := float64(gpus * p.Sentences * p.Seq)
			tokens += p.Weight * float64(gpus*p.Tokens())
			step += p.Weight * n / r.Simulated
		}
		got := s.Rows[0]
		tm := got.TokenMix
		if got.Failure != "" || tm == nil {
			t.Fatalf("%d GPUs: mix row %+v", gpus, got)
		}
		if !scalar.EqualWithinAbsOrRel(tm.Tokens, tokens, 0, mixTol) || !scalar.EqualWithinAbsOrRel(tm.Mean, step, 0, mixTol) {
			t.Errorf("%d GPUs: tokens %g mean step %g, want %g and %g", gpus, tm.Tokens, tm.Mean, tokens, step)
		}
		if want := tm.Tokens / (tm.Mean + tm.Slowest); !scalar.EqualWithinAbsOrRel(got.Simulated, want, 0, mixTol) {
			t.Errorf("%d GPUs: simulated %g, want tokens / (mean + slowest) = %g", gpus, got.Simulated, want)
		}
		if gpus == 1 && tm.Slowest != 0 || gpus > 1 && !(tm.Slowest > 0 && tm.Slowest < tm.Compute) {
			t.Errorf("%d GPUs: slowest batch %g of compute %g: want 0 on one GPU, in (0, compute) on 8", gpus, tm.Slowest, tm.Compute)
		}
		if m := got.LengthMix; m == nil || m.Parts != len(mix.Parts) || !strings.Contains(m.Explained, "seq=") {
			t.Errorf("%d GPUs: length mix %+v", gpus, m)
		}
	}
}

// TestStatsTokenMix: stats of a Transformer on fairseq's token batches
// reports a GPU's batch as the mix's expectation over the batches (the
// parts hold different numbers of sentences): sum w_l s(l) sentences,
// rounded into the header's batch, and sum w_l s(l) l tokens, which no
// batch takes past its max-tokens; the first part's batch (the shortest
// sentences, the most of them) is not the mix's.
func TestStatsTokenMix(t *testing.T) {
	t.Parallel()
	const spec = "zoo:transformer?layers=1&hidden=128&heads=2&ff=256&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560"
	mix, err := zoo.TokenMixOf(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	var sentences, tokens, counted float64
	for _, p := range mix.Parts {
		sentences += p.Weight * float64(p.Sentences)
		tokens += p.Weight * float64(p.Sentences*p.Seq)
		counted += p.Weight * float64(p.Tokens())
	}
	s, err := study.Stats(study.StatsRequest{Inputs: study.Inputs{Workload: spec}})
	if err != nil {
		t.Fatal(err)
	}
	m := s.LengthMix
	if m == nil || m.MaxTokens != 2560 {
		t.Fatalf("length mix %+v, want max-tokens 2560", m)
	}
	if !scalar.EqualWithinAbsOrRel(m.MeanBatch, sentences, 0, 1e-9) || !scalar.EqualWithinAbsOrRel(m.MeanBatchTokens, tokens, 0, 1e-9) ||
		!scalar.EqualWithinAbsOrRel(m.MeanCountedTokens, counted, 0, 1e-9) || !(counted < tokens) || m.Ratio != zoo.RatioGaleChurch {
		t.Errorf("mean batch %g sentences, %g tokens, %g counted, ratio %q; want %g, %g and %g (fewer than the padded), gale-church", m.MeanBatch, m.MeanBatchTokens, m.MeanCountedTokens, m.Ratio, sentences, tokens, counted)
	}
	if s.Batch != int(math.Round(sentences)) || s.Batch == mix.Parts[0].Sentences {
		t.Errorf("batch %d, want %d (the first part's is %d)", s.Batch, int(math.Round(sentences)), mix.Parts[0].Sentences)
	}
	if !(tokens <= 2560 && tokens > 2560*0.8) {
		t.Errorf("%g tokens a batch, want at most max-tokens 2560 and most of it", tokens)
	}
}

// TestValidateTokenMixFailure: a token-mix row whose batches do not fit
// (a model of 24 layers of width 8192 on a 16 GB V100: out of memory at
// every length) fails, naming the first part in the mix's order, the same
// on every run, though the parts are simulated concurrently.
func TestValidateTokenMixFailure(t *testing.T) {
	t.Parallel()
	const spec = "zoo:transformer?layers=24&hidden=8192&heads=64&ff=32768&vocab=33708&training=true&lengths=wmt16-en-de&max-tokens=2560"
	mix, err := zoo.TokenMixOf(spec+"&precision=fp32&framework=pytorch", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("batches of %d-token sentences (%d a GPU", mix.Parts[0].Seq, mix.Parts[0].Sentences)
	for range 3 {
		s := validateText(t, validationHeader+fmt.Sprintf("big\t%s\t1xV100\t1\tfp32\tpytorch\t1000\ttokens/s\t1\tsrc\t\n", spec))
		r := s.Rows[0]
		if !strings.HasPrefix(r.Failure, want) || !strings.Contains(r.Failure, "memory") {
			t.Fatalf("failure %q, want it to start %q and name the memory", r.Failure, want)
		}
	}
}
