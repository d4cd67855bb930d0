package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"placesim/engine"
	"placesim/internal/tsv"
	"placesim/placers"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// ValidationRow is one measured setting of a validation file (the
// tab-separated format of ../shared/fidelity/README.md).
type ValidationRow struct {
	// Line is the row's line number in its file (1-based).
	Line int `json:"line"`
	// ID names the setting.
	ID string `json:"id"`
	// Workload is a zoo spec with the global batch.
	Workload string `json:"workload"`
	// Cluster is a preset name or a cluster file (relative to the
	// validation file).
	Cluster string `json:"cluster"`
	// GPUs > 1 is data parallelism over that many GPUs.
	GPUs int `json:"gpus"`
	// Precision is a workloads.Precision.
	Precision string `json:"precision"`
	// Framework is pytorch, tensorflow, tensorflow-xla or mxnet.
	Framework string `json:"framework"`
	// Measured is the published figure in Unit.
	Measured float64 `json:"measured"`
	// Unit is samples/s or tokens/s.
	Unit string `json:"unit"`
	// TokensPerSample converts samples/s to tokens/s.
	TokensPerSample float64 `json:"tokensPerSample"`
	// Source and Note say where the figure stands and how it was read.
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Program is the reference training program whose per-iteration work
	// beyond the model's kernels is added (HostPrograms; optional column
	// program, "" or "-" for none).
	Program string `json:"program,omitempty"`
	// Accumulation is the gradient accumulation steps: micro-batches of
	// the workload's batch per all-reduce and optimizer update (optional
	// column accumulation, "" or "-" for 1; AccumulatedStep).
	Accumulation int `json:"accumulation,omitempty"`
	// InputCost, when set, is a what-if CPU cost per image for the row's
	// program's input pipeline (InputPipeline.CostPerImage and
	// ReferenceGHz), never read from a file: `validate --input-cost`.
	InputCost *InputCost `json:"inputCost,omitempty"`
	// noSlowestBatch leaves out SlowestBatchFraction: a part of a token
	// mix, whose batches' spread simulateTokenMix takes instead.
	noSlowestBatch bool
}

// InputCost is a CPU cost per image on one core (seconds) at a clock.
type InputCost struct {
	PerImage float64 `json:"perImage"`
	GHz      float64 `json:"ghz"`
}

// validationColumns are the columns a validation file must have.
var validationColumns = []string{"id", "workload", "cluster", "gpus", "precision", "framework", "measured", "unit", "tokens_per_sample", "source", "note"}

// ValidationFrameworks maps a validation file's framework column to the
// zoo's framework profile and whether data-parallel all-reduce overlaps
// the backward pass (PyTorch DDP and Horovod/MXNet kvstore overlap
// bucketed all-reduces with backward; TensorFlow's replicated mode
// all-reduces after it).
//
// The all-reduce's cost model is not chosen here: every data-parallel run
// plays its workload's framework's (FrameworkCollective), validation rows
// as simulate does; PyTorch's (DDP, and apex's DDP, which the NVIDIA
// Transformer uses) copies gradients into buckets and back on the compute
// stream, the others' is NCCL alone.
var ValidationFrameworks = map[string]struct {
	Profile string
	Overlap bool
}{
	"pytorch":        {zoo.FrameworkPyTorch, true},
	"tensorflow":     {zoo.FrameworkTensorFlow, false},
	"tensorflow-xla": {zoo.FrameworkXLA, false},
	"mxnet":          {zoo.FrameworkMXNet, true},
}

// DDPBucketBytes is PyTorch DDP's default gradient bucket (bucket_cap_mb =
// 25), used for every data-parallel row.
const DDPBucketBytes = 25 << 20

// ErrValidationFile is wrapped by errors about a malformed validation file.
var ErrValidationFile = errors.New("malformed validation file")

// ReadValidation reads a validation file: tab-separated, a header naming
// the columns (any order; extra columns ignored), one setting a row.
// Blank lines and lines starting with '#' are skipped. An error names the
// file, the line and the column.
func ReadValidation(path string) ([]ValidationRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read validation file: %w", err)
	}
	defer f.Close()
	return parseValidation(path, f)
}

