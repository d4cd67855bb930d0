package tarnawski

import (
	"fmt"
	"math"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
)

// pipelineOpts says how a split becomes a pipelined plan.
type pipelineOpts = maxload.PipelineOptions

// prepare builds the model of req for the placer called name and
// refuses inputs no split can serve: no graph, a graph with a cycle, a
// CPU-only op without CPUs.
func prepare(name string, req *placers.Request) (*maxload.Model, error) {
	if req.Graph == nil {
		return nil, fmt.Errorf("%s: no graph", name)
	}
	if _, err := req.Graph.TopoOrder(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
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
	rep, err := m.Report(assign, objective, notes)
	if err != nil {
		return nil, nil, fmt.Errorf("internal error: split is not valid: %w", err)
	}
	plan := m.Plan(assign)
	po.Apply(plan, m.Graph.Batch)
	return plan, rep, nil
}
