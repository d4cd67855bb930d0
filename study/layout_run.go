package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"placesim/devices"
	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/placers"
	"placesim/workloads/zoo"
)

// ErrLayoutWorkload marks a regime with a large-model layout given with a
// workload that is not a decoder-only transformer of the zoo (a layout's
// tensor, context and expert parallelism split a transformer's layers,
// which a dataflow graph does not name), or a layout combined with a
// graph regime.
var ErrLayoutWorkload = errors.New("layout needs a decoder-only model")

// layoutPrefix introduces a layout in ParseRegime's syntax.
const layoutPrefix = "layout:"

// LayoutRequest is one iteration of a decoder-only model under the
// layout of a regime (placesim simulate --layout, a scenario's layout).
type LayoutRequest struct {
	// Workload is the model: zoo:NAME[?overrides] of the LLM presets.
	Workload string
	// Cluster is a one-line system (dgx-h100, dgx-a100-80gb:nodes=N, ...),
	// a preset or a cluster file with at least the layout's GPUs.
	Cluster string
	// Regime carries the layout (Regime.Layout); a pipeline or data
	// parallelism of a graph regime beside it is an error (the layout
	// has its own).
	Regime Regime
	// Planner splits the layers over the stages: PlannerEven
	// (Megatron's even split) or a placer name (PlanStages).
	Planner string
}

// LayoutRegime is the regime of a layout given alone (LAYOUT in
// parallel.Parse's syntax, as train's --layout); a bad layout is a
// FieldError of field "layout".
func LayoutRegime(layout string) (Regime, error) {
	l, err := parallel.Parse(layout)
	if err != nil {
		return Regime{}, fieldErr("layout", err)
	}
	return Regime{Layout: &l}, nil
}

// LayoutJob builds the job of a request: the model parsed from the
// workload, the layout of the regime and the cluster. Bad input is a
// FieldError naming the request's field ("workload": not a decoder-only
// model of the zoo, wrapping ErrLayoutWorkload, or a bad override;
// "cluster"), so that a command names its flag and a scenario its field.
func LayoutJob(req LayoutRequest) (*llm.Job, error) {
	r := req.Regime
	if r.Layout == nil {
		return nil, fmt.Errorf("%w: regime %s has no layout", ErrLayoutWorkload, r)
	}
	if r.Pipeline != nil || r.DataParallel != nil {
		return nil, fmt.Errorf("%w: a layout carries its own pipeline and data parallelism (pp, vp, dp, mbs, gbs); give it without a pipeline or dp regime", ErrLayoutWorkload)
	}
	m, err := zoo.ParseLLM(req.Workload)
	if err != nil {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(req.Workload), "zoo:"), "?")
		if _, lerr := zoo.LLMByName(name); lerr == nil {
			return nil, fieldErr("workload", err) // a preset with a bad override
		}
		return nil, fieldErr("workload", fmt.Errorf("%w: %w", ErrLayoutWorkload, err))
	}
	c, err := LayoutCluster(req.Cluster, r.Layout.GPUs())
	if err != nil {
		return nil, fieldErr("cluster", err)
	}
	return &llm.Job{Model: m, Layout: *r.Layout, Cluster: c}, nil
}

// LayoutCluster is the cluster of a layout run: a one-line system sized
// to gpus, else a preset, else a cluster file.
func LayoutCluster(spec string, gpus int) (*devices.Cluster, error) {
	c, err := llm.System(spec, gpus)
	if err == nil {
		return c, nil
	}
	if c, perr := devices.NewPreset(spec); perr == nil {
		return c, nil
	}
	if _, serr := os.Stat(spec); serr == nil {
		return devices.LoadClusterFile(spec)
	}
	return nil, err
}

// SimulateLayout plays one iteration of the request's model under its
// regime's layout (engine/llm), with the layers split by its planner.
// Bad input is a FieldError (LayoutJob's fields, and "stage planner" when the
// planner fails).
func SimulateLayout(ctx context.Context, reg *placers.Registry, req LayoutRequest) (*llm.Job, *llm.Result, error) {
	j, err := LayoutJob(req)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if req.Planner != "" && req.Planner != PlannerEven {
		j.Stages, notes, err = PlanStages(ctx, reg, req.Planner, j)
		if err != nil {
			return nil, nil, fieldErr("stage planner", fmt.Errorf("%s: %w", req.Planner, err))
		}
		j.Planner = req.Planner
	}
	r, err := llm.Simulate(j)
	if err != nil {
		return nil, nil, err
	}
	r.Notes = append(r.Notes, notes...)
	return j, r, nil
}

// parseLayoutRegime reads "layout:SPEC" (SPEC in parallel.Parse's syntax).
func parseLayoutRegime(s string) (Regime, error) {
	l, err := parallel.Parse(strings.TrimPrefix(s, layoutPrefix))
	if err != nil {
		return Regime{}, fmt.Errorf("regime %q: %w", s, err)
	}
	return Regime{Layout: &l}, nil
}

// runLayoutPoint is a scenario point whose regime carries a layout: the
// point's workload (a decoder-only preset) played under the layout on the
// point's cluster (a one-line system such as dgx-h100:nodes=8, a preset
// or a file), its placer planning the stages (PlannerEven: Megatron's
// split). Its record is LayoutRecord's: the iteration time as the step
// time, global batch sequences per second as the throughput, each
// pipeline rank's peak memory, an out-of-memory verdict and the layout's
// figures.
func runLayoutPoint(ctx context.Context, p Point, regime Regime, reg *placers.Registry) Record {
	rec := Record{Point: p}
	if len(p.Settings) > 0 {
		rec.Error = fmt.Sprintf("%v: what-if settings do not apply to a layout point (vary the system spec or the layout instead)", ErrLayoutWorkload)
		return rec
	}
	j, r, err := SimulateLayout(ctx, reg, LayoutRequest{Workload: p.Workload, Cluster: p.Cluster, Regime: regime, Planner: p.Placer})
	if err != nil {
		rec.Error = err.Error()
		return rec
	}
	rec = LayoutRecord(p, j, r)
	if err := checkFinite(rec.StepTime, rec.Throughput); err != nil {
		rec = Record{Point: p, Error: err.Error()}
	}
	return rec
}
