package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"placesim/engine"
	"placesim/internal/units"
	"placesim/study"
)

// pipelineFlags are simulate's pipeline and data-parallel flags.
type pipelineFlags struct {
	schedule     string
	microBatches int
	stages       string
	recompute    bool
	replicas     int
	bucket       string
	overlap      bool
	model        string
	precision    string
}

func (f *pipelineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.schedule, "pipeline", "", "play the plan as a micro-batch pipeline with this schedule: gpipe, 1f1b or pipedream")
	fl.IntVar(&f.microBatches, "microbatches", 4, "micro-batches per step with --pipeline (>= 1)")
	fl.StringVar(&f.stages, "stages", "auto", "pipeline stages: auto (one per device the placer uses), even (equal layer shares on the accelerators) or a stage file (JSON)")
	fl.BoolVar(&f.recompute, "recompute", false, "with --pipeline: recompute each stage's forward before its backward, keeping only boundary activations")
	fl.IntVar(&f.replicas, "data-parallel", 1, "replicate the plan on N device groups, the batch split N ways, gradients ring all-reduced")
	fl.StringVar(&f.bucket, "allreduce-bucket", "0", "with --data-parallel: gradient bucket size (e.g. 25MiB; 0 = one bucket per stage)")
	fl.BoolVar(&f.overlap, "allreduce-overlap", false, "with --data-parallel: start each bucket's all-reduce as soon as its gradients are ready")
	fl.StringVar(&f.precision, "allreduce-precision", "gradients", "with --data-parallel: what the all-reduce carries the gradients in: gradients (their own precision), fp32, fp16 or bf16 (16-bit copies: half the bytes of FP32 gradients; no wider than the workload's)")
	fl.StringVar(&f.model, "allreduce-model", study.CollectiveAuto, "with --data-parallel: all-reduce cost model: auto (the workload's framework: pytorch-ddp for framework=pytorch, else nccl), link (link time only, as the seeds' papers), nccl (NCCL latencies, compute slowed under an overlapping all-reduce) or pytorch-ddp (nccl plus DDP's gradient bucket copies)")
}

// single is the one regime of --pipeline/--data-parallel and their
// companions, checked.
func (f *pipelineFlags) single(changed func(string) bool) (study.Regime, error) {
	var r study.Regime
	if f.schedule == "" {
		for _, name := range []string{"microbatches", "stages", "recompute"} {
			if changed(name) {
				return r, fmt.Errorf("--%s needs --pipeline gpipe|1f1b|pipedream", name)
			}
		}
	} else {
		sched, err := engine.ParseSchedule(f.schedule)
		if err != nil {
			return r, fmt.Errorf("--pipeline %q: unknown schedule (valid: gpipe, 1f1b, pipedream)", f.schedule)
		}
		m := f.microBatches
		if m < 1 {
			return r, fmt.Errorf("--microbatches %d: valid range >= 1", m)
		}
		r.Pipeline = &engine.Pipeline{Schedule: sched, MicroBatches: m, Recompute: f.recompute}
		r.Stages = study.ParseStageSource(f.stages)
	}
	if f.replicas < 1 {
		return r, fmt.Errorf("--data-parallel %d: valid range >= 1", f.replicas)
	}
	if f.replicas == 1 {
		for _, name := range allReduceFlags {
			if changed(name) {
				return r, fmt.Errorf("--%s needs --data-parallel N with N >= 2", name)
			}
		}
		return r, nil
	}
	dp, err := f.allReduce()
	if err != nil {
		return r, err
	}
	dp.Replicas = f.replicas
	r.DataParallel = dp
	return r, nil
}

// The single graph regime's flags, one list each, so that a flag added
// to the regime is refused wherever the regime's flags are (single,
// parse, simulate --layout): graphRegimeFlags choose the regime,
// allReduceFlags are --data-parallel's companions, regimeFlags both.
var (
	graphRegimeFlags = []string{"pipeline", "microbatches", "stages", "recompute", "data-parallel"}
	allReduceFlags   = []string{"allreduce-bucket", "allreduce-overlap", "allreduce-model", "allreduce-precision"}
	regimeFlags      = append(append([]string{}, graphRegimeFlags...), allReduceFlags...)
)

