package maxload

import (
	"fmt"

	"placesim/engine"
	"placesim/placers"
)

// PipelineOptions say how a max-load placer's split becomes a pipelined
// plan (section 5: the split is run as a pipeline whose period per sample
// approaches the max-load).
type PipelineOptions struct {
	// Schedule is "" for no pipeline (device assignment only).
	Schedule engine.Schedule
	// MicroBatches per step (0: 4 per stage).
	MicroBatches int
}

// PipelineOptionDecls declares pipeline (default def) and micro-batches,
// the options ParsePipeline reads.
func PipelineOptionDecls(def string) []placers.Option {
	return []placers.Option{
		{Name: "pipeline", Type: placers.Enum, Default: def, Values: []string{"gpipe", "1f1b", "pipedream", "none"},
			Doc: "micro-batch schedule the split runs as; none: device assignment only"},
		{Name: "micro-batches", Type: placers.Int, Default: "0", Min: 0, Max: 1 << 20,
			Doc: "micro-batches per step; 0: 4 per pipeline stage"},
	}
}

// ParsePipeline reads the placer options pipeline=gpipe|1f1b|pipedream|none
// (default def) and micro-batches=N.
func ParsePipeline(opts placers.Options, def string) (PipelineOptions, error) {
	var p PipelineOptions
	if s := opts.String("pipeline", def); s != "none" {
		sched, err := engine.ParseSchedule(s)
		if err != nil {
			return p, fmt.Errorf("%w: pipeline=%q (valid: gpipe, 1f1b, pipedream, none)", placers.ErrBadOption, s)
		}
		p.Schedule = sched
	}
	m, err := opts.Int("micro-batches", 0, 0, 1<<20)
	if err != nil {
		return p, err
	}
	p.MicroBatches = m
	return p, nil
}

// Apply makes plan a pipeline with one stage per device it uses, in
// topological order (the engine derives the stages from the devices; a
// non-contiguous part becomes several virtual stages on its device, as in
// section 5.2). It does nothing without a schedule. The default of 4
// micro-batches per stage is capped at the graph's batch (a micro-batch
// holds at least one sample; the engine refuses more micro-batches than
// samples).
func (p PipelineOptions) Apply(plan *engine.Plan, batch int) {
	if p.Schedule == "" {
		return
	}
	used := map[int]bool{}
	for _, d := range plan.Device {
		used[d] = true
	}
	mb := p.MicroBatches
	if mb == 0 {
		mb = 4 * len(used)
		if batch > 1 && mb > batch {
			mb = batch
		}
	}
	plan.Pipeline = &engine.Pipeline{Schedule: p.Schedule, MicroBatches: mb}
}

// Report scores an assignment and describes it: max-load, bottleneck,
// each device's ops, load and memory, and an explanation.
func (m *Model) Report(assign []int, objective string, notes []string) (*placers.Report, error) {
	ml, at, err := m.Evaluate(assign)
	if err != nil {
		return nil, err
	}
	loads, mem := m.Loads(assign)
	rep := &placers.Report{Objective: objective, Value: ml, MaxLoad: ml, Bottleneck: m.DeviceName(at),
		Explain: m.Explain(assign), Notes: notes}
	counts := make([]int, len(loads))
	for _, d := range assign {
		counts[d]++
	}
	for d := range loads {
		rep.Devices = append(rep.Devices, placers.DeviceShare{Device: m.DeviceName(d), Ops: counts[d], Load: loads[d], Memory: mem[d]})
	}
	return rep, nil
}
