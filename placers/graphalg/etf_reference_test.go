package graphalg

import (
	"context"
	"math"
	"slices"
)

// etfReference is ETF the plain way, O(steps x ready ops x devices): at
// each step every ready op on every candidate device. The tests check that
// the heap-based ETF makes the same schedule.
func etfReference(ctx context.Context, s *Schedule, b *Book, cfg ETFConfig) error {
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
			bi, bt = urgentChildRef(s, b, cfg, ready, dr, bi, bd, bt)
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

// urgentChild applies the favourite-child rule of SCT to ETF's choice
// (ready[bi] on device bd at bt): a ready op whose favourite parent ran on
// bd, that may go to bd, and that could start there before the chosen op
// would finish, takes bd first (the earliest such; ties by level). It
// returns the index in ready and start time of the op to schedule on bd.
func urgentChildRef(s *Schedule, b *Book, cfg ETFConfig, ready []int, dr []float64, bi, bd int, bt float64) (int, float64) {
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
		if f := b.Forced(j); f < 0 && !slices.Contains(b.t.Of(j), bd) {
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