func parseValidation(path string, in io.Reader) ([]ValidationRow, error) {
	bad := func(line int, col, format string, args ...any) error {
		where := fmt.Sprintf("%s:%d", path, line)
		if col != "" {
			where += ": column " + col
		}
		return fmt.Errorf("%w: %s: %s", ErrValidationFile, where, fmt.Sprintf(format, args...))
	}
	tab, err := tsv.Read(in, validationColumns)
	if err != nil {
		return nil, tableError(path, err)
	}
	var rows []ValidationRow
	ids := map[string]int{}
	for _, row := range tab.Rows {
		line, get := row.Line, row.Get
		r := ValidationRow{Line: line, ID: get("id"), Workload: get("workload"), Cluster: get("cluster"),
			Precision: get("precision"), Framework: get("framework"), Unit: get("unit"), Source: get("source"), Note: get("note")}
		for _, c := range []struct{ name, v string }{{"id", r.ID}, {"workload", r.Workload}, {"cluster", r.Cluster}, {"source", r.Source}} {
			if c.v == "" {
				return nil, bad(line, c.name, "empty (valid: a non-empty value)")
			}
		}
		if prev, dup := ids[r.ID]; dup {
			return nil, bad(line, "id", "%q already used on line %d (valid: unique ids)", r.ID, prev)
		}
		ids[r.ID] = line
		if !strings.HasPrefix(r.Workload, "zoo:") {
			return nil, bad(line, "workload", "%q is not a zoo spec (valid: zoo:NAME?...&batch=GLOBAL&training=true)", r.Workload)
		}
		n, err := strconv.Atoi(get("gpus"))
		if err != nil || n < 1 || n > 1<<16 {
			return nil, bad(line, "gpus", "%q (valid range: integer in [1, 65536])", get("gpus"))
		}
		r.GPUs = n
		if _, err := workloads.ParsePrecision(r.Precision); err != nil || r.Precision == "" {
			names := make([]string, 0, len(workloads.Precisions()))
			for _, p := range workloads.Precisions() {
				names = append(names, string(p))
			}
			return nil, bad(line, "precision", "%q (valid: %s)", r.Precision, strings.Join(names, ", "))
		}
		if _, ok := ValidationFrameworks[r.Framework]; !ok {
			return nil, bad(line, "framework", "%q (valid: pytorch, tensorflow, tensorflow-xla, mxnet)", r.Framework)
		}
		// a throughput below 1e-6 per second (1e-320 printed "+Inf%") or
		// above 1e12 per second is no measurement (issue 31)
		if r.Measured, err = strconv.ParseFloat(get("measured"), 64); err != nil || !(r.Measured >= 1e-6) || !(r.Measured <= 1e12) {
			return nil, bad(line, "measured", "%q (valid range: 1e-06 to 1e+12 samples or tokens per second)", get("measured"))
		}
		switch r.Unit {
		case "samples/s", "tokens/s":
		default:
			return nil, bad(line, "unit", "%q (valid: samples/s, tokens/s)", r.Unit)
		}
		if r.TokensPerSample, err = strconv.ParseFloat(get("tokens_per_sample"), 64); err != nil || !(r.TokensPerSample > 0) || math.IsInf(r.TokensPerSample, 0) {
			return nil, bad(line, "tokens_per_sample", "%q (valid range: a finite number > 0; 1 for samples/s rows)", get("tokens_per_sample"))
		}
		r.Program = get("program")
		if _, err := hostProgram(r.Program); err != nil {
			return nil, bad(line, "program", "%v", err)
		}
		r.Accumulation = 1
		if v := get("accumulation"); v != "" && v != "-" {
			if r.Accumulation, err = strconv.Atoi(v); err != nil || r.Accumulation < 1 || r.Accumulation > 1<<20 {
				return nil, bad(line, "accumulation", "%q (valid range: integer in [1, %d] micro-batches per optimizer step; - or empty: 1)", v, 1<<20)
			}
		}
		rows = append(rows, r)
	}
	if tab.Header == nil {
		return nil, fmt.Errorf("%w: %s: no header row", ErrValidationFile, path)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s: no rows after the header", ErrValidationFile, path)
	}
	return rows, nil
}

