package graphalg

import (
	"fmt"

	"placesim/placers"
)

// Problem bundles what the list-scheduling placers derive from a request:
// the DAG view, the devices each op may use, mean costs and a topological
// order. It checks the request first.
type Problem struct {
	Req     *placers.Request
	DAG     *DAG
	Targets *Targets
	// Costs are MeanCosts of the estimates.
	Costs *Costs
	// Topo is KahnOrder(DAG).
	Topo []int
}

// NewProblem prepares req. It is an error when the request lacks a graph,
// cluster or estimates, when the estimates are for another graph, or when
// the graph has a cycle or an op no device can run.
func NewProblem(req *placers.Request) (*Problem, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil || req.Estimates == nil {
		return nil, fmt.Errorf("placement request needs a graph, a cluster and estimates")
	}
	if req.Estimates.Graph != nil && len(req.Estimates.Graph.Ops) != len(req.Graph.Ops) {
		return nil, fmt.Errorf("estimates are for %d ops, graph %q has %d", len(req.Estimates.Graph.Ops), req.Graph.Name, len(req.Graph.Ops))
	}
	if len(req.Graph.Ops) == 0 {
		return nil, fmt.Errorf("graph %q has no ops", req.Graph.Name)
	}
	p := &Problem{Req: req, DAG: NewDAG(req.Graph)}
	var err error
	if p.Targets, err = NewTargets(req.Graph, req.Cluster); err != nil {
		return nil, err
	}
	if p.Topo, err = KahnOrder(p.DAG); err != nil {
		return nil, fmt.Errorf("graph %q: %w", req.Graph.Name, err)
	}
	p.Costs = MeanCosts(p.DAG, req.Estimates, p.Targets)
	return p, nil
}

// BLevel is BLevel of the problem's mean costs.
func (p *Problem) BLevel() []float64 { return BLevel(p.DAG, p.Costs, p.Topo) }

// TLevel is TLevel of the problem's mean costs.
func (p *Problem) TLevel() []float64 { return TLevel(p.DAG, p.Costs, p.Topo) }

// CPDOrder is the CPD-TOPO order of the problem's graph.
func (p *Problem) CPDOrder() ([]int, error) {
	return CPDTopo(p.DAG, CPath(p.TLevel(), p.BLevel()))
}

// Book returns an empty colocation and memory book.
func (p *Problem) Book() *Book { return NewBook(p.Req.Graph, p.Req.Estimates, p.Targets) }

// Schedule returns an empty schedule on the estimates.
func (p *Problem) Schedule() *Schedule { return EstimateSchedule(p.DAG, p.Req.Estimates) }
