package study

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
)

// testPipeline is a pipeline on a made-up 2 x 8-core server (base 2 GHz,
// boost 3 GHz), 6 workers per GPU, 5 ms of CPU per image at 3 GHz.
func testPipeline() InputPipeline {
	return InputPipeline{Backend: "pytorch", Prefetch: 2, CostPerImage: 5e-3, ReferenceGHz: 3,
		Platforms: []InputPlatform{{Name: "test", GPUPrefix: "A100", WorkersPerGPU: 6,
			CPU: devices.HostCPU{Name: "test CPU", Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 2, BaseGHz: 2, BoostGHz: 3}}}}
}

// TestInputPipelineTime: the input time per batch in closed form, batch x
// cost x (reference clock / clock) / min(workers, cores/n - 1): one GPU's
// 6 workers on 6 cores at the 3 GHz boost; four GPUs' on 16/4 - 1 = 3
// cores each at the 2 GHz base; the break-even cost is the GPU step x
// cores / batch.
func TestInputPipelineTime(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	p := testPipeline()
	for _, c := range []struct {
		n, cores int
		clock    float64
	}{{1, 6, 3}, {4, 3, 2}} {
		const batch, step = 32, 1.0 // a slow GPU: nothing exposed
		in, err := p.Time("A100-80GB", c.n, batch, step)
		if err != nil {
			t.Fatal(err)
		}
		want := batch * 5e-3 * (3 / c.clock) / float64(c.cores)
		if in.Cores != c.cores || in.ClockGHz != c.clock || in.Workers != 6 || !in.Modelled {
			t.Errorf("%d GPUs: cores %d at %g GHz, %d workers, modelled %v; want %d at %g GHz, 6, true", c.n, in.Cores, in.ClockGHz, in.Workers, in.Modelled, c.cores, c.clock)
		}
		if !scalar.EqualWithinRel(in.PerBatch, want, tol) {
			t.Errorf("%d GPUs: %g s per batch, want %g", c.n, in.PerBatch, want)
		}
		if !scalar.EqualWithinRel(in.BreakEven, step*float64(c.cores)/batch, tol) {
			t.Errorf("%d GPUs: break-even %g s, want %g", c.n, in.BreakEven, step*float64(c.cores)/batch)
		}
		if in.Exposed != 0 {
			t.Errorf("%d GPUs: %g s exposed behind a %g s GPU step longer than the %g s input", c.n, in.Exposed, step, in.PerBatch)
		}
	}
}

// TestInputPipelineStall: a slow GPU hides the input, a fast one waits for
// it (input - GPU step), and the same fast GPU waits longer with four
// GPUs sharing the server's cores at the base clock than alone.
func TestInputPipelineStall(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	p := testPipeline()
	const batch = 32
	one, err := p.Time("A100-40GB", 1, batch, 1)
	if err != nil {
		t.Fatal(err)
	}
	slow := one.PerBatch * 1.5
	fast := one.PerBatch * 0.5
	in, err := p.Time("A100-40GB", 1, batch, slow)
	if err != nil {
		t.Fatal(err)
	}
	if in.Exposed != 0 {
		t.Errorf("slow GPU (%g s step, %g s input): %g s exposed, want 0", slow, in.PerBatch, in.Exposed)
	}
	in, err = p.Time("A100-40GB", 1, batch, fast)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(in.Exposed, in.PerBatch-fast, tol) || !(in.Exposed > 0) {
		t.Errorf("fast GPU (%g s step, %g s input): %g s exposed, want %g", fast, in.PerBatch, in.Exposed, in.PerBatch-fast)
	}
	four, err := p.Time("A100-40GB", 4, batch, fast)
	if err != nil {
		t.Fatal(err)
	}
	if !(four.Exposed > in.Exposed) {
		t.Errorf("four GPUs: %g s exposed, one GPU %g s: sharing the cores at the base clock should expose more", four.Exposed, in.Exposed)
	}
	// without a cited cost nothing is simulated, the break-even stays
	p.CostPerImage = 0
	none, err := p.Time("A100-40GB", 1, batch, fast)
	if err != nil {
		t.Fatal(err)
	}
	if none.Modelled || none.PerBatch != 0 || none.Exposed != 0 || !scalar.EqualWithinRel(none.BreakEven, in.BreakEven, tol) {
		t.Errorf("no cost: modelled %v, %g s per batch, %g s exposed, break-even %g (want false, 0, 0, %g)", none.Modelled, none.PerBatch, none.Exposed, none.BreakEven, in.BreakEven)
	}
}