// tableError is a malformed table's error (package tsv) as a validation
// file's: ErrValidationFile with the file, the line and the column.
func tableError(path string, err error) error {
	var te *tsv.Error
	if errors.As(err, &te) {
		where := fmt.Sprintf("%s:%d", path, te.Line)
		if te.Column != "" {
			where += ": column " + te.Column
		}
		return fmt.Errorf("%w: %s: %s", ErrValidationFile, where, te.Msg)
	}
	return fmt.Errorf("read validation file %q: %w", path, err)
}

// ValidationResult is one row's outcome.
type ValidationResult struct {
	ID string `json:"id"`
	// Measured and Simulated are in the row's unit; Error is
	// Simulated/Measured - 1 (-1 when the simulation failed).
	Measured  float64 `json:"measured"`
	Simulated float64 `json:"simulated"`
	Error     float64 `json:"error"`
	Unit      string  `json:"unit"`
	// Workload is the spec simulated (with precision and framework).
	Workload string `json:"workload"`
	Cluster  string `json:"cluster"`
	GPUs     int    `json:"gpus"`
	// Failure says why there is no simulated figure (OOM, error).
	Failure string `json:"failure,omitempty"`
	Source  string `json:"source"`
	// Program and Host are the row's reference program and its costs per
	// iteration beyond the simulated kernels, included in Simulated.
	Program string    `json:"program,omitempty"`
	Host    *HostCost `json:"host,omitempty"`
	// Input is the program's CPU input pipeline (InputPipeline); its
	// Exposed wait is included in Simulated when Modelled.
	Input *InputTime `json:"input,omitempty"`
	// LengthMix, for a workload with a distribution of sequence lengths
	// (zoo.LengthMixOf), says over which padded lengths Simulated is the
	// expectation, and which one an explanation takes apart.
	LengthMix *LengthMixResult `json:"lengthMix,omitempty"`
	// TokenMix, for fairseq's token batches of a distribution of
	// sentence lengths (zoo.TokenMixOf), is the expected step Simulated
	// counts its tokens over (simulateTokenMix).
	TokenMix *TokenMixStep `json:"tokenMix,omitempty"`
	// Accumulation, for a row with gradient accumulation, is its
	// accumulated step (included in Simulated).
	Accumulation *AccumulatedStep `json:"accumulation,omitempty"`
}

// ValidationSummary is a validation run: its rows, the median and worst
// |error|.
type ValidationSummary struct {
	File        string             `json:"file"`
	Rows        []ValidationResult `json:"rows"`
	MedianError float64            `json:"medianAbsError"`
	WorstError  float64            `json:"worstAbsError"`
	WorstID     string             `json:"worstId"`
	// WorstMultiGPU is the worst |error| among the rows on more than one
	// GPU (data parallel) and WorstMultiGPUID its row; 0 and "" without
	// such rows.
	WorstMultiGPU   float64 `json:"worstMultiGpuAbsError"`
	WorstMultiGPUID string  `json:"worstMultiGpuId,omitempty"`
}

// ValidationWorkload is the spec a row simulates: its workload with the
// row's precision and the framework's profile added (a spec that already
// names them keeps its own).
func ValidationWorkload(r ValidationRow) (string, error) {
	spec, query, _ := strings.Cut(r.Workload, "?")
	vals, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("row %s: workload %q: %w", r.ID, r.Workload, err)
	}
	out := r.Workload
	if query == "" {
		out = spec + "?"
	} else {
		out += "&"
	}
	var add []string
	if _, ok := vals["precision"]; !ok {
		add = append(add, "precision="+r.Precision)
	}
	if _, ok := vals["framework"]; !ok {
		add = append(add, "framework="+ValidationFrameworks[r.Framework].Profile)
	}
	if len(add) == 0 {
		return r.Workload, nil
	}
	return out + strings.Join(add, "&"), nil
}

// Validate simulates every row (relative cluster files are resolved
// against dir) with the single-device placer, data parallel over the
// row's GPUs, and compares with the measurement. A row that fails
// (unknown model, OOM) is kept with its failure and error -1.
func Validate(ctx context.Context, reg *placers.Registry, rows []ValidationRow, dir string) (*ValidationSummary, error) {
	return ValidateObserved(ctx, reg, rows, dir, nil)
}

// RowObserver is told as each validation row starts (done < 0) and ends
// (done: the rows finished so far), so that a caller can report progress.
type RowObserver func(id string, done int)

