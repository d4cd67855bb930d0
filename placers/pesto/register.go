package pesto

import (
	"time"

	"placesim/placers"
)

// Args are Pesto's options: the Config they set, and congestion, whose
// negation is Config.ILP.NoCongestion.
type Args struct {
	Config
	// Congestion models link congestion in the ILP (section 3.2.2).
	Congestion bool
}

// Declare implements placers.Args.
func (a *Args) Declare(d *placers.Decls) {
	c := &a.Config
	d.Int(&c.Coarsen.Target, "vertices", DefaultVertices, 1, maxILPVertices,
		"coarsen the graph to about this many vertices before the ILP (section 3.3)")
	d.Float(&c.Coarsen.GroupCap, "groupcap", 0, 0, 1, "cap on a placement group's compute, a fraction of the total; 0: none")
	d.Float(&c.Coarsen.VertexCap, "vertexcap", DefaultVertexCap, 0, 1e6,
		"cap on a merged vertex's compute, a multiple of the mean per vertex at the target; 0: none")
	d.Duration(&c.ILP.TimeLimit, "timelimit", DefaultTimeLimit, time.Nanosecond, 1e7*time.Second, "CBC time limit for the ILP")
	d.Float(&c.ILP.RelGap, "gap", 0, 0, 1, "relative optimality gap at which CBC stops")
	d.Int(&c.ILP.Threads, "threads", 1, 1, 256, "CBC threads (1: deterministic)")
	placers.DeclareEnum(d, &c.ILP.Memory, "memory", MemoryBalance, []MemoryMode{MemoryBalance, MemoryLimit, MemoryNone},
		"memory constraint of the ILP: balanced shares, the devices' capacity, or none")
	d.Float(&c.ILP.Slack, "slack", DefaultSlack, 0, 100, "memory balance slack: a device may hold (1+slack) times its share")
	d.Bool(&a.Congestion, "congestion", true, "model link congestion in the ILP (section 3.2.2)")
	d.Bool(&c.WarmStart, "warmstart", true, "start CBC from m-ETF's schedule")
	placers.DeclareEnum(d, &c.Schedule, "schedule", ScheduleOrder, []string{ScheduleOrder, ScheduleBlock, SchedulePriority, ScheduleNone},
		"what of the ILP's schedule the plan carries (order: the faster of block and priority)")
	placers.DeclareEnum(d, &c.Start, "start", StartMETF, []string{StartMETF, StartBest},
		"MIP start: m-ETF's, or the better of m-ETF's and the Expert placement")
	d.Int(&c.Search, "search", DefaultSearch, 0, 1000000,
		"simulations the placement-group search may spend on the fastest of the ILP's plan and its starts (0: none)")
	d.Int(&c.LayerSearch, "layersearch", DefaultLayerSearch, 0, 1000000,
		"simulations the layer search may spend: whole layers moved and swapped between the GPUs, a candidate beside the starts (0: none)")
	d.Int(&c.RangeSearch, "rangesearch", DefaultRangeSearch, 0, 1000000,
		"simulations the range search may spend: runs of a layer's ops (time steps, branches) moved between the GPUs from the layer search's plans, a candidate beside them (0: none)")
	d.Int(&c.OrderSearch, "ordersearch", DefaultOrderSearch, 0, 1000000,
		"simulations the order search may spend on the fastest plan: producers of cross-device transfers moved in their device's order (0: none)")
	d.Path(&c.ILP.Dir, "dir", placers.Directory, "",
		"keep the ILP model, start, solution and solver log in this directory (default: a temporary one, removed)")
}

// config is the Config a has set.
func (a Args) config() Config {
	c := a.Config
	c.ILP.NoCongestion = !a.Congestion
	return c
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("pesto", "Pesto: coarsening to ~200 vertices, then the placement-and-scheduling ILP on CBC, m-ETF warm start; the fastest in simulation of its plan, its starts (m-ETF, Expert, one GPU), a layer search and a range search (runs of a layer's ops moved), improved by placement-group moves and an order search", New),
		placers.Define("pesto-expert", "Pesto's Expert placements: LSTM/Transformer layers split across GPUs, embedding first, attention and softmax last; NASNet branches spread", NewExpert),
	)
}
