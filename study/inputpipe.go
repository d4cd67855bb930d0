package study

import (
	"fmt"
	"math"
	"strings"

	"placesim/devices"
)

// InputPipeline is a reference program's CPU input pipeline: DataLoader
// worker processes that read, decode and augment every training image on
// the host while the GPU trains on an earlier batch.
//
// The model (steady state): each of a rank's W workers builds whole
// batches (PyTorch's DataLoader hands a worker a batch's indices and the
// collate function), one image after the other, on one core. A rank's
// workers get min(W, cores/n - 1) cores of the server's `cores` when n
// ranks share it (each rank's main process keeps a core busy issuing
// kernels; less when the input is the longer, below). They run at the CPU's boost clock when one GPU's processes
// are the only busy ones and at its base clock, the datasheets' all-core
// guarantee, when every GPU's are. With a CPU cost of c(clock) seconds
// per image (the sum of the cited Stages, each measured at its own clock
// and scaled by the clock alone: Σ seconds_i x GHz_i / clock; or, as a
// what-if, CostPerImage at ReferenceGHz),
//
//	input per batch = batch x c(clock) / min(W, cores/n - 1)
//
// and, with the DataLoader's prefetch queue (prefetch_factor batches per
// worker) hiding the input whenever it is faster than the GPU, the step
// is max(GPU step, input per batch): the GPU waits
// max(0, input - GPU step) each step.
//
// The main process keeps its core only while it has work: it issues the
// step's kernels and then waits for the GPU in torch.cuda.synchronize()
// (the ConvNets program calls it every step), which spins (CUDA's default
// CU_CTX_SCHED_AUTO spins when the process's contexts are no more than
// the logical processors: CUDA Driver API, cuCtxCreate); it then sleeps
// in the DataLoader's blocking queue get until the next batch is ready.
// When the input is the longer, its core is the workers' for the rest of
// the step T, so a rank's workers get min(W, cores/n - GPU step / T)
// cores and, where the main process's share binds,
//
//	T = max(batch x c / W, (batch x c + GPU step) / (cores/n))
//
// (the fixed point of T = batch x c / (cores/n - GPU step / T); equal to
// the GPU step at the break-even, so the two regimes join; with W <=
// cores/n - 1 it is batch x c / W as before). The clock's two points are
// bounds (the datasheets publish no clock between them), and a per-image
// cost scaled by clock alone ignores what memory and cache sharing add
// when every core is busy, what a second hardware thread adds, and the
// main process's pin-memory thread (pin_memory=True: a copy of each
// batch into page-locked memory).
type InputPipeline struct {
	// Backend is the program's data backend ("pytorch": torchvision
	// ImageFolder decoded and augmented with PIL in DataLoader workers).
	Backend string
	// Source is where the settings are read from.
	Source string
	// Prefetch is the batches each worker keeps ready (DataLoader's
	// prefetch_factor).
	Prefetch int
	// Platforms are the servers the program's configurations name, with
	// their workers per GPU.
	Platforms []InputPlatform
	// Stages are the cited CPU costs of one training image's steps (read
	// and decode, crop and resize, flip, copy into the batch), each on one
	// core at the clock it was measured at; their sum is the cost per
	// image (CostAt). None: no cited figure, the pipeline is described but
	// not simulated.
	Stages []InputStage
	// CostPerImage is a single CPU time per image on one core at
	// ReferenceGHz, in seconds, in place of Stages (`validate
	// --input-cost`, a what-if); 0: none.
	CostPerImage float64
	// ReferenceGHz is the clock CostPerImage was measured at.
	ReferenceGHz float64
	// CostSource is where CostPerImage is from.
	CostSource string
}

// InputStage is one step of the CPU work per training image with its
// published cost.
type InputStage struct {
	// Name says what the step does.
	Name string `json:"name"`
	// Seconds is its CPU time per image on one core at GHz.
	Seconds float64 `json:"seconds"`
	// GHz is the clock of the CPU it was measured on (the datasheet's
	// boost clock: the measurements ran one process on an idle machine).
	GHz float64 `json:"ghz"`
	// CPU is the processor it was measured on.
	CPU string `json:"cpu"`
	// Source is the publication and the figure.
	Source string `json:"source"`
}

// At is the stage's CPU time per image on one core at clock GHz, scaled
// from the clock it was measured at by the clock alone.
func (s InputStage) At(clock float64) float64 { return s.Seconds * s.GHz / clock }

// Modelled reports whether the pipeline has a cost per image to simulate.
func (p *InputPipeline) Modelled() bool { return p.CostPerImage > 0 || len(p.Stages) > 0 }

