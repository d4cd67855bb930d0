package engine

import (
	"sync"

	"placesim/workloads"
)

// arena keeps a simulation's large working arrays for the next
// simulation: placers, searches and sweeps simulate the same graph
// thousands of times, and reusing the arrays spares allocating them, the
// kernel's fresh pages and the garbage collector's work on tens of bytes
// per op each time. Nothing a Result holds comes from an arena (see
// sim.recycle).
type arena struct {
	nodes []instance
	dev   []int32
	ids   []instanceID
	// wire's arrays
	remaining, cursor, succs, inputs []int32
	xfers                            []transfer
	// a step's unique successors, where its inputs end and the scratch
	// that finds them (see stepSuccessors)
	succ      workloads.Deps
	inEnd     []int32
	mark, pos []int32
	events    []event
}

// arenas holds the arenas of finished simulations (safe for concurrent
// simulations: each takes its own).
var arenas = sync.Pool{New: func() any { return new(arena) }}

// reuse returns n zeroed items in *buf's storage when it holds n, else in
// a new array of capacity c (at least n), which *buf keeps. A slice the
// simulation appends to may move: recycle stores it back.
func reuse[T any](buf *[]T, n, c int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, c))
		return *buf
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// grow is reuse without the clearing, for an array the caller fills
// whole before it reads any item: n items of *buf's storage when it holds
// n, else of a new array of capacity c (at least n), which *buf keeps.
// Clearing what is about to be overwritten would cost a pass over memory
// that, on a large graph, is no longer in the caches when it is filled.
func grow[T any](buf *[]T, n, c int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, c))
		return *buf
	}
	return (*buf)[:n]
}

// recycle gives the simulation's arrays back to its arena and the arena
// to the pool, once the Result is built: the Result's slices are its own,
// and the unrolled plan that Result.Instances keeps drops its node tables.
func (s *sim) recycle() {
	a := s.arena
	if a == nil {
		return
	}
	s.arena = nil
	a.nodes, a.dev = s.nodes[:0], s.un.dev[:0]
	if s.un.ids != nil {
		a.ids = s.un.ids[:0]
	}
	a.remaining, a.succs, a.inputs, a.xfers = s.remaining[:0], s.succs[:0], s.inputs[:0], s.xfers[:0]
	a.events = s.q.items[:0]
	s.nodes, s.remaining, s.succs, s.inputs, s.inAt, s.inEnd, s.xfers = nil, nil, nil, nil, nil, nil, nil
	s.un.nodes, s.un.dev, s.un.ids = nil, nil, nil
	s.q.items = nil
	arenas.Put(a)
}
