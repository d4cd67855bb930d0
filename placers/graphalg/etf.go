package graphalg

import (
	"context"
	"math"
	"slices"

	"placesim/internal/heap"
)

// ETFConfig tunes ETF.
type ETFConfig struct {
	// Level ranks ops that could start at the same time: the higher level
	// first (Hwang et al. 1989 use the static level; callers pass BLevel).
	// Required.
	Level []float64
	// MemoryAware excludes a device on which the op's colocation unit
	// would overflow the memory (Baechi's m-ETF); when a ready op has no
	// device left, ETF fails with Book.NoFit.
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
// The schedule s and book b must be empty; ETF fills them.
//
// The start of ready op v on device d is max(dr(v, d), avail(d)), where
// the data-ready time dr is fixed once v is ready and avail only grows. So
// each device keeps two heaps of its ready ops: those whose data is not
// there yet, by dr, and those that could start as soon as the device is
// free, by level; a device's best op is the top of the second heap, or
// else of the first. A step costs O(devices x log(ready ops)); entries made
// stale by scheduling, colocation or memory are dropped when they surface.
func ETF(ctx context.Context, s *Schedule, b *Book, cfg ETFConfig) error {
	e := newETF(s, b, cfg)
	return e.run(ctx)
}

type etf struct {
	s     *Schedule
	b     *Book
	cfg   ETFConfig
	nDev  int
	dr    []float64 // op x device data-ready times, set when the op is ready
	done  []bool
	ready []bool
	alive []int32 // device heaps an unforced op is still a candidate in
	wait  []*heap.Heap[int32]
	avail []*heap.Heap[int32]
	fav   [][]int32 // per device: ready ops whose favourite parent ran there
}

func newETF(s *Schedule, b *Book, cfg ETFConfig) *etf {
	n, nDev := s.DAG.Len(), len(s.Lines)
	e := &etf{s: s, b: b, cfg: cfg, nDev: nDev, dr: make([]float64, n*nDev),
		done: make([]bool, n), ready: make([]bool, n), alive: make([]int32, n),
		wait: make([]*heap.Heap[int32], nDev), avail: make([]*heap.Heap[int32], nDev)}
	lvl := cfg.Level
	for d := 0; d < nDev; d++ {
		d := d
		e.wait[d] = heap.New(func(pa, pb *int32) bool {
			a, b := *pa, *pb
			x, y := e.dr[int(a)*nDev+d], e.dr[int(b)*nDev+d]
			if x != y {
				return x < y
			}
			if lvl[a] != lvl[b] {
				return lvl[a] > lvl[b]
			}
			return a < b
		})
		e.avail[d] = heap.New(func(pa, pb *int32) bool {
			a, b := *pa, *pb
			if lvl[a] != lvl[b] {
				return lvl[a] > lvl[b]
			}
			return a < b
		})
	}
	if cfg.FavParent != nil {
		e.fav = make([][]int32, nDev)
	}
	return e
}

func (e *etf) run(ctx context.Context) error {
	d := e.s.DAG
	n := d.Len()
	indeg := make([]int32, n)
	for v := 0; v < n; v++ {
		indeg[v] = int32(d.InDegree(v))
		if indeg[v] == 0 {
			e.makeReady(v)
		}
	}
	for step := 0; step < n; step++ {
		if step&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bv, bd, bt := int32(-1), -1, math.Inf(1)
		for dev := 0; dev < e.nDev; dev++ {
			v, t, err := e.best(dev)
			if err != nil {
				return err
			}
			if v < 0 {
				continue
			}
			if bv < 0 || t < bt || (t == bt && better(e.cfg.Level, int(v), int(bv))) {
				bv, bd, bt = v, dev, t
			}
		}
		if bv < 0 {
			// every ready op was dropped: one that fits nowhere
			for v := 0; v < n; v++ {
				if e.ready[v] && !e.done[v] {
					return e.b.NoFit(v)
				}
			}
			return ErrNoDevice
		}
		if e.fav != nil {
			bv, bt = e.urgentChild(bv, bd, bt)
		}
		v := int(bv)
		e.s.Assign(v, bd, bt)
		e.done[v] = true
		if e.b.Forced(v) < 0 {
			e.b.Place(v, bd)
			// the unit's other ready ops may have been dropped from bd
			for _, x := range e.b.t.Units[e.b.t.UnitOf[v]] {
				if x != v && e.ready[x] && !e.done[x] {
					e.push(bd, int32(x))
				}
			}
		}
		for _, c := range d.Succ(v) {
			if indeg[c]--; indeg[c] == 0 {
				e.makeReady(int(c))
			}
		}
	}
	return nil
}

func (e *etf) makeReady(v int) {
	e.ready[v] = true
	for dev := 0; dev < e.nDev; dev++ {
		e.dr[v*e.nDev+dev] = e.s.DataReady(v, dev)
	}
	if f := e.b.Forced(v); f >= 0 {
		e.push(f, int32(v))
	} else {
		cands := e.b.t.Of(v)
		e.alive[v] = int32(len(cands))
		for _, dev := range cands {
			e.push(dev, int32(v))
		}
	}
	if e.fav != nil {
		if fp := e.cfg.FavParent[v]; fp >= 0 {
			d := e.s.Dev[fp]
			e.fav[d] = append(e.fav[d], int32(v))
		}
	}
}

func (e *etf) push(dev int, v int32) {
	if e.dr[int(v)*e.nDev+dev] <= e.s.Lines[dev].End() {
		e.avail[dev].Push(v)
	} else {
		e.wait[dev].Push(v)
	}
}

// valid reports whether v may still go to dev now; an op that no longer
// fits dev is dropped for good (memory only shrinks while its unit is
// unplaced), and an error is returned when that was its last device.
func (e *etf) valid(dev int, v int32) (bool, error) {
	if e.done[v] {
		return false, nil
	}
	if f := e.b.Forced(int(v)); f >= 0 {
		return f == dev, nil
	}
	if e.cfg.MemoryAware && !e.b.Fits(int(v), dev) {
		if e.alive[v]--; e.alive[v] == 0 {
			return false, e.b.NoFit(int(v))
		}
		return false, nil
	}
	return true, nil
}

// best is dev's best ready op and its start time (-1 when none).
func (e *etf) best(dev int) (int32, float64, error) {
	end := e.s.Lines[dev].End()
	w, a := e.wait[dev], e.avail[dev]
	for w.Len() > 0 && e.dr[int(w.Top())*e.nDev+dev] <= end {
		a.Push(w.Pop())
	}
	// an op ready by the line's end starts then; otherwise the waiting op
	// ready first starts when it is ready
	v, err := e.validTop(dev, a)
	if err != nil || v >= 0 {
		return v, end, err
	}
	if v, err = e.validTop(dev, w); err != nil || v < 0 {
		return v, 0, err
	}
	return v, e.dr[int(v)*e.nDev+dev], nil
}

// validTop drops from h the ops dev may not take (valid) and returns
// the top of what is left (-1 when h empties, or on an error).
func (e *etf) validTop(dev int, h *heap.Heap[int32]) (int32, error) {
	for h.Len() > 0 {
		v := h.Top()
		ok, err := e.valid(dev, v)
		if err != nil {
			return -1, err
		}
		if ok {
			return v, nil
		}
		h.Pop()
	}
	return -1, nil
}

// urgentChild applies the favourite-child rule of SCT to ETF's choice (v
// on dev at t): a ready op whose favourite parent ran on dev, that may go
// to dev and that could start there before v would finish takes dev first
// (the earliest such; ties by level, then ID). It returns the op to
// schedule on dev and its start.
func (e *etf) urgentChild(v int32, dev int, t float64) (int32, float64) {
	if fp := e.cfg.FavParent[v]; fp >= 0 && e.s.Dev[fp] == dev {
		return v, t
	}
	limit := t + e.s.Dur(int(v), dev)
	end := e.s.Lines[dev].End()
	list := e.fav[dev]
	uv, ut := int32(-1), math.Inf(1)
	keep := list[:0]
	for _, j := range list {
		if e.done[j] {
			continue
		}
		keep = append(keep, j)
		if j == v {
			continue
		}
		if f := e.b.Forced(int(j)); f >= 0 {
			if f != dev {
				continue
			}
		} else if !slices.Contains(e.b.t.Of(int(j)), dev) || (e.cfg.MemoryAware && !e.b.Fits(int(j), dev)) {
			continue
		}
		tj := max(e.dr[int(j)*e.nDev+dev], end)
		if tj >= limit {
			continue
		}
		if uv < 0 || tj < ut || (tj == ut && better(e.cfg.Level, int(j), int(uv))) {
			uv, ut = j, tj
		}
	}
	e.fav[dev] = keep
	if uv < 0 {
		return v, t
	}
	return uv, ut
}

// better reports whether op a goes before op b at an equal start time.
func better(level []float64, a, b int) bool {
	if level[a] != level[b] {
		return level[a] > level[b]
	}
	return a < b
}