// CostAt is the CPU time per image on one core at clock GHz: CostPerImage
// scaled from ReferenceGHz when set, else the Stages' costs, each scaled
// from its own clock (0 when neither is given).
func (p *InputPipeline) CostAt(clock float64) float64 {
	if p.CostPerImage > 0 {
		return p.CostPerImage * p.ReferenceGHz / clock
	}
	var c float64
	for _, s := range p.Stages {
		c += s.At(clock)
	}
	return c
}

// costSource names where the cost per image is from.
func (p *InputPipeline) costSource() string {
	if p.CostPerImage > 0 || len(p.Stages) == 0 {
		return p.CostSource
	}
	return "the sum of its stages' published costs, each scaled by the clock"
}

// InputPlatform is one server a program's configuration names.
type InputPlatform struct {
	// Name is the configuration's platform name (DGXA100, DGX1V).
	Name string
	// GPUPrefix selects the platform for a row by its GPU kind's name
	// (the published tables were measured on these servers).
	GPUPrefix string
	// WorkersPerGPU is the DataLoader workers each rank starts.
	WorkersPerGPU int
	// CPU is the server's host processors.
	CPU devices.HostCPU
}

// InputTime is the input pipeline of one row.
type InputTime struct {
	Backend  string `json:"backend"`
	Platform string `json:"platform"`
	CPU      string `json:"cpu"`
	// Workers is the workers per GPU, Cores the cores they get per rank
	// and ClockGHz their clock.
	Workers  int     `json:"workers"`
	Cores    int     `json:"cores"`
	ClockGHz float64 `json:"clockGHz"`
	// Modelled is false when the program has no cited per-image cost:
	// PerImage, PerBatch and Exposed are then 0 and nothing is added to
	// the step.
	Modelled bool `json:"modelled"`
	// PerImage is the CPU time per image on one core at ClockGHz
	// (InputPipeline.CostAt, seconds).
	PerImage float64 `json:"perImage,omitempty"`
	// Stages are the pipeline's cited stages at ClockGHz (none for a
	// what-if cost).
	Stages []InputStageTime `json:"stages,omitempty"`
	// CostSource is where the per-image cost is from ("" when none).
	CostSource string `json:"costSource,omitempty"`
	// PerBatch is a rank's input time per batch and Exposed the time the
	// GPU waits for it each step (seconds).
	PerBatch float64 `json:"perBatch,omitempty"`
	Exposed  float64 `json:"exposed,omitempty"`
	// WorkerCores is the cores a rank's workers get on average when the
	// input is the longer (Cores plus what its main process leaves idle
	// while it waits for the batch; the batch's CPU time / PerBatch), and
	// MainBusy the share of the step the main process keeps its core (the
	// GPU step / PerBatch); both 0 when the input is hidden.
	WorkerCores float64 `json:"workerCores,omitempty"`
	MainBusy    float64 `json:"mainBusy,omitempty"`
	// BreakEven is the CPU time per image on one core at ClockGHz
	// (seconds) above which the input would take longer than the GPU
	// step: gpuStep x Cores / batch.
	BreakEven float64 `json:"breakEven"`
}

// InputStageTime is a stage's CPU time per image on one core at the row's
// clock, scaled from the one it was measured at.
type InputStageTime struct {
	InputStage
	// AtClock is Seconds x GHz / the row's clock.
	AtClock float64 `json:"atClock"`
}

// Validate checks the pipeline's settings.
func (p *InputPipeline) Validate() error {
	if p.Backend == "" {
		return fmt.Errorf("input pipeline: backend is empty (valid: pytorch)")
	}
	if p.CostPerImage < 0 || math.IsNaN(p.CostPerImage) {
		return fmt.Errorf("input pipeline %s: cost per image %g s (valid range: >= 0, 0 = not cited)", p.Backend, p.CostPerImage)
	}
	if p.CostPerImage > 0 && !(p.ReferenceGHz > 0) {
		return fmt.Errorf("input pipeline %s: reference clock %g GHz of its cost per image (valid range: > 0)", p.Backend, p.ReferenceGHz)
	}
	for _, s := range p.Stages {
		if !(s.Seconds > 0) || math.IsInf(s.Seconds, 0) || !(s.GHz > 0) || math.IsInf(s.GHz, 0) {
			return fmt.Errorf("input pipeline %s: stage %q: %g s per image at %g GHz (valid range: > 0 each)", p.Backend, s.Name, s.Seconds, s.GHz)
		}
		if s.Source == "" {
			return fmt.Errorf("input pipeline %s: stage %q has no source (valid: the publication its cost is from)", p.Backend, s.Name)
		}
	}
	for i := range p.Platforms {
		pl := &p.Platforms[i]
		if pl.WorkersPerGPU < 1 {
			return fmt.Errorf("input pipeline %s: platform %s: %d workers per GPU (valid range: >= 1)", p.Backend, pl.Name, pl.WorkersPerGPU)
		}
		if err := pl.CPU.Validate(); err != nil {
			return fmt.Errorf("input pipeline %s: platform %s: %w", p.Backend, pl.Name, err)
		}
	}
	return nil
}

