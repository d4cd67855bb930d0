package fastt

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"placesim/placers"
	"placesim/placers/graphalg"
)

// splitDecision is an item of OS-DPOS's split list SP: the op's name,
// the dimension and the number of parts, with the estimated step time
// FT(o_exit) once the split was made.
type splitDecision struct {
	Op     string
	Dim    Dim
	Parts  int
	Finish float64
}

func (s splitDecision) String() string {
	return fmt.Sprintf("%s along %s into %d (FT %.6g s)", s.Op, s.Dim, s.Parts, s.Finish)
}

// osConfig bounds OS-DPOS's search.
type osConfig struct {
	dims []Dim
	// maxTrials bounds the DPOS runs of the split search (0: no bound).
	maxTrials int
}

// osdpos is Algorithm 2 (OS-DPOS) from DPOS's schedule sc0 of w0 (line
// 3): the critical path of that placement (line 4) sorted by decreasing
// computation time (line 5); for each op on it that can be split, DPOS is
// run on the graph with the op split along each valid dimension into each
// n in 2..|accelerators| that divides it (line 8), and the split with the
// smallest FT(o_exit) is kept when it is smaller than the current one
// (line 9-10); the search stops at the first op whose best split does not
// help (line 12), or after cfg.maxTrials DPOS runs. It returns the final
// schedule (sc0 when nothing helped) and the split list.
func osdpos(ctx context.Context, cm *CostModel, p0 *problem, sc0 *schedule, cfg osConfig) (*schedule, []splitDecision, int, error) {
	cp := placedCriticalPath(p0, sc0)
	idm := make([]int, len(p0.w.g.Ops))
	for i := range idm {
		idm[i] = i
	}
	cur, curSc := p0, sc0
	var sp []splitDecision
	trials := 0
	nAcc := len(p0.t.Acc)
	for _, v0 := range cp {
		v := idm[v0]
		if v < 0 {
			continue
		}
		dims, sizes := dimsOf(cur.w, v)
		var best *schedule
		var bestP *problem
		var bestMap []int
		var bestDec splitDecision
		tried := false
		for i, d := range dims {
			if !containsDim(cfg.dims, d) {
				continue
			}
			for n := 2; n <= nAcc; n++ {
				if sizes[i]%n != 0 {
					continue
				}
				if cfg.maxTrials > 0 && trials >= cfg.maxTrials {
					break
				}
				if err := ctx.Err(); err != nil {
					return nil, nil, trials, err
				}
				nw, m, err := splitOperation(cur.w, v, d, n)
				if err != nil {
					return nil, nil, trials, err
				}
				np, err := newProblem(nw, cm)
				if err != nil {
					return nil, nil, trials, err
				}
				trials++
				tried = true
				s, err := dpos(ctx, np)
				if errors.Is(err, placers.ErrDoesNotFit) {
					continue
				}
				if err != nil {
					return nil, nil, trials, err
				}
				if best == nil || s.finish < best.finish {
					best, bestP, bestMap = s, np, m
					bestDec = splitDecision{Op: cur.w.g.Ops[v].Name, Dim: d, Parts: n, Finish: s.finish}
				}
			}
		}
		if !tried {
			if cfg.maxTrials > 0 && trials >= cfg.maxTrials {
				break
			}
			continue // not splittable: not a candidate
		}
		if best == nil || !(best.finish < curSc.finish*(1-1e-9)) {
			break
		}
		for i, x := range idm {
			if x >= 0 {
				idm[i] = bestMap[x]
			}
		}
		cur, curSc = bestP, best
		sp = append(sp, bestDec)
	}
	return curSc, sp, trials, nil
}

func containsDim(ds []Dim, d Dim) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// placedCriticalPath is the critical path of a placement (Algorithm 2,
// line 4-5): ranks with each op's time on its device and each
// dependency's transfer time between the devices of its ops (0 on one
// device), the path by FastT's rule, sorted by decreasing computation
// time (ties: path order).
func placedCriticalPath(p *problem, sc *schedule) []int {
	dev := sc.s.Dev
	c := &graphalg.Costs{W: make([]float64, p.d.Len()), Comm: make([]float64, p.d.NumDeps())}
	for v := range c.W {
		c.W[v] = p.dur(v, dev[v])
		lo, hi := p.d.PredRange(v)
		for k := lo; k < hi; k++ {
			c.Comm[k] = p.cm.Transfer(dev[p.d.PredAt(k)], dev[v], p.d.BytesAt(k))
		}
	}
	cp := criticalPath(p.d, graphalg.BLevel(p.d, c, p.topo))
	sort.SliceStable(cp, func(i, j int) bool { return c.W[cp[i]] > c.W[cp[j]] })
	return cp
}
