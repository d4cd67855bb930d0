package maxload

import (
	"placesim/engine"
	"placesim/placers"
)

// PipelineOptions say how a max-load placer's split becomes a pipelined
// plan (section 5: the split is run as a pipeline whose period per sample
// approaches the max-load): the placer options pipeline and micro-batches,
// declared by Declare.
type PipelineOptions struct {
	// Pipeline is the micro-batch schedule (gpipe, 1f1b, pipedream) or
	// NoPipeline.
	Pipeline engine.Schedule
	// MicroBatches per step (0: 4 per stage).
	MicroBatches int
}

// NoPipeline is the pipeline option's value for device assignment only.
const NoPipeline engine.Schedule = "none"

// Declare binds the options pipeline (default def) and micro-batches to
// p's fields.
func (p *PipelineOptions) Declare(d *placers.Decls, def engine.Schedule) {
	placers.DeclareEnum(d, &p.Pipeline, "pipeline", def, append(engine.Schedules(), NoPipeline),
		"micro-batch schedule the split runs as; none: device assignment only")
	d.Int(&p.MicroBatches, "micro-batches", 0, 0, 1<<20, "micro-batches per step; 0: 4 per pipeline stage")
}

// Schedule is the pipeline's schedule, "" for none.
func (p PipelineOptions) Schedule() engine.Schedule {
	if p.Pipeline == NoPipeline {
		return ""
	}
	return p.Pipeline
}

// Apply makes plan a pipeline with one stage per device it uses, in
// topological order (the engine derives the stages from the devices; a
// non-contiguous part becomes several virtual stages on its device, as in
// section 5.2). It does nothing without a schedule. The default of 4
// micro-batches per stage is capped at the graph's batch (a micro-batch
// holds at least one sample; the engine refuses more micro-batches than
// samples).
func (p PipelineOptions) Apply(plan *engine.Plan, batch int) {
	sched := p.Schedule()
	if sched == "" {
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
	plan.Pipeline = &engine.Pipeline{Schedule: sched, MicroBatches: mb}
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