// Time is the input pipeline of a row whose GPUs are of kind gpuKind, n
// of its data-parallel ranks on the server that holds the most of them
// (ranksPerServer: a row on several servers shares each one's CPUs among
// that server's ranks only), each with batchPerGPU images per step of
// gpuStep seconds. A GPU kind no platform names is an error
// listing the platforms.
func (p *InputPipeline) Time(gpuKind string, n, batchPerGPU int, gpuStep float64) (InputTime, error) {
	var t InputTime
	if err := p.Validate(); err != nil {
		return t, err
	}
	if n < 1 || batchPerGPU < 1 || !(gpuStep > 0) {
		return t, fmt.Errorf("input pipeline %s: %d GPUs, batch %d per GPU, GPU step %g s (valid range: >= 1, >= 1, > 0)", p.Backend, n, batchPerGPU, gpuStep)
	}
	pl, clock, err := p.HostClock(gpuKind, n)
	if err != nil {
		return t, err
	}
	share := pl.CPU.Cores() / n // a rank's cores
	cores := share - 1          // a core per rank for its main process
	if cores < 1 {
		return t, fmt.Errorf("input pipeline %s: %d GPUs on one server with %s's %d cores leave a rank no core for its workers (valid range: GPUs per server <= cores/2)", p.Backend, n, pl.CPU.Name, pl.CPU.Cores())
	}
	t = InputTime{Backend: p.Backend, Platform: pl.Name, CPU: pl.CPU.Name, Workers: pl.WorkersPerGPU,
		Cores: min(pl.WorkersPerGPU, cores), ClockGHz: clock}
	t.BreakEven = gpuStep * float64(t.Cores) / float64(batchPerGPU)
	if p.Modelled() {
		t.Modelled, t.CostSource = true, p.costSource()
		t.PerImage = p.CostAt(t.ClockGHz)
		if p.CostPerImage == 0 {
			for _, s := range p.Stages {
				t.Stages = append(t.Stages, InputStageTime{InputStage: s, AtClock: s.At(t.ClockGHz)})
			}
		}
		work := float64(batchPerGPU) * t.PerImage // CPU seconds per batch
		t.PerBatch = work / float64(t.Cores)
		if t.PerBatch > gpuStep {
			// input-bound: the main process sleeps for the batch after
			// the GPU step and leaves its core to the workers (with W <=
			// cores the first term is the larger: the workers' own bound)
			t.PerBatch = math.Max(work/float64(pl.WorkersPerGPU), (work+gpuStep)/float64(share))
			t.WorkerCores, t.MainBusy = work/t.PerBatch, gpuStep/t.PerBatch
		}
		t.Exposed = math.Max(0, t.PerBatch-gpuStep)
	}
	return t, nil
}

// HostClock is the platform of a row whose GPUs are of kind gpuKind and
// the clock its host's cores run at with n of its ranks on one server:
// the CPU's boost clock when one GPU's processes are the only busy ones,
// its base clock (the datasheets' all-core guarantee, a bound: the
// all-core clock is not published) when every GPU's are. A GPU kind no
// platform names is an error listing the platforms.
func (p *InputPipeline) HostClock(gpuKind string, n int) (*InputPlatform, float64, error) {
	var names []string
	for i := range p.Platforms {
		pl := &p.Platforms[i]
		names = append(names, pl.Name+" ("+pl.GPUPrefix+")")
		if strings.HasPrefix(gpuKind, pl.GPUPrefix) {
			if n == 1 {
				return pl, pl.CPU.BoostGHz, nil
			}
			return pl, pl.CPU.BaseGHz, nil
		}
	}
	return nil, 0, fmt.Errorf("input pipeline %s: GPU kind %q is on none of the program's platforms (valid: %s)", p.Backend, gpuKind, strings.Join(names, ", "))
}

// ranksPerServer is the most of the devices devs that share one server
// (no NIC on the route between them, devices.Cluster.CrossesNIC): the
// ranks whose processes share a server's CPUs (InputPipeline.Time).
func ranksPerServer(c *devices.Cluster, devs []int) int {
	most := 0
	for _, a := range devs {
		k := 0
		for _, b := range devs {
			if a == b || !c.CrossesNIC(a, b) {
				k++
			}
		}
		most = max(most, k)
	}
	return most
}
