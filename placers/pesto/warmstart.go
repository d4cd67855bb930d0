package pesto

import (
	"context"
	"fmt"
	"math"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// graph returns the coarse graph as a workloads graph: one op per vertex
// with its members' summed estimated time per device kind (as Measured),
// FLOPs and memory, CPUOnly for a CPU group, and its placement group as
// colocation group; edges carry the bytes each fine producer sends to the
// consumer vertex (its largest tensor), summed.
func (p *problem) graph() (*workloads.Graph, error) {
	c := p.c
	cl := p.est.Cluster
	g := workloads.NewGraph(c.Fine.Name+"/pesto-coarse", c.Fine.Batch)
	g.Training = c.Fine.Training
	for v := 0; v < c.Len(); v++ {
		op := workloads.Op{Name: fmt.Sprintf("v%d", v), Type: "cluster", Measured: map[string]float64{},
			Colocation: fmt.Sprintf("group%d", c.Group[v]), CPUOnly: c.GroupCPU[c.Group[v]]}
		if m := c.Members[v]; len(m) > 0 {
			op.Layer = c.Fine.Ops[m[0]].Layer
		}
		for _, d := range p.targets[c.Group[v]] {
			op.Measured[cl.Devices[d].Kind.Name] = p.dur[v][d]
		}
		for _, m := range c.Members[v] {
			f := &c.Fine.Ops[m]
			op.FLOPs += f.FLOPs
			op.BytesAccessed += f.BytesAccessed
			op.FixedBytes += f.FixedBytes
			pb, ob, tb := p.est.OpMemory(m)
			op.ParamBytes += pb
			op.OutputBytes += ob
			op.TempBytes += tb
		}
		g.AddOp(op)
	}
	for v := 0; v < c.Len(); v++ {
		bytes := map[int]int64{}
		for _, pr := range p.prods[v] {
			for _, o := range pr.outs {
				bytes[o.To] += o.Bytes
			}
		}
		for _, e := range c.Succ[v] {
			g.AddEdge(v, e.To, bytes[e.To]) // 0 within a group
		}
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("coarse graph of %q: %w", c.Fine.Name, err)
	}
	return g, nil
}

// warmStart is Baechi's m-ETF (earliest task first with communication,
// memory-aware; graphalg.ETF, as the placer m-etf runs it) on the coarse
// graph, on a copy of the cluster whose devices hold only the given
// bounds (memBounds; nil: no memory awareness). It returns the placement
// per vertex and the per-device orders (by m-ETF's start times); the error
// wraps placers.ErrDoesNotFit when m-ETF finds no placement within the
// bounds.
func (p *problem) warmStart(ctx context.Context, bounds []float64) (dev []int, orders [][]int, err error) {
	g, err := p.graph()
	if err != nil {
		return nil, nil, err
	}
	cl := p.est.Cluster.Clone()
	aware := false
	for d, b := range bounds {
		if !math.IsInf(b, 1) {
			cl.Devices[d].Memory = int64(math.Floor(b))
			aware = true
		}
	}
	est, err := devices.NewEstimates(g, cl, devices.EstimateOptions{Mode: devices.Exact})
	if err != nil {
		return nil, nil, err
	}
	pr, err := graphalg.NewProblem(&placers.Request{Graph: g, Cluster: cl, Estimates: est})
	if err != nil {
		return nil, nil, err
	}
	s := pr.Schedule()
	book := graphalg.NewBookWith(g, cl, pr.Targets, p.c.Memory)
	if err := graphalg.ETF(ctx, s, book, graphalg.ETFConfig{Level: pr.BLevel(), MemoryAware: aware}); err != nil {
		return nil, nil, fmt.Errorf("m-ETF warm start: %w", err)
	}
	dev = append([]int(nil), s.Dev...)
	return dev, p.orderByStart(dev, s.Start, s.Finish), nil
}

// expertStart maps the Expert placement (Expert) to the placement groups:
// each group goes to the device that holds most of its ops' estimated
// compute under Expert. Vertices are ordered by their earliest start.
// It returns nil when the mapped placement breaks the memory bounds.
func (p *problem) expertStart(ctx context.Context, req *placers.Request, bounds []float64) ([]int, [][]int, error) {
	plan, err := (&Expert{}).Place(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("Expert start: %w", err)
	}
	c := p.c
	share := make([][]float64, c.NumGroups)
	for g := range share {
		share[g] = make([]float64, p.nDev)
	}
	for op, d := range plan.Device {
		share[c.Group[c.Of[op]]][d] += req.Estimates.OpTime(op, d)
	}
	gdev := make([]int, c.NumGroups)
	used := make([]float64, p.nDev)
	for g, ts := range p.targets {
		gdev[g] = ts[0]
		for _, d := range ts {
			if share[g][d] > share[g][gdev[g]] {
				gdev[g] = d
			}
		}
		used[gdev[g]] += float64(p.groupMem[g])
	}
	for d, b := range bounds {
		if used[d] > b {
			return nil, nil, nil
		}
	}
	dev := make([]int, c.Len())
	for v := range dev {
		dev[v] = gdev[c.Group[v]]
	}
	est, _ := p.windows(math.Inf(1))
	return dev, p.orderByStart(dev, est, est), nil
}
