package engine

import "sort"

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

// stageItem is an item of one stage.
type stageItem struct {
	stage int32
	item
}

// deviceItems merges the schedules of stages that share a device. Each
// stage's items are laid out on an idealised pipeline in which every
// stage has a device of its own and items take dur(stage, kind): a forward
// after the same micro-batch's forward on the previous stage, a backward
// after its backward on the next stage (the last stage: after its own
// forward), every item after the previous one of its stage. A device then
// runs its stages' items by their idealised start, ties in the order the
// layout was computed. All devices thus follow one linear extension of
// the item dependencies, so the merge cannot deadlock; a device with one
// stage runs that stage's schedule unchanged.
func deviceItems(sched Schedule, stageDev []int, m int, recompute bool, dur func(st int, k itemKind) float64) map[int][]stageItem {
	p := len(stageDev)
	lists := make([][]item, p)
	stagesOn := map[int][]int{}
	shared := false
	for st := range lists {
		lists[st] = stageItems(sched, st, p, m, recompute)
		d := stageDev[st]
		stagesOn[d] = append(stagesOn[d], st)
		shared = shared || len(stagesOn[d]) > 1
	}
	out := make(map[int][]stageItem, len(stagesOn))
	if !shared {
		for st, its := range lists {
			o := make([]stageItem, len(its))
			for i, it := range its {
				o[i] = stageItem{int32(st), it}
			}
			out[stageDev[st]] = o
		}
		return out
	}
	// item IDs: base[st] + index in lists[st]
	base := make([]int, p+1)
	for st := range lists {
		base[st+1] = base[st] + len(lists[st])
	}
	total := base[p]
	posF := make([]int, p*m) // ID of F(st, i), at st*m+i
	posB := make([]int, p*m)
	for st, its := range lists {
		for i, it := range its {
			switch it.kind {
			case itemForward:
				posF[st*m+int(it.mb)] = base[st] + i
			case itemBackward:
				posB[st*m+int(it.mb)] = base[st] + i
			}
		}
	}
	stageOf := make([]int, total)
	cross := make([]int, total) // the other stage's item it waits for, or -1
	indeg := make([]int, total)
	next := make([][]int, total)
	for st, its := range lists {
		for i, it := range its {
			x := base[st] + i
			stageOf[x] = st
			cross[x] = -1
			if i > 0 {
				indeg[x]++
				next[x-1] = append(next[x-1], x)
			}
			switch {
			case it.kind == itemForward && st > 0:
				cross[x] = posF[(st-1)*m+int(it.mb)]
			case it.kind == itemBackward && st < p-1:
				cross[x] = posB[(st+1)*m+int(it.mb)]
			}
			if c := cross[x]; c >= 0 {
				indeg[x]++
				next[c] = append(next[c], x)
			}
		}
	}
	start := make([]float64, total)
	end := make([]float64, total)
	rank := make([]int, total)
	queue := make([]int, 0, total)
	for x := 0; x < total; x++ {
		if indeg[x] == 0 {
			queue = append(queue, x)
		}
	}
	for k := 0; k < len(queue); k++ {
		x := queue[k]
		rank[x] = k
		st := stageOf[x]
		it := lists[st][x-base[st]]
		end[x] = start[x] + dur(st, it.kind)
		for _, y := range next[x] {
			start[y] = max(start[y], end[x])
			if indeg[y]--; indeg[y] == 0 {
				queue = append(queue, y)
			}
		}
	}
	ids := map[int][]int{}
	for x := 0; x < total; x++ {
		d := stageDev[stageOf[x]]
		ids[d] = append(ids[d], x)
	}
	for d, xs := range ids {
		sort.Slice(xs, func(a, b int) bool {
			xa, xb := xs[a], xs[b]
			if start[xa] != start[xb] {
				return start[xa] < start[xb]
			}
			return rank[xa] < rank[xb]
		})
		o := make([]stageItem, len(xs))
		for i, x := range xs {
			st := stageOf[x]
			o[i] = stageItem{int32(st), lists[st][x-base[st]]}
		}
		out[d] = o
	}
	return out
}
