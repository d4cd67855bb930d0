package workloads

import (
	"fmt"
	"strings"

	"placesim/internal/heap"
)

// TopoOrder returns the op IDs in a topological order (Kahn's algorithm;
// among ready ops the smallest ID first, so the order is deterministic).
// On a cycle it returns an error wrapping ErrCycle that names the ops of
// one cycle.
func (g *Graph) TopoOrder() ([]int, error) {
	g.ensureAdj()
	n := len(g.Ops)
	indeg := make([]int32, n)
	for _, e := range g.Edges {
		indeg[e.To]++
	}
	// A binary heap of ready IDs keeps "smallest first" in O(n log n).
	roots := make([]int, 0, 64)
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			roots = append(roots, i)
		}
	}
	ready := heap.New(func(a, b *int) bool { return *a < *b })
	ready.Init(roots)
	order := make([]int, 0, n)
	for ready.Len() > 0 {
		v := ready.Pop()
		order = append(order, v)
		for _, eid := range g.out[v] {
			w := g.Edges[eid].To
			if indeg[w]--; indeg[w] == 0 {
				ready.Push(w)
			}
		}
	}
	if len(order) < n {
		return nil, g.cycleError(indeg)
	}
	return order, nil
}

// cycleError finds one cycle among the ops Kahn's algorithm left behind.
func (g *Graph) cycleError(indeg []int32) error {
	// Walk backwards along in-edges from a left-over op: every left-over op
	// has a left-over predecessor, so the walk must revisit an op.
	start := -1
	for i, d := range indeg {
		if d > 0 {
			start = i
			break
		}
	}
	seen := map[int]int{}
	var path []int
	v := start
	for {
		if at, ok := seen[v]; ok {
			path = path[at:]
			break
		}
		seen[v] = len(path)
		path = append(path, v)
		for _, eid := range g.in[v] {
			if u := g.Edges[eid].From; indeg[u] > 0 {
				v = u
				break
			}
		}
	}
	// path runs against the edges; reverse it, then start at the smallest
	// ID so the message does not depend on where the walk began
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	m := 0
	for i, v := range path {
		if v < path[m] {
			m = i
		}
	}
	path = append(path[m:], path[:m]...)
	names := make([]string, 0, len(path)+1)
	for _, v := range path {
		names = append(names, fmt.Sprintf("%q", g.Ops[v].Name))
	}
	names = append(names, names[0])
	return fmt.Errorf("%w: graph %q: op %s is on the cycle %s", ErrCycle, g.Name, names[0], strings.Join(names, " -> "))
}
