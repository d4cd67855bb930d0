package baseline

import (
	"context"
	"fmt"
	"math/rand/v2"

	"placesim/engine"
	"placesim/placers"
)

var (
	_ placers.Placer = (*Single)(nil)
	_ placers.Placer = (*RoundRobin)(nil)
	_ placers.Placer = (*Random)(nil)
)

// Single puts every op on one device (option device=N, default the first
// accelerator); CPU-only ops go to the first CPU device.
type Single struct{ device int }

// NewSingle makes a Single placer (options: SingleArgs).
func NewSingle(a SingleArgs) (placers.Placer, error) { return &Single{device: a.Device}, nil }

// Name implements placers.Placer.
func (*Single) Name() string { return "single" }

// Place implements placers.Placer.
func (s *Single) Place(_ context.Context, req *placers.Request) (*engine.Plan, error) {
	acc, cpus := placers.Targets(req.Cluster)
	d := acc[0]
	if s.device >= 0 {
		if s.device >= len(req.Cluster.Devices) {
			return nil, fmt.Errorf("%w: device=%d, cluster %q has devices 0..%d", placers.ErrBadOption, s.device, req.Cluster.Name, len(req.Cluster.Devices)-1)
		}
		d = s.device
	}
	return assignUnits(req, func(int) int { return d }, cpus)
}

// RoundRobin deals colocation units to the accelerators in turn, in
// topological order of their first op.
type RoundRobin struct{}

// NewRoundRobin makes a RoundRobin placer (no options).
func NewRoundRobin(placers.NoArgs) (placers.Placer, error) { return &RoundRobin{}, nil }

// Name implements placers.Placer.
func (*RoundRobin) Name() string { return "round-robin" }

// Place implements placers.Placer.
func (*RoundRobin) Place(_ context.Context, req *placers.Request) (*engine.Plan, error) {
	acc, cpus := placers.Targets(req.Cluster)
	order, err := req.Graph.TopoOrder()
	if err != nil {
		return nil, err
	}
	unitOf, _ := placers.Groups(req.Graph)
	rank := make([]int, len(unitOf)) // unit -> position of first appearance
	for i := range rank {
		rank[i] = -1
	}
	next := 0
	for _, op := range order {
		if u := unitOf[op]; rank[u] < 0 {
			rank[u] = next
			next++
		}
	}
	return assignUnits(req, func(u int) int { return acc[rank[u]%len(acc)] }, cpus)
}

// Random puts each colocation unit on a uniformly drawn accelerator, from
// the request's seed.
type Random struct{}

// NewRandom makes a Random placer (no options).
func NewRandom(placers.NoArgs) (placers.Placer, error) { return &Random{}, nil }

// Name implements placers.Placer.
func (*Random) Name() string { return "random" }

// Place implements placers.Placer.
func (*Random) Place(_ context.Context, req *placers.Request) (*engine.Plan, error) {
	acc, cpus := placers.Targets(req.Cluster)
	rng := rand.New(rand.NewPCG(req.Seed, 0x5eed))
	_, units := placers.Groups(req.Graph)
	pick := make([]int, len(units))
	for u := range pick {
		pick[u] = acc[rng.IntN(len(acc))]
	}
	return assignUnits(req, func(u int) int { return pick[u] }, cpus)
}

// assignUnits places each colocation unit on deviceOf(unit); units with a
// CPU-only op go to the first CPU device instead.
func assignUnits(req *placers.Request, deviceOf func(unit int) int, cpus []int) (*engine.Plan, error) {
	g := req.Graph
	plan := placers.NewPlan(g)
	_, units := placers.Groups(g)
	for u, ops := range units {
		d := deviceOf(u)
		if placers.UnitNeedsCPU(g, ops) {
			if len(cpus) == 0 {
				return nil, fmt.Errorf("op %q is CPU-only and cluster %q has no CPU device", g.Ops[ops[0]].Name, req.Cluster.Name)
			}
			d = cpus[0]
		}
		for _, op := range ops {
			plan.Device[op] = d
		}
	}
	return plan, nil
}
