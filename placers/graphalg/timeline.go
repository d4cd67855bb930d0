package graphalg

import "sort"

// Timeline is one device's busy intervals, sorted and disjoint: the device
// availability that insertion-based list scheduling (HEFT, Celeritas'
// Adjusting Placement) searches for idle slots. The zero value is empty.
type Timeline struct {
	start, end []float64
}

// End is the time the last interval ends (0 when empty): the device's
// availability for scheduling without insertion.
func (t *Timeline) End() float64 {
	if len(t.end) == 0 {
		return 0
	}
	return t.end[len(t.end)-1]
}

// Len is the number of busy intervals (touching ones count as one).
func (t *Timeline) Len() int { return len(t.start) }

// EarliestStart is the earliest time >= ready at which an interval of
// length dur fits: with insertion, the first idle slot after ready that is
// long enough (HEFT, Topcuoglu et al. eq. 3; Celeritas Algorithm 2, line
// 30); without, max(ready, End()).
func (t *Timeline) EarliestStart(ready, dur float64, insertion bool) float64 {
	if !insertion {
		return max(ready, t.End())
	}
	// intervals are disjoint and sorted, so their ends are sorted too
	i := sort.SearchFloat64s(t.end, ready)
	for i < len(t.end) && t.end[i] <= ready {
		i++
	}
	s := ready
	for ; i < len(t.start); i++ {
		if s+dur <= t.start[i] {
			return s
		}
		if t.end[i] > s {
			s = t.end[i]
		}
	}
	return s
}

// Reserve marks [start, start+dur) busy. The interval must not overlap a
// busy one (take start from EarliestStart); zero-length intervals are not
// recorded, and an interval that touches a busy one joins it (a zero-length
// gap holds no op of positive length).
func (t *Timeline) Reserve(start, dur float64) {
	if !(dur > 0) {
		return
	}
	n := len(t.start)
	end := start + dur
	if n == 0 || start >= t.start[n-1] {
		if n > 0 && t.end[n-1] == start {
			t.end[n-1] = end // back to back: one interval
			return
		}
		t.start = append(t.start, start)
		t.end = append(t.end, end)
		return
	}
	i := sort.SearchFloat64s(t.start, start)
	// touching neighbours merge, so that a device busy back to back is one
	// interval and the slot search stays short (near-linear scheduling)
	left := i > 0 && t.end[i-1] == start
	right := t.start[i] == end
	switch {
	case left && right:
		t.end[i-1] = t.end[i]
		t.start = append(t.start[:i], t.start[i+1:]...)
		t.end = append(t.end[:i], t.end[i+1:]...)
	case left:
		t.end[i-1] = end
	case right:
		t.start[i] = start
	default:
		t.start = append(t.start, 0)
		t.end = append(t.end, 0)
		copy(t.start[i+1:], t.start[i:])
		copy(t.end[i+1:], t.end[i:])
		t.start[i], t.end[i] = start, end
	}
}

// Busy is the total reserved time.
func (t *Timeline) Busy() float64 {
	var s float64
	for i := range t.start {
		s += t.end[i] - t.start[i]
	}
	return s
}