// TestInputPipelineMainProcessShare: an input-bound rank's workers also
// get its main process's core for the part of the step the main process
// sleeps waiting for the batch. On the test server with four GPUs (16/4 =
// 4 cores a rank, 3 of them the workers' while the main process works),
// 32 images at 7.5 ms (5 ms at 3 GHz, at the 2 GHz base) are 0.24 s of
// CPU a batch: behind a 60 ms GPU step the input takes (0.24 + 0.06) / 4
// = 75 ms (the main process busy 60/75 of it, the workers on 3.2 cores)
// rather than 0.24 / 3 = 80 ms; with 3 workers a rank the workers cannot
// use more than 3 cores and it stays 80 ms; at the break-even (a 80 ms
// step) the two rules agree and nothing is exposed.
func TestInputPipelineMainProcessShare(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	p := testPipeline()
	in, err := p.Time("A100-80GB", 4, 32, 0.06)
	if err != nil {
		t.Fatal(err)
	}
	if in.Cores != 3 || !scalar.EqualWithinRel(in.PerBatch, 0.075, tol) || !scalar.EqualWithinRel(in.Exposed, 0.015, tol) ||
		!scalar.EqualWithinRel(in.MainBusy, 0.8, tol) || !scalar.EqualWithinRel(in.WorkerCores, 3.2, tol) {
		t.Errorf("4 GPUs, 60 ms step: %d cores, %g s a batch, %g s exposed, main busy %g, workers on %g cores; want 3, 0.075, 0.015, 0.8, 3.2",
			in.Cores, in.PerBatch, in.Exposed, in.MainBusy, in.WorkerCores)
	}
	q := testPipeline()
	q.Platforms[0].WorkersPerGPU = 3
	in, err = q.Time("A100-80GB", 4, 32, 0.06)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(in.PerBatch, 0.08, tol) || !scalar.EqualWithinRel(in.WorkerCores, 3, tol) {
		t.Errorf("3 workers: %g s a batch on %g cores, want 0.08 on 3", in.PerBatch, in.WorkerCores)
	}
	in, err = p.Time("A100-80GB", 4, 32, 0.08)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(in.PerBatch, 0.08, tol) || in.Exposed != 0 || in.MainBusy != 0 || in.WorkerCores != 0 {
		t.Errorf("break-even: %g s a batch, %g s exposed, main busy %g, workers %g; want 0.08, 0, 0, 0", in.PerBatch, in.Exposed, in.MainBusy, in.WorkerCores)
	}
	in, err = p.Time("A100-80GB", 4, 32, 0.08*(1-1e-9))
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(in.PerBatch, 0.08, 1e-8) {
		t.Errorf("just below the break-even: %g s a batch, want about 0.08 (the regimes join)", in.PerBatch)
	}
}