// ValidateObserved is Validate telling obs (nil: no one) of each row.
func ValidateObserved(ctx context.Context, reg *placers.Registry, rows []ValidationRow, dir string, obs RowObserver) (*ValidationSummary, error) {
	s := &ValidationSummary{}
	for i, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if obs != nil {
			obs(r.ID, -1)
		}
		res, err := validateRow(ctx, reg, r, dir)
		if err != nil {
			return nil, fmt.Errorf("validation row %s (line %d): %w", r.ID, r.Line, err)
		}
		s.Rows = append(s.Rows, res)
		if obs != nil {
			obs(r.ID, i+1)
		}
	}
	abs := make([]float64, len(s.Rows))
	for i, r := range s.Rows {
		abs[i] = math.Abs(r.Error)
		if abs[i] > s.WorstError || s.WorstID == "" {
			s.WorstError, s.WorstID = abs[i], r.ID
		}
		if r.GPUs > 1 && (abs[i] > s.WorstMultiGPU || s.WorstMultiGPUID == "") {
			s.WorstMultiGPU, s.WorstMultiGPUID = abs[i], r.ID
		}
	}
	sort.Float64s(abs)
	if n := len(abs); n > 0 {
		s.MedianError = abs[n/2]
		if n%2 == 0 {
			s.MedianError = (abs[n/2-1] + abs[n/2]) / 2
		}
	}
	return s, nil
}

func validateRow(ctx context.Context, reg *placers.Registry, r ValidationRow, dir string) (ValidationResult, error) {
	out, _, _, err := simulateRow(ctx, reg, r, dir)
	return out, err
}

