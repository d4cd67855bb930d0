package pesto

import (
	"fmt"
	"math"

	"placesim/internal/heap"
)

// timing is a schedule of a problem in the ILP's model: each vertex's
// device, start and completion; each transfer's interval and the share of
// each fine producer.
type timing struct {
	dev      []int // per vertex
	start    []float64
	finish   []float64
	xfers    map[xferKey]*xfer
	makespan float64
}

type xferKey struct{ v, d int }

// xfer is the transfer of vertex v's outputs to device d (a communication
// vertex of the augmented DAG, section 3.2.2).
type xfer struct {
	src           int
	start, finish float64
	// per fine producer (by index in problem.prods[v]): its part of the
	// transfer's time, 0 when it sends nothing to d
	part []float64
}

// evaluate plays the problem's vertices in the given per-device orders as
// early as the ILP's model allows: a vertex starts when its device has
// finished the previous vertex of its order and every input is there; when
// a vertex completes, its outputs for each other device holding a consumer
// go as one transfer (each fine producer's largest tensor for that device,
// one after another) that waits, first come first served, until every link
// of its route is free. It returns an error when the orders deadlock.
func (p *problem) evaluate(dev []int, orders [][]int) (*timing, error) {
	n := p.c.Len()
	t := &timing{dev: dev, start: make([]float64, n), finish: make([]float64, n), xfers: map[xferKey]*xfer{}}
	ready := make([]float64, n) // inputs' arrival so far
	missing := make([]int, n)   // inputs not yet there
	for v := 0; v < n; v++ {
		missing[v] = len(p.c.Pred[v])
	}
	pos := make([]int, p.nDev)      // next in each order
	free := make([]float64, p.nDev) // device free from
	busy := make([]bool, p.nDev)
	linkFree := make([]float64, len(p.est.Cluster.Topology.Links))
	q := heap.New(func(a, b *ev) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) })
	qseq := 0
	done := 0
	tryStart := func(d int) {
		if busy[d] || pos[d] >= len(orders[d]) {
			return
		}
		v := orders[d][pos[d]]
		if missing[v] > 0 {
			return
		}
		pos[d]++
		busy[d] = true
		s := math.Max(free[d], ready[v])
		t.start[v] = s
		t.finish[v] = s + p.dur[v][d]
		q.Push(ev{t.finish[v], qseq, v})
		qseq++
	}
	for d := range orders {
		tryStart(d)
	}
	for q.Len() > 0 {
		e := q.Pop()
		v, now := e.v, e.t
		s := dev[v]
		busy[s] = false
		free[s] = now
		done++
		// inputs for consumers on each device
		arrive := make(map[int]float64, 2)
		arrive[s] = now
		for d := 0; d < p.nDev; d++ {
			if d == s {
				continue
			}
			x := p.send(v, s, d, dev)
			if x == nil {
				continue
			}
			st := now
			route := p.est.Cluster.Route(s, d)
			for _, l := range route {
				st = math.Max(st, linkFree[l])
			}
			var dur float64
			for _, y := range x.part {
				dur += y
			}
			x.start, x.finish = st, st+dur
			for _, l := range route {
				linkFree[l] = x.finish
			}
			t.xfers[xferKey{v, d}] = x
			arrive[d] = x.finish
		}
		for _, e := range p.c.Succ[v] {
			w := e.To
			a, ok := arrive[dev[w]]
			if !ok {
				return nil, fmt.Errorf("internal: no transfer of vertex %d to device %d", v, dev[w])
			}
			ready[w] = math.Max(ready[w], a)
			missing[w]--
		}
		for d := range orders {
			tryStart(d)
		}
	}
	if done != n {
		return nil, fmt.Errorf("the per-device orders deadlock: %d of %d vertices ran", done, n)
	}
	for v := 0; v < n; v++ {
		t.makespan = math.Max(t.makespan, t.finish[v])
	}
	return t, nil
}

// send is the transfer of v (on s) to device d for placement dev, or nil
// when no consumer of another group is on d. Consumers of v's own group
// share its device, and consumers in other groups on s read locally.
func (p *problem) send(v, s, d int, dev []int) *xfer {
	var x *xfer
	for i, pr := range p.prods[v] {
		var b int64 = -1
		for _, o := range pr.outs {
			if dev[o.To] == d {
				b = max(b, o.Bytes)
			}
		}
		if b < 0 {
			continue
		}
		if x == nil {
			x = &xfer{src: s, part: make([]float64, len(p.prods[v]))}
		}
		x.part[i] = p.transfer(s, d, b)
	}
	return x
}

// ev is a vertex completion.
type ev struct {
	t   float64
	seq int
	v   int
}

// orderByStart turns start times into per-device orders that form one
// linear extension of the DAG: vertices are taken by earliest start (ties:
// earlier completion, smaller vertex) among those whose predecessors are
// taken, so rounding in a solver's times cannot reorder a dependency.
func (p *problem) orderByStart(dev []int, start, finish []float64) [][]int {
	n := p.c.Len()
	indeg := make([]int, n)
	h := heap.New(func(pa, pb *int) bool {
		a, b := *pa, *pb
		if start[a] != start[b] {
			return start[a] < start[b]
		}
		if finish[a] != finish[b] {
			return finish[a] < finish[b]
		}
		return a < b
	})
	for v := 0; v < n; v++ {
		indeg[v] = len(p.c.Pred[v])
		if indeg[v] == 0 {
			h.Push(v)
		}
	}
	orders := make([][]int, p.nDev)
	for h.Len() > 0 {
		v := h.Pop()
		orders[dev[v]] = append(orders[dev[v]], v)
		for _, e := range p.c.Succ[v] {
			if indeg[e.To]--; indeg[e.To] == 0 {
				h.Push(e.To)
			}
		}
	}
	return orders
}
