package fastt

import (
	"math"

	"placesim/engine"
)

// simulate estimates a plan's per-iteration time the way FastT measures a
// strategy it has activated (section 4: it rolls back a new strategy that
// is slower than the previous one): the engine plays the plan on a copy of
// the graph whose ops take the cost model's times (so the placer still
// sees only its estimates), with the cluster's links. An out-of-memory
// plan is +Inf.
func (m *CostModel) simulate(w *work, times []float64, plan *engine.Plan) (float64, error) {
	g := w.g.Clone()
	K := len(m.kinds)
	for v := range g.Ops {
		ms := make(map[string]float64, K)
		for k, kind := range m.kinds {
			t := times[v*K+k]
			if math.IsInf(t, 1) {
				continue
			}
			if kind.MeasuredScale > 0 {
				t /= kind.MeasuredScale
			}
			ms[kind.Name] = t
		}
		g.Ops[v].Measured = ms
	}
	pl := *plan
	pl.Graph = g
	res, err := engine.Simulate(g, m.c, &pl, engine.Options{})
	if err != nil {
		return 0, err
	}
	if res.OOM != nil {
		return math.Inf(1), nil
	}
	return res.StepTime, nil
}
