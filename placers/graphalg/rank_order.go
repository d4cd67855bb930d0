package graphalg

import (
	"math"
	"sort"
)

// DecreasingRank lists the ops of topological order topo by decreasing
// rank (an upward rank or b-level), the list order of HEFT and FastT's
// DPOS. Ranks are first rounded to 1e-12 of the largest, so that ranks
// equal in exact arithmetic but not in floating point tie; ties go by
// position in topo, which keeps the list topological when some costs are
// zero.
func DecreasingRank(rank []float64, topo []int) []int {
	order := append([]int(nil), topo...)
	pos := Positions(topo)
	m := 0.0
	for _, r := range rank {
		m = math.Max(m, math.Abs(r))
	}
	q := make([]float64, len(rank))
	if m > 0 {
		step := m * 1e-12
		for i, r := range rank {
			q[i] = math.Round(r / step)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if q[a] != q[b] {
			return q[a] > q[b]
		}
		return pos[a] < pos[b]
	})
	return order
}