// allReduce is the all-reduce of --allreduce-bucket/-overlap/-model/-precision.
func (f *pipelineFlags) allReduce() (*engine.DataParallel, error) {
	bucket, err := units.ParseBytes(f.bucket)
	if err != nil || bucket < 0 {
		return nil, fmt.Errorf("--allreduce-bucket %q: want a size >= 0 such as 25MiB (0: one bucket per stage)", f.bucket)
	}
	m, err := study.ParseCollective("--allreduce-model", f.model)
	if err != nil {
		return nil, err
	}
	wire, err := study.ParseWirePrecision("--allreduce-precision", f.precision)
	if err != nil {
		return nil, err
	}
	return &engine.DataParallel{BucketBytes: bucket, Overlap: f.overlap, Collective: m, WireBytes: wire}, nil
}

// parse reads the regime flags once into typed regimes: --regimes (see
// study.ParseRegime; it replaces the single-regime flags, and
// --allreduce-bucket, --allreduce-overlap, --allreduce-model and
// --allreduce-precision apply to
// every data-parallel regime of the list), else the single regime of
// --pipeline/--data-parallel and their companions, else none (nil: the
// command's default, one step). ar is the all-reduce flags as given, for
// a scenario file, which records them beside its regimes.
func (f *pipelineFlags) parse(changed func(string) bool, list string) (rs []study.Regime, ar *study.AllReduceSpec, err error) {
	ar = &study.AllReduceSpec{Overlap: f.overlap}
	if changed("allreduce-bucket") {
		ar.Bucket = f.bucket
	}
	if changed("allreduce-model") {
		ar.Model = f.model
	}
	if changed("allreduce-precision") {
		ar.Precision = f.precision
	}
	if changed("regimes") && strings.TrimSpace(list) == "" {
		return nil, nil, fmt.Errorf("--regimes is empty (valid: a comma-separated list such as step,1f1b:16,dp:4)")
	}
	if list != "" {
		for _, name := range graphRegimeFlags {
			if changed(name) {
				return nil, nil, fmt.Errorf("--%s and --regimes exclude each other (give the regime in the list, e.g. --regimes step,1f1b:16,dp:4)", name)
			}
		}
		dp, err := f.allReduce()
		if err != nil {
			return nil, nil, err
		}
		if rs, err = study.ParseRegimes(list, dp); err != nil {
			return nil, nil, fmt.Errorf("--regimes: %w", err)
		}
		return rs, ar, nil
	}
	any := false
	for _, name := range regimeFlags {
		any = any || changed(name)
	}
	if !any {
		return nil, nil, nil
	}
	r, err := f.single(changed)
	if err != nil {
		return nil, nil, err
	}
	return []study.Regime{r}, ar, nil
}

// regimeHelp documents the regime flags on a comparison command.
var regimeHelp = `Every placer's plan is played in the same execution regime, with the same
global batch: one step (the default), or the pipeline and data parallelism
of --pipeline/--microbatches/--stages/--recompute and --data-parallel/
--allreduce-*. A pipeline or replicas a placer attaches to its own plan (the
max-load placers' 1F1B, FastT's rollback to data parallelism) give way to
the requested regime; a plan that replicates the model itself is shown as
"not comparable" in a regime without data parallelism. "vs best", the
winner and the charts compare rows of the same regime only.

--regimes LIST runs the comparison in several regimes and adds the placer x
regime matrix with each placer's best regime. LIST is comma-separated, each
regime one of: ` + study.RegimeSyntax() + `.
":even" makes equal layer-share stages; e.g. --regimes
step,1f1b:16,dp:4,1f1b:8+dp:2.`
