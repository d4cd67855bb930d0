package tarnawski

import (
	"fmt"
	"math"
	"strings"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/tarnawski/maxload"
)

// pipelineOpts says how a split becomes a pipelined plan.
type pipelineOpts struct {
	// schedule is "" for no pipeline (device assignment only)
	schedule     engine.Schedule
	microBatches int // 0: 4 per stage
}

// parsePipeline reads the options pipeline=gpipe|1f1b|pipedream|none and
// micro-batches=N.
func parsePipeline(opts placers.Options) (pipelineOpts, error) {
	var p pipelineOpts
	switch s := opts.String("pipeline", "1f1b"); s {
	case "none":
	default:
		sched, err := engine.ParseSchedule(s)
		if err != nil {
			return p, fmt.Errorf("%w: pipeline=%q (valid: gpipe, 1f1b, pipedream, none)", placers.ErrBadOption, s)
		}
		p.schedule = sched
	}
	m, err := opts.Int("micro-batches", 0, 0, 1<<20)
	if err != nil {
		return p, err
	}
	p.microBatches = m
	return p, nil
}

// checkOptions refuses option keys outside known.
func checkOptions(name string, opts placers.Options, known ...string) error {
	for k := range opts {
		ok := false
		for _, x := range known {
			ok = ok || x == k
		}
		if !ok {
			return fmt.Errorf("%w: %s has no option %q (valid: %s)", placers.ErrBadOption, name, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// prepare builds the model of req and refuses inputs no split can serve:
// a CPU-only op without CPUs.
func prepare(req *placers.Request) (*maxload.Model, error) {
	m, err := maxload.New(req)
	if err != nil {
		return nil, err
	}
	if m.L() == 0 {
		for op := range req.Graph.Ops {
			if math.IsInf(m.AccTime[op], 1) {
				return nil, fmt.Errorf("infeasible: op %q cannot run on an accelerator and cluster %q has no CPU device: %w",
					req.Graph.Ops[op].Name, req.Cluster.Name, placers.ErrDoesNotFit)
			}
		}
	}
	return m, nil
}

// infeasible explains why no split fits: the largest contracted node (the
// ops that must share a device) against the devices' memory.
func infeasible(m *maxload.Model, dg *dpGraph, what string) error {
	big, at := int64(-1), 0
	for v := 0; v < dg.n; v++ {
		if dg.size[v] > big {
			big, at = dg.size[v], v
		}
	}
	op, opSize := dg.ops[at][0], int64(-1)
	for _, o := range dg.ops[at] {
		if m.Size[o] > opSize {
			op, opSize = o, m.Size[o]
		}
	}
	var total int64
	for _, s := range m.Size {
		total += s
	}
	name := m.Graph.Ops[op].Name
	together := ""
	if len(dg.ops[at]) > 1 {
		together = fmt.Sprintf(" with the %d ops that must share its device", len(dg.ops[at])-1)
	}
	cpu := "no CPU device"
	if m.L() > 0 {
		cpu = fmt.Sprintf("%d CPUs of %d bytes", m.L(), m.CPUMem)
	}
	return fmt.Errorf("infeasible: no %s of graph %q fits %d accelerators of %d bytes and %s: the largest node, %q%s, needs %d bytes (graph total %d bytes): %w",
		what, m.Graph.Name, m.K(), m.AccMem, cpu, name, together, big, total, placers.ErrDoesNotFit)
}

// finish scores an assignment in the max-load model, builds the plan
// (pipelined when po has a schedule) and the report.
func finish(m *maxload.Model, assign []int, po pipelineOpts, objective string, notes []string) (*engine.Plan, *placers.Report, error) {
	ml, at, err := m.Evaluate(assign)
	if err != nil {
		return nil, nil, fmt.Errorf("internal error: split is not valid: %w", err)
	}
	plan := m.Plan(assign)
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
	if po.schedule != "" {
		// one stage per device in topological order: the engine derives
		// them from the devices (a non-contiguous part becomes several
		// virtual stages on its device, section 5.2)
		stages := 0
		for _, c := range counts {
			if c > 0 {
				stages++
			}
		}
		mb := po.microBatches
		if mb == 0 {
			mb = 4 * stages
		}
		plan.Pipeline = &engine.Pipeline{Schedule: po.schedule, MicroBatches: mb}
	}
	return plan, rep, nil
}
