package engine

// itemKind is the part of a stage's work a schedule item runs.
type itemKind uint8

const (
	itemForward   itemKind = iota // the stage's forward ops for one micro-batch
	itemBackward                  // its backward ops for one micro-batch
	itemRecompute                 // its forward again, just before that backward
	itemUpdate                    // its update ops (mb = -1: once per step)
)

// item is one entry of a stage's schedule.
type item struct {
	kind itemKind
	mb   int32
}

// stageItems is the order in which stage s of p runs its work for m
// micro-batches under the schedule; recompute inserts a recompute item
// before every backward.
//
//   - gpipe: F(0..m-1), then B(m-1..0), then U once (GPipe, Huang et al.
//     2019, Fig. 2c: all forwards, all backwards, flush, update).
//   - 1f1b: warm-up F(0..w-1) with w = min(p-s-1, m), then F(w+i), B(i)
//     alternately, then cool-down B(m-w..m-1), then U once (PipeDream-flush
//     / Megatron's 1F1B).
//   - pipedream: the 1f1b order with U(i) after every B(i) and no flush
//     (PipeDream, Narayanan et al. SOSP'19, §3.2 "1F1B" and §3.3 weight
//     stashing).
func stageItems(sched Schedule, s, p, m int, recompute bool) []item {
	its := make([]item, 0, 3*m+1)
	fwd := func(i int) { its = append(its, item{itemForward, int32(i)}) }
	bwd := func(i int) {
		if recompute {
			its = append(its, item{itemRecompute, int32(i)})
		}
		its = append(its, item{itemBackward, int32(i)})
		if sched == PipeDream {
			its = append(its, item{itemUpdate, int32(i)})
		}
	}
	switch sched {
	case GPipe:
		for i := 0; i < m; i++ {
			fwd(i)
		}
		for i := m - 1; i >= 0; i-- {
			bwd(i)
		}
	case OneFOneB, PipeDream:
		w := min(p-s-1, m)
		for i := 0; i < w; i++ {
			fwd(i)
		}
		for i := 0; i < m-w; i++ {
			fwd(w + i)
			bwd(i)
		}
		for i := m - w; i < m; i++ {
			bwd(i)
		}
	}
	if sched != PipeDream {
		its = append(its, item{itemUpdate, -1})
	}
	return its
}
