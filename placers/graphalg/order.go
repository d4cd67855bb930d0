package graphalg

import (
	"fmt"
	"sort"
)

// KahnOrder is the breadth-first topological order m-TOPO uses (Celeritas
// section 4.2.2): a FIFO queue of ready ops, sources in ID order, each op's
// newly ready successors appended to the tail in successor order. It
// returns an error when d has a cycle.
func KahnOrder(d *DAG) ([]int, error) {
	n := d.Len()
	indeg := make([]int32, n)
	queue := make([]int, 0, n)
	for v := 0; v < n; v++ {
		indeg[v] = int32(d.InDegree(v))
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for head := 0; head < len(queue); head++ {
		for _, s := range d.Succ(queue[head]) {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, int(s))
			}
		}
	}
	if len(queue) != n {
		return nil, fmt.Errorf("topological order: %d of %d ops lie on or behind a cycle", n-len(queue), n)
	}
	return queue, nil
}

// DFSTopo is Celeritas' DFS-TOPO order (section 4.2.2): the ready ops are
// kept in a queue whose head is taken first, and the children of the op
// just output that become ready are put at the head, so a chain is
// followed to its end before a sibling branch starts. Sources start the
// queue in ID order; ready children are put at the head so that the one
// with the smallest ID is taken first.
func DFSTopo(d *DAG) ([]int, error) { return StackOrder(d, nil) }

// CPDTopo is Celeritas' critical-path DFS-TOPO order (Algorithm 1,
// function CPD_TOPO) for the given cpath values (CPath): the sources sorted
// by decreasing cpath form the queue; the head is output, its children are
// sorted by increasing cpath and each that became ready is appended to the
// head, so the child on the critical path (largest cpath) is taken next.
// Ties break by op ID, the smaller first.
func CPDTopo(d *DAG, cpath []float64) ([]int, error) { return StackOrder(d, cpath) }

// StackOrder is the topological order DFSTopo (key nil) and CPDTopo (key =
// cpath) share: a queue with head insertion is a stack whose top is the
// head. Sources are pushed by increasing key (ties: decreasing ID) so the
// largest key is on top; so are each output op's newly ready children.
func StackOrder(d *DAG, key []float64) ([]int, error) {
	n := d.Len()
	less := func(a, b int) bool { // a is pushed before b: b nearer the head
		if key != nil && key[a] != key[b] {
			return key[a] < key[b]
		}
		return a > b
	}
	indeg := make([]int32, n)
	stack := make([]int, 0, 64)
	for v := 0; v < n; v++ {
		indeg[v] = int32(d.InDegree(v))
		if indeg[v] == 0 {
			stack = append(stack, v)
		}
	}
	sort.Slice(stack, func(i, j int) bool { return less(stack[i], stack[j]) })
	order := make([]int, 0, n)
	var kids []int
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, v)
		kids = kids[:0]
		for _, s := range d.Succ(v) {
			if indeg[s]--; indeg[s] == 0 {
				kids = append(kids, int(s))
			}
		}
		// Algorithm 1 sorts all children by increasing cpath and pushes the
		// ready ones to the head in that order; sorting the ready ones only
		// gives the same queue.
		if len(kids) > 1 {
			sort.Slice(kids, func(i, j int) bool { return less(kids[i], kids[j]) })
		}
		stack = append(stack, kids...)
	}
	if len(order) != n {
		return nil, fmt.Errorf("topological order: %d of %d ops lie on or behind a cycle", n-len(order), n)
	}
	return order, nil
}

// Positions inverts an order: pos[order[i]] = i.
func Positions(order []int) []int {
	pos := make([]int, len(order))
	for i, v := range order {
		pos[v] = i
	}
	return pos
}
