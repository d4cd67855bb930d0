package study_test

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

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
			tokens += p.Weight * n
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