// TestInputPipelineErrors: bad settings and rows are errors naming the
// field and its valid range.
func TestInputPipelineErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(*InputPipeline)
		kind string
		n    int
		want string
	}{
		{"unknown GPU", nil, "H100-80GB", 1, "valid: test (A100)"},
		{"too many GPUs", nil, "A100-80GB", 9, "leave a rank no core"},
		{"no workers", func(p *InputPipeline) { p.Platforms[0].WorkersPerGPU = 0 }, "A100-80GB", 1, "workers per GPU (valid range: >= 1)"},
		{"negative cost", func(p *InputPipeline) { p.CostPerImage = -1 }, "A100-80GB", 1, "cost per image"},
		{"no reference clock", func(p *InputPipeline) { p.ReferenceGHz = 0 }, "A100-80GB", 1, "reference clock"},
		{"boost below base", func(p *InputPipeline) { p.Platforms[0].CPU.BoostGHz = 1 }, "A100-80GB", 1, "boost >= base"},
	} {
		p := testPipeline()
		if c.edit != nil {
			c.edit(&p)
		}
		_, err := p.Time(c.kind, c.n, 32, 0.1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// dleCost is the ConvNets pipeline's cited CPU time per image on one core
// at clock GHz in closed form: Pillow's read, decode and RGB conversion
// at 410.01 images/s on an EPYC 7702 at its 3.35 GHz boost, and the crop
// (72 us), resize (554 us), flip (52 us) and tensor copy (51 us) on a
// Ryzen 9 5900X at its 4.8 GHz boost, each scaled by the clock.
func dleCost(clock float64) float64 {
	return (1/410.01)*3.35/clock + (72e-6+554e-6+52e-6+51e-6)*4.8/clock
}

// TestDLEConvNetsInput: the ConvNets program's pipeline as configs.yml at
// the results' release sets it: 16 workers per A100 on the DGX A100's 128
// cores (15 per rank with 8 ranks, at the 2.25 GHz base), 8 per V100 on
// the DGX-1's 40 (4 per rank with 8 ranks; 8 at the 3.6 GHz turbo alone),
// simulated at the cited cost per image: behind a 0.1 s GPU step the input
// per batch is 256 x dleCost(clock) / cores and the GPU waits for what
// exceeds the step; where that input is the longer and the main
// process's core binds, the workers also get that core while the main
// process waits for the batch (8 DGX-1 ranks: (256 x 5.30 ms + 0.1 s) /
// 5 = 292 ms rather than 256 x 5.30 ms / 4 = 340 ms, 192 ms exposed; the
// DGX A100's 8: 88.5 ms, none).
func TestDLEConvNetsInput(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	p := HostPrograms["dle-convnets"].Input
	if p == nil {
		t.Fatal("dle-convnets has no input pipeline")
	}
	for _, c := range []struct {
		kind           string
		n, workers, co int
		clock          float64
	}{{"A100-80GB", 8, 16, 15, 2.25}, {"A100-80GB", 1, 16, 16, 3.4}, {"V100-16GB", 8, 8, 4, 2.2}, {"V100-32GB", 1, 8, 8, 3.6}} {
		const batch, step = 256, 0.1
		in, err := p.Time(c.kind, c.n, batch, step)
		if err != nil {
			t.Fatal(err)
		}
		if in.Workers != c.workers || in.Cores != c.co || in.ClockGHz != c.clock || !in.Modelled {
			t.Errorf("%s x%d: %d workers on %d cores at %g GHz, modelled %v; want %d on %d at %g, true", c.kind, c.n, in.Workers, in.Cores, in.ClockGHz, in.Modelled, c.workers, c.co, c.clock)
		}
		work := batch * dleCost(c.clock)
		per := work / float64(c.co)
		if per > step && c.workers > c.co {
			per = max(work/float64(c.workers), (work+step)/float64(c.co+1))
		}
		if !scalar.EqualWithinRel(in.PerImage, dleCost(c.clock), tol) || !scalar.EqualWithinRel(in.PerBatch, per, tol) ||
			!scalar.EqualWithinAbsOrRel(in.Exposed, max(0, per-step), tol, tol) {
			t.Errorf("%s x%d: %g s per image, %g s per batch, %g s exposed; want %g, %g, %g", c.kind, c.n, in.PerImage, in.PerBatch, in.Exposed, dleCost(c.clock), per, max(0, per-step))
		}
		if len(in.Stages) != len(p.Stages) {
			t.Errorf("%s x%d: %d stages shown, want %d", c.kind, c.n, len(in.Stages), len(p.Stages))
		}
	}
}

// TestInputPipelineStages: a pipeline of two cited stages measured at
// different clocks costs their sum, each scaled from its own clock: 4 ms
// at 4 GHz and 1 ms at 2 GHz are, on the test server's 3 GHz boost,
// 4 x 4/3 + 1 x 2/3 = 6 ms; one GPU's 6 workers on
// 6 cores take 32 x 6 ms / 6 = 32 ms a batch, 12 ms more than a 20 ms
// GPU step; a what-if CostPerImage replaces the stages.
func TestInputPipelineStages(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	p := testPipeline()
	p.CostPerImage, p.ReferenceGHz = 0, 0
	p.Stages = []InputStage{{Name: "decode", Seconds: 4e-3, GHz: 4, Source: "test"}, {Name: "resize", Seconds: 1e-3, GHz: 2, Source: "test"}}
	in, err := p.Time("A100-80GB", 1, 32, 0.020)
	if err != nil {
		t.Fatal(err)
	}
	if !in.Modelled || !scalar.EqualWithinRel(in.PerImage, 6e-3, tol) || !scalar.EqualWithinRel(in.PerBatch, 0.032, tol) || !scalar.EqualWithinRel(in.Exposed, 0.012, tol) {
		t.Errorf("stages: modelled %v, %g s per image, %g s per batch, %g s exposed; want true, 0.006, 0.032, 0.012", in.Modelled, in.PerImage, in.PerBatch, in.Exposed)
	}
	if len(in.Stages) != 2 || !scalar.EqualWithinRel(in.Stages[0].AtClock, 4e-3*4/3, tol) || !scalar.EqualWithinRel(in.Stages[1].AtClock, 1e-3*2/3, tol) {
		t.Errorf("stages at 3 GHz: %+v, want 5.33 ms and 0.67 ms", in.Stages)
	}
	p.CostPerImage, p.ReferenceGHz = 3e-3, 3
	in, err = p.Time("A100-80GB", 1, 32, 0.020)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(in.PerImage, 3e-3, tol) || len(in.Stages) != 0 {
		t.Errorf("what-if over stages: %g s per image, %d stages; want 0.003 and none", in.PerImage, len(in.Stages))
	}
	for _, bad := range []InputStage{{Name: "no clock", Seconds: 1e-3, Source: "x"}, {Name: "no time", GHz: 3, Source: "x"}, {Name: "no source", Seconds: 1e-3, GHz: 3}} {
		q := testPipeline()
		q.Stages = []InputStage{bad}
		if _, err := q.Time("A100-80GB", 1, 32, 0.02); err == nil || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("stage %q: error %v, want one naming it", bad.Name, err)
		}
	}
}

// TestRanksPerServer: a row's ranks share the CPUs of their own server
// only: 16 GPUs on two DGX A100 nodes are 8 per server, so the ConvNets
// pipeline gives each rank min(16 workers, 128/8 - 1 = 15) cores, as on
// one node, not 128/16 - 1 = 7; 8 GPUs of one node are 8 per server.
func TestRanksPerServer(t *testing.T) {
	t.Parallel()
	c, err := devices.NewSystem("dgx-a100-80gb:nodes=2")
	if err != nil {
		t.Fatal(err)
	}
	acc := c.Accelerators()
	if len(acc) != 16 {
		t.Fatalf("%d accelerators, want 16", len(acc))
	}
	for _, tc := range []struct{ n, want int }{{16, 8}, {8, 8}, {12, 8}, {1, 1}} {
		if got := ranksPerServer(c, acc[:tc.n]); got != tc.want {
			t.Errorf("%d GPUs: %d ranks per server, want %d", tc.n, got, tc.want)
		}
	}
	in, err := dleConvNetsInput.Time(c.Devices[acc[0]].Kind.Name, ranksPerServer(c, acc), 256, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if in.Cores != 15 {
		t.Errorf("16 GPUs on 2 DGX A100: %d cores per rank, want 15", in.Cores)
	}
}
