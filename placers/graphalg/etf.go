package graphalg

import (
	"context"
	"math"
)

// ETFConfig tunes ETF.
type ETFConfig struct {
	// Level ranks ops that could start at the same time: the higher level
	// first (Hwang et al. 1989 use the static level; callers pass BLevel).
	// Required.
	Level []float64
	// MemoryAware excludes a device on which the op's colocation unit
	// would overflow the memory (Baechi's m-ETF); when no device is left
	// for a ready op, ETF fails with Book.NoFit.
	MemoryAware bool
	// FavParent, when set, is each op's favourite parent (-1 for none)
	// from small communication time scheduling (Hanen and Munier 1995; see
	// baechi.MSCT): a device that ran an op is kept for that op's
	// favourite child whenever the ETF choice would delay the child there.
	FavParent []int32
}

// ETF is earliest-task-first list scheduling with communication (Hwang,
// Chow, Anger and Lee 1989): at each step, among the ready ops (all
// predecessors scheduled) and their candidate devices (Book.Candidates),
// the pair with the earliest start time is scheduled, without insertion
// (a device is available from the finish of its last op); ties go to the
// higher Level, then the smaller op ID, then the smaller device index.
// The schedule s and book b must be empty; ETF fills them. The data-ready
// time of a ready op on each device is computed once, when it becomes
// ready, so a step costs O(ready ops x devices).
func ETF(ctx context.Context, s *Schedule, b *Book, cfg ETFConfig) error {
	d := s.DAG
	n, nDev := d.Len(), len(s.Lines)
	indeg := make([]int32, n)
	dr := make([]float64, n*nDev)
	var ready []int
	makeReady := func(v int) {
		for dev := 0; dev < nDev; dev++ {
			dr[v*nDev+dev] = s.DataReady(v, dev)
		}
		ready = append(ready, v)
	}
	for v := 0; v < n; v++ {
		indeg[v] = int32(d.InDegree(v))
		if indeg[v] == 0 {
			makeReady(v)
		}
	}
	for step := 0; len(ready) > 0; step++ {
		if step&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bi, bd, bt := -1, -1, math.Inf(1)
		var one [1]int
		for i, v := range ready {
			cands := b.t.Of(v)
			if f := b.Forced(v); f >= 0 {
				one[0] = f
				cands = one[:]
			}
			feasible := false
			for _, dev := range cands {
				if cfg.MemoryAware && !b.Fits(v, dev) {
					continue
				}
				feasible = true
				t := max(dr[v*nDev+dev], s.Lines[dev].End())
				if bi < 0 || t < bt || (t == bt && better(cfg.Level, v, ready[bi])) {
					bi, bd, bt = i, dev, t
				}
			}
			if !feasible {
				return b.NoFit(v)
			}
		}
		if cfg.FavParent != nil {
			bi, bt = urgentChild(s, b, cfg, ready, dr, bi, bd, bt)
		}
		v := ready[bi]
		s.Assign(v, bd, bt)
		b.Place(v, bd)
		ready[bi] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		for _, c := range d.Succ(v) {
			if indeg[c]--; indeg[c] == 0 {
				makeReady(int(c))
			}
		}
	}
	return nil
}

// better reports whether op a goes before op b at an equal start time.
func better(level []float64, a, b int) bool {
	if level[a] != level[b] {
		return level[a] > level[b]
	}
	return a < b
}

// urgentChild applies the favourite-child rule of SCT to ETF's choice
// (ready[bi] on device bd at bt): a ready op whose favourite parent ran on
// bd, that may go to bd, and that could start there before the chosen op
// would finish, takes bd first (the earliest such; ties by level). It
// returns the index in ready and start time of the op to schedule on bd.
func urgentChild(s *Schedule, b *Book, cfg ETFConfig, ready []int, dr []float64, bi, bd int, bt float64) (int, float64) {
	nDev := len(s.Lines)
	v := ready[bi]
	if fp := cfg.FavParent[v]; fp >= 0 && s.Dev[fp] == bd {
		return bi, bt // the choice is itself bd's favourite child
	}
	limit := bt + s.Dur(v, bd)
	ui, ut := -1, math.Inf(1)
	for i, j := range ready {
		fp := cfg.FavParent[j]
		if fp < 0 || s.Dev[fp] != bd || i == bi {
			continue
		}
		if f := b.Forced(j); f >= 0 && f != bd {
			continue
		}
		if cfg.MemoryAware && !b.Fits(j, bd) {
			continue
		}
		if f := b.Forced(j); f < 0 && !contains(b.t.Of(j), bd) {
			continue
		}
		t := max(dr[j*nDev+bd], s.Lines[bd].End())
		if t >= limit {
			continue
		}
		if ui < 0 || t < ut || (t == ut && better(cfg.Level, j, ready[ui])) {
			ui, ut = i, t
		}
	}
	if ui < 0 {
		return bi, bt
	}
	return ui, ut
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