// simulateRow simulates a row and returns its result with the run's
// outcome and graph (nil when it did not get as far as simulating).
func simulateRow(ctx context.Context, reg *placers.Registry, r ValidationRow, dir string) (ValidationResult, *Record, *workloads.Graph, error) {
	out := ValidationResult{ID: r.ID, Measured: r.Measured, Unit: r.Unit, GPUs: r.GPUs, Source: r.Source, Error: -1}
	spec, err := ValidationWorkload(r)
	if err != nil {
		return out, nil, nil, err
	}
	out.Workload = spec
	if mix, err := zoo.TokenMixOf(spec, r.GPUs); err != nil {
		return out, nil, nil, err
	} else if mix != nil {
		// fairseq's token batches of a distribution of sentence lengths
		return simulateTokenMix(ctx, reg, r, dir, out, mix)
	}
	if mix, err := zoo.LengthMixOf(spec); err != nil {
		return out, nil, nil, err
	} else if mix != nil {
		// a distribution of padded lengths (LDDL's binned BERT data)
		return simulateLengthMix(ctx, reg, r, dir, out, mix)
	}
	g, err := LoadWorkload(spec)
	if err != nil {
		return out, nil, nil, err
	}
	if !g.Training {
		return out, nil, nil, fmt.Errorf("workload %q is not a training step (add training=true)", spec)
	}
	if g.Batch%r.GPUs != 0 {
		return out, nil, nil, fmt.Errorf("global batch %d does not split evenly over %d GPUs", g.Batch, r.GPUs)
	}
	cl := r.Cluster
	if !isPreset(cl) && !filepath.IsAbs(cl) {
		cl = filepath.Join(dir, cl)
	}
	c, err := ResolveCluster(cl, g)
	if err != nil {
		return out, nil, nil, err
	}
	out.Cluster = c.Name
	if n := len(c.Accelerators()); n < r.GPUs {
		return out, nil, nil, fmt.Errorf("cluster %q has %d accelerators, the row uses %d GPUs", c.Name, n, r.GPUs)
	}
	prog, _ := hostProgram(r.Program)                // checked by ReadValidation
	prec, _ := workloads.ParsePrecision(r.Precision) // checked by ReadValidation
	sp := Spec{Placer: "single", Reproducible: true}
	if r.GPUs > 1 {
		fw := ValidationFrameworks[r.Framework]
		sp.DataParallel = &engine.DataParallel{Replicas: r.GPUs, BucketBytes: prog.bucketBytes(), Overlap: fw.Overlap}
		if prog != nil && prog.AllReduce != nil {
			// the program's own all-reduce on its framework's model
			sp.DataParallel.Collective = prog.collective(FrameworkCollective(g.Framework), prec, r.Accumulation)
			sp.DataParallel.WireBytes = prog.wireBytes(prec)
		}
	}
	o, err := Run(ctx, reg, g, c, sp)
	if err != nil {
		return out, nil, nil, err
	}
	switch {
	case o.Error != "":
		out.Failure = o.Error
		return out, o, g, nil
	case o.OOM != nil:
		out.Failure = "out of memory: " + o.OOM.Err().Error()
		return out, o, g, nil
	}
	out.Simulated = o.Throughput
	// the single placer's replicas take the accelerators in index order
	// (engine.DataParallel.Devices): the first is the row's GPU kind
	accs := c.Accelerators()
	kind := &c.Devices[accs[0]].Kind
	run := 0.0 // the program's host work per iteration (HostCost.SessionRun)
	if prog != nil && o.StepTime > 0 {
		perServer := ranksPerServer(c, accs[:r.GPUs])
		scale := 1.0
		if prog.Input != nil {
			// a program whose DataLoader workers keep its server's cores
			// busy runs its main process at the clock they run at: the
			// host work measured for one GPU's processes alone (at the
			// boost clock) takes boost / that clock as long
			pl, clock, err := prog.Input.HostClock(kind.Name, perServer)
			if err != nil {
				return out, nil, nil, fmt.Errorf("program %s: %w", prog.Name, err)
			}
			scale = pl.CPU.BoostGHz / clock
		}
		h, err := prog.CostAtHost(g, kind, r.GPUs, scale)
		if err != nil {
			return out, nil, nil, err
		}
		if prog.TokenBatchMultiple > 0 && r.GPUs > 1 && r.Unit == "tokens/s" && o.Result != nil && !r.noSlowestBatch {
			// the row's sentences are tokens_per_sample long, its budget
			// per GPU the per-GPU batch of them
			frac, err := SlowestBatchFraction(prog.TokenBatchMultiple, r.TokensPerSample, r.TokensPerSample*float64(g.Batch/r.GPUs), r.GPUs)
			if err != nil {
				return out, nil, nil, fmt.Errorf("program %s: %w", prog.Name, err)
			}
			h.SlowestBatch = frac * stepCompute(o.Result, g)
		}
		out.Program, out.Host = prog.Name, &h
		run = h.SessionRun
		// the step takes the program's extra time longer: every GPU waits
		// for it at the same point (after the all-reduce, before the update)
		out.Simulated *= o.StepTime / (o.StepTime + h.Total())
		if prog.Input != nil {
			// the GPU step with the program's work; the input pipeline
			// overlaps it (InputPipeline)
			step := o.StepTime + h.Total()
			pipe := *prog.Input
			if c := r.InputCost; c != nil {
				pipe.CostPerImage, pipe.ReferenceGHz, pipe.CostSource = c.PerImage, c.GHz, "what-if (validate --input-cost)"
				pipe.Stages = nil
			}
			in, err := pipe.Time(kind.Name, perServer, g.Batch/r.GPUs, step)
			if err != nil {
				return out, nil, nil, fmt.Errorf("program %s: %w", prog.Name, err)
			}
			out.Input = &in
			out.Simulated *= step / (step + in.Exposed)
		}
	}
	if r.Accumulation > 1 && o.Result != nil && out.Simulated > 0 {
		// k micro-batches per all-reduce and update (AccumulatedStep)
		a, err := accumulate(o.Result, g, kind, r.Accumulation, float64(g.Batch)/out.Simulated, AccumulationWords(prog, prec), prog.MicroBatchSync(prec, r.GPUs), run)
		if err != nil {
			return out, nil, nil, err
		}
		out.Accumulation = &a
		out.Simulated = float64(r.Accumulation*g.Batch) / a.Total
	}
	if r.Unit == "tokens/s" {
		out.Simulated *= r.TokensPerSample
	}
	out.Error = out.Simulated/r.Measured - 1
	return out, o, g, nil
}

// isPreset reports whether a cluster column names a preset rather than a
// file (the rule of devices.Resolve).
func isPreset(spec string) bool {
	return !strings.ContainsAny(spec, `/\`) && !strings.HasSuffix(spec, ".yaml") && !strings.HasSuffix(spec, ".yml") && !strings.HasSuffix(spec, ".json")
}
