package study_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers/builtin"
	"placesim/study"
)

// TestExplainInputPipeline: p003 (ResNet-50 on a DGX A100's 8 GPUs,
// program dle-convnets) carries its input pipeline: 16 workers per GPU
// on 128/8 - 1 = 15 cores per rank at the EPYC 7742's 2.25 GHz base,
// simulated at the cited cost (5.19 ms an image at 2.25 GHz: 256 x that
// / 15 = 88.5 ms a batch, shorter than the row's step, so nothing
// exposed and no input-wait part), its break-even the row's step x 15 /
// 256 images; p039 (fairseq) has no input pipeline.
func TestExplainInputPipeline(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	rows, err := study.ReadValidation("../validation/published.tsv")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := builtin.NewRegistry()
	e, err := study.Explain(context.Background(), reg, rows, "p003", "../validation")
	if err != nil {
		t.Fatal(err)
	}
	in := e.Row.Input
	if in == nil {
		t.Fatal("p003: no input pipeline")
	}
	if in.Workers != 16 || in.Cores != 15 || in.ClockGHz != 2.25 || !in.Modelled || in.Exposed != 0 {
		t.Errorf("p003: %d workers on %d cores at %g GHz, modelled %v, exposed %g; want 16 on 15 at 2.25, true, 0", in.Workers, in.Cores, in.ClockGHz, in.Modelled, in.Exposed)
	}
	// the cited stages in closed form (study.dleConvNetsInput)
	cost := (1/410.01)*3.35/2.25 + (72e-6+554e-6+52e-6+51e-6)*4.8/2.25
	if !scalar.EqualWithinRel(in.PerBatch, 256*cost/15, tol) {
		t.Errorf("p003: %g s per batch, want 256 x %g s / 15 = %g", in.PerBatch, cost, 256*cost/15)
	}
	// its main process runs at the workers' all-core base clock: the host
	// work measured for one GPU at the 3.4 GHz boost takes 3.4 / 2.25 as
	// long; p001 (one GPU) takes it as measured
	if h := e.Row.Host; h == nil || !scalar.EqualWithinRel(h.HostScale, 3.4/2.25, tol) {
		t.Errorf("p003: host %+v, want its host work x %g", h, 3.4/2.25)
	}
	step := 2048 / e.Row.Simulated // the row's step: 8 x 256 images
	if !scalar.EqualWithinRel(in.BreakEven, step*15/256, tol) {
		t.Errorf("p003: break-even %g s per image, want the step %g s x 15 / 256 = %g", in.BreakEven, step, step*15/256)
	}
	for _, p := range e.Parts {
		if p.Part == "input-wait" {
			t.Errorf("p003: input-wait %g s behind a step longer than the input", p.Seconds)
		}
	}
	f, err := study.Explain(context.Background(), reg, rows, "p039", "../validation")
	if err != nil {
		t.Fatal(err)
	}
	if f.Row.Input != nil {
		t.Errorf("p039 (fairseq): input pipeline %+v, want none", f.Row.Input)
	}
}

// TestInputPipelineWhatIf: with a what-if cost of 10 ms per image at the
// EPYC 7742's 3.4 GHz boost, p001 (one A100, 256 images, about 106 ms a
// step) is input-bound: 16 workers on 16 cores deliver 16 / 10 ms = 1600
// images/s, which is the row's simulated throughput; the explanation's
// input-wait part is the input's 160 ms less the GPU step, and the parts
// still sum to the iteration.
func TestInputPipelineWhatIf(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	rows, err := study.ReadValidation("../validation/published.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].InputCost = &study.InputCost{PerImage: 10e-3, GHz: 3.4}
	}
	reg, _ := builtin.NewRegistry()
	e, err := study.Explain(context.Background(), reg, rows, "p001", "../validation")
	if err != nil {
		t.Fatal(err)
	}
	in := e.Row.Input
	if in == nil || !in.Modelled {
		t.Fatalf("p001: input %+v, want one modelled", in)
	}
	if h := e.Row.Host; h == nil || h.HostScale != 1 {
		t.Errorf("p001: host %+v, want its host work as measured (x 1)", h)
	}
	if !scalar.EqualWithinRel(e.Row.Simulated, 1600, tol) || !scalar.EqualWithinRel(in.PerBatch, 0.16, tol) {
		t.Errorf("p001: %g images/s, %g s per batch; want 1600 and 0.16", e.Row.Simulated, in.PerBatch)
	}
	var sum, wait float64
	for _, p := range e.Parts {
		sum += p.Seconds
		if p.Part == "input-wait" {
			wait = p.Seconds
		}
	}
	if !(wait > 0) || !scalar.EqualWithinRel(wait, in.Exposed, tol) || !scalar.EqualWithinRel(sum, e.StepTime, tol) || !scalar.EqualWithinRel(e.StepTime, 0.16, 1e-6) {
		t.Errorf("p001: input-wait %g s (exposed %g), parts %g s, iteration %g s; want the exposed wait and parts summing to the 0.16 s iteration", wait, in.Exposed, sum, e.StepTime)
	}
}
