package pesto

import (
	"strconv"

	"placesim/placers"
)

// optionDecls declares Pesto's options (read by ParseConfig).
func optionDecls() []placers.Option {
	return []placers.Option{
		{Name: "vertices", Type: placers.Int, Default: strconv.Itoa(DefaultVertices), Min: 1, Max: maxILPVertices,
			Doc: "coarsen the graph to about this many vertices before the ILP (section 3.3)"},
		{Name: "groupcap", Type: placers.Float, Default: "0", Min: 0, Max: 1,
			Doc: "cap on a placement group's compute, a fraction of the total; 0: none"},
		{Name: "vertexcap", Type: placers.Float, Default: strconv.FormatFloat(DefaultVertexCap, 'g', -1, 64), Min: 0, Max: 1e6,
			Doc: "cap on a merged vertex's compute, a multiple of the mean per vertex at the target; 0: none"},
		{Name: "timelimit", Type: placers.Duration, Default: DefaultTimeLimit.String(), Min: 1e-9, Max: 1e7,
			Doc: "CBC time limit for the ILP"},
		{Name: "gap", Type: placers.Float, Default: "0", Min: 0, Max: 1,
			Doc: "relative optimality gap at which CBC stops"},
		{Name: "threads", Type: placers.Int, Default: "1", Min: 1, Max: 256,
			Doc: "CBC threads (1: deterministic)"},
		{Name: "memory", Type: placers.Enum, Default: string(MemoryBalance), Values: []string{string(MemoryBalance), string(MemoryLimit), string(MemoryNone)},
			Doc: "memory constraint of the ILP: balanced shares, the devices' capacity, or none"},
		{Name: "slack", Type: placers.Float, Default: strconv.FormatFloat(DefaultSlack, 'g', -1, 64), Min: 0, Max: 100,
			Doc: "memory balance slack: a device may hold (1+slack) times its share"},
		{Name: "congestion", Type: placers.Bool, Default: "true",
			Doc: "model link congestion in the ILP (section 3.2.2)"},
		{Name: "warmstart", Type: placers.Bool, Default: "true",
			Doc: "start CBC from m-ETF's schedule"},
		{Name: "schedule", Type: placers.Enum, Default: ScheduleOrder, Values: []string{ScheduleOrder, ScheduleBlock, SchedulePriority, ScheduleNone},
			Doc: "what of the ILP's schedule the plan carries (order: the faster of block and priority)"},
		{Name: "start", Type: placers.Enum, Default: StartMETF, Values: []string{StartMETF, StartBest},
			Doc: "MIP start: m-ETF's, or the better of m-ETF's and the Expert placement"},
		{Name: "dir", Type: placers.String, Resource: placers.Directory,
			Doc: "keep the ILP model, start, solution and solver log in this directory (default: a temporary one, removed)"},
	}
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	for _, e := range []placers.Entry{
		{Name: "pesto", Description: "Pesto: coarsening to ~200 vertices, then the placement-and-scheduling ILP on CBC, m-ETF warm start", New: New,
			Options: optionDecls()},
		{Name: "pesto-expert", Description: "Pesto's Expert placements: LSTM/Transformer layers split across GPUs, embedding first, attention and softmax last; NASNet branches spread", New: NewExpert},
	} {
		if err := r.Add(e); err != nil {
			return err
		}
	}
	return nil
}
