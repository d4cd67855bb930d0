package pesto

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/internal/heap"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// fineSim plays a placement of a graph's ops with the estimates, as the
// engine plays a plan: each device runs one op at a time, in a fixed
// order or, among its ready ops, the highest priority first (ties: first
// ready); a finished op sends one transfer per other device holding a
// consumer (its largest tensor for that device), which waits first come
// first served until every link of its route is free. It returns the
// makespan and the order in which each device ran its ops.
type fineSim struct {
	g   *workloads.Graph
	d   *graphalg.DAG
	est *devices.Estimates
}

func newFineSim(g *workloads.Graph, est *devices.Estimates) *fineSim {
	return &fineSim{g: g, d: graphalg.NewDAG(g), est: est}
}

// fineEvent is an op's completion (xfer < 0) or a transfer's delivery of
// op's output to device xfer.
type fineEvent struct {
	t    float64
	seq  int
	op   int
	xfer int
}

// fineBefore orders completions by time, then by scheduling order.
func fineBefore(a, b *fineEvent) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }

// readyOps is a device's ready ops ([op, arrival]) by priority, then
// arrival.
type readyOps = heap.Heap[[2]int]

func newReadyOps(prio []float64) *readyOps {
	return heap.New(func(a, b *[2]int) bool {
		if pa, pb := prio[a[0]], prio[b[0]]; pa != pb {
			return pa > pb
		}
		return a[1] < b[1]
	})
}

// run plays placement dev with either fixed per-device orders (prio nil)
// or priorities (orders nil).
func (f *fineSim) run(dev []int, orders [][]int, prio []float64) (float64, [][]int, error) {
	n, nDev := f.d.Len(), len(f.est.Cluster.Devices)
	missing := make([]int, n)
	for v := 0; v < n; v++ {
		missing[v] = f.d.InDegree(v)
	}
	busy := make([]bool, nDev)
	pos := make([]int, nDev)
	ready := make([]*readyOps, nDev)
	for d := range ready {
		ready[d] = newReadyOps(prio)
	}
	linkFree := make([]float64, len(f.est.Cluster.Topology.Links))
	ran := make([][]int, nDev)
	q := heap.New(fineBefore)
	seq, done := 0, 0
	now, makespan := 0.0, 0.0
	start := func(d int) {
		if busy[d] {
			return
		}
		var op int
		if prio == nil {
			if pos[d] >= len(orders[d]) || missing[orders[d][pos[d]]] > 0 {
				return
			}
			op = orders[d][pos[d]]
			pos[d]++
		} else {
			if ready[d].Len() == 0 {
				return
			}
			op = ready[d].Pop()[0]
		}
		busy[d] = true
		ran[d] = append(ran[d], op)
		q.Push(fineEvent{t: now + f.est.OpTime(op, d), seq: seq, op: op, xfer: -1})
		seq++
	}
	satisfy := func(v int) {
		if missing[v]--; missing[v] == 0 && prio != nil {
			ready[dev[v]].Push([2]int{v, seq})
			seq++
		}
	}
	for v := 0; v < n; v++ {
		if missing[v] == 0 && prio != nil {
			ready[dev[v]].Push([2]int{v, seq})
			seq++
		}
	}
	for d := 0; d < nDev; d++ {
		start(d)
	}
	remote := make([]int64, nDev)
	for q.Len() > 0 {
		e := q.Pop()
		now = e.t
		u := e.op
		if e.xfer >= 0 {
			lo, hi := f.d.SuccRange(u)
			for j := lo; j < hi; j++ {
				if v := f.d.SuccAt(j); dev[v] == e.xfer {
					satisfy(v)
				}
			}
			start(e.xfer)
			continue
		}
		s := dev[u]
		busy[s] = false
		done++
		makespan = math.Max(makespan, now)
		for d := range remote {
			remote[d] = -1
		}
		lo, hi := f.d.SuccRange(u)
		for j := lo; j < hi; j++ {
			v := f.d.SuccAt(j)
			if dev[v] == s {
				satisfy(v)
			} else {
				remote[dev[v]] = max(remote[dev[v]], f.d.BytesAt(f.d.DepOfSucc(j)))
			}
		}
		for d, b := range remote {
			if b < 0 {
				continue
			}
			route := f.est.Cluster.Route(s, d)
			st := now
			for _, l := range route {
				st = math.Max(st, linkFree[l])
			}
			end := st + f.est.TransferTime(s, d, b)
			for _, l := range route {
				linkFree[l] = end
			}
			q.Push(fineEvent{t: end, seq: seq, op: u, xfer: d})
			seq++
		}
		for d := 0; d < nDev; d++ {
			start(d)
		}
	}
	if done != n {
		return 0, nil, fmt.Errorf("the per-device orders deadlock: %d of %d ops ran", done, n)
	}
	return makespan, ran, nil
}
