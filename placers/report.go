package placers

import (
	"context"

	"placesim/engine"
	"placesim/workloads"
)

// Report is what a placer can tell about the plan it returned beyond the
// plan itself: its own objective's value, the parts it split the graph
// into, the bottleneck, notes such as "the solver stopped at its time
// limit". Times are seconds.
type Report struct {
	// Objective names what the placer minimised ("max-load", "latency").
	Objective string `json:"objective,omitempty"`
	// Value is the objective's value at the plan, in the placer's own cost
	// model (seconds; per sample for max-load).
	Value float64 `json:"value"`
	// MaxLoad is the max-load (time per sample, seconds) of the plan in
	// the max-load model of Tarnawski et al., for placers that compute it.
	MaxLoad float64 `json:"maxLoad,omitempty"`
	// Bottleneck names the device with the largest load.
	Bottleneck string `json:"bottleneck,omitempty"`
	// Devices describes each device's share, in cluster order.
	Devices []DeviceShare `json:"devices,omitempty"`
	// Explain is a human-readable account of the loads.
	Explain string `json:"-"`
	// Ideals is the number of ideals a DP over ideals (tarnawski-dp,
	// tarnawski-dpl) enumerated, and TableBytes the memory of its table.
	Ideals     int   `json:"ideals,omitempty"`
	TableBytes int64 `json:"tableBytes,omitempty"`
	// Notes are facts about the search (solver status, gap, ideals).
	Notes []string `json:"notes,omitempty"`
	// Fallback, when set, says that the plan is not what the placer's own
	// method produced but a substitute, and why ("m-ETF warm start; CBC:
	// no incumbent before the time limit"). Empty when the method ran to
	// its end. A result table shows it beside the placer's name.
	Fallback string `json:"fallback,omitempty"`
	// Relaxed lists the constraints the placer dropped or loosened to find
	// a plan ("memory: balance relaxed to none"), each with its reason.
	Relaxed []string `json:"relaxed,omitempty"`
}

// PlanGraph is the graph plan applies to: the graph the placer rewrote
// (operator splitting, fusion; engine.Plan.Graph) when it did, else g, the
// graph it was asked to place. Every consumer of a plan (split listing,
// report, trace, chart) indexes ops in this graph, never in g directly.
func PlanGraph(g *workloads.Graph, plan *engine.Plan) *workloads.Graph {
	if plan != nil && plan.Graph != nil {
		return plan.Graph
	}
	return g
}

// DeviceShare is one device's part of a split.
type DeviceShare struct {
	Device string  `json:"device"`
	Ops    int     `json:"ops"`
	Load   float64 `json:"load"`
	Memory int64   `json:"memory"`
}

// Reporter is implemented by placers that describe their plan.
type Reporter interface {
	Placer
	// PlaceReport is Place with a report on the plan.
	PlaceReport(ctx context.Context, req *Request) (*engine.Plan, *Report, error)
}

// PlaceWithReport runs p on req and returns its report when it is a
// Reporter (nil otherwise).
func PlaceWithReport(ctx context.Context, p Placer, req *Request) (*engine.Plan, *Report, error) {
	if r, ok := p.(Reporter); ok {
		return r.PlaceReport(ctx, req)
	}
	plan, err := p.Place(ctx, req)
	return plan, nil, err
}
