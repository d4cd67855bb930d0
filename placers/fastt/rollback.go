package fastt

import (
	"fmt"
	"math"
	"strings"

	"placesim/engine"
	"placesim/placers"
)

// The names of the data-parallel strategies in the notes.
const (
	dpName    = "data parallel"
	dpTF1Name = "data parallel (TF 1.x in-graph)"
)

// candidate is a strategy FastT may activate.
type candidate struct {
	name  string
	w     *work
	times []float64
	plan  *engine.Plan
	// ft is the strategy's FT(o_exit), or its simulated time for the
	// data-parallel start.
	ft float64
	// sc is DPOS's schedule (nil for data parallelism).
	sc *schedule
}

// rollBack is FastT's activation rule (section 4): a new strategy replaces
// the previous one only when its per-iteration time is smaller, else the
// previous one stays. The strategies, in the order FastT computes them,
// are the data-parallel start (when the graph can be trained data
// parallel: data-parallel's plan, or data-parallel-tf1's with dp=tf1),
// DPOS's plan, DPOS's with the replicas kept and OS-DPOS's; each is timed
// by simulating it on the cost model's times (CostModel.simulate). A
// strategy that runs out of memory there is never kept; when all do,
// rollBack fails with placers.ErrDoesNotFit and the memory asked. It
// returns the one kept and notes the times in rep.
func (f *FastT) rollBack(req *placers.Request, cm *CostModel, cands []candidate, rep *placers.Report) (candidate, error) {
	var all []candidate
	acc, _ := placers.Targets(req.Cluster)
	if len(acc) > 1 {
		if f.dp == DPTF1 {
			if w, dp, err := tf1Plan(req.Graph, req.Cluster); err == nil {
				all = append(all, candidate{name: dpTF1Name, w: w, times: cm.opTimes(w), plan: dp})
			}
		} else if dp, err := dataParallelPlan(req.Graph, req.Cluster, f.bucket, f.overlap); err == nil {
			w := modelWork(req.Graph)
			all = append(all, candidate{name: dpName, w: w, times: cm.opTimes(w), plan: dp})
		}
	}
	all = append(all, cands...)
	best, bestT := -1, math.Inf(1)
	var ooms []string
	for i, c := range all {
		t, oom, err := cm.simulate(c.w, c.times, c.plan)
		if err != nil {
			return candidate{}, fmt.Errorf("time the %s strategy: %w", c.name, err)
		}
		if oom != "" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s", c.name, oom))
			ooms = append(ooms, c.name+": "+oom)
			continue
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: simulated step %.6g s", c.name, t))
		if best < 0 || t < bestT {
			best, bestT = i, t
		}
	}
	if best < 0 {
		return candidate{}, fmt.Errorf("%w: every strategy runs out of memory with the estimates (%s)", placers.ErrDoesNotFit, strings.Join(ooms, "; "))
	}
	kept := all[best]
	if kept.name == dpName || kept.name == dpTF1Name {
		rep.Value = bestT
	} else {
		rep.Value = kept.ft
	}
	rep.Notes = append(rep.Notes, "kept: "+kept.name)
	return kept, nil
}
