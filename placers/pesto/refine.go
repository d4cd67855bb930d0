package pesto

import (
	"container/heap"
	"fmt"
	"math"

	"placesim/devices"
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

type fineEvents []fineEvent

func (q fineEvents) Len() int { return len(q) }
func (q fineEvents) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q fineEvents) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *fineEvents) Push(x any)   { *q = append(*q, x.(fineEvent)) }
func (q *fineEvents) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// readyOps is a device's ready ops by priority, then arrival.
type readyOps struct {
	ops  []int
	seq  []int
	prio []float64
}

func (r *readyOps) Len() int { return len(r.ops) }
func (r *readyOps) Less(i, j int) bool {
	a, b := r.ops[i], r.ops[j]
	if r.prio[a] != r.prio[b] {
		return r.prio[a] > r.prio[b]
	}
	return r.seq[i] < r.seq[j]
}
func (r *readyOps) Swap(i, j int) {
	r.ops[i], r.ops[j] = r.ops[j], r.ops[i]
	r.seq[i], r.seq[j] = r.seq[j], r.seq[i]
}
func (r *readyOps) Push(x any) {
	p := x.([2]int)
	r.ops = append(r.ops, p[0])
	r.seq = append(r.seq, p[1])
}
func (r *readyOps) Pop() any {
	n := len(r.ops) - 1
	x := [2]int{r.ops[n], r.seq[n]}
	r.ops, r.seq = r.ops[:n], r.seq[:n]
	return x
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
		ready[d] = &readyOps{prio: prio}
	}
	linkFree := make([]float64, len(f.est.Cluster.Topology.Links))
	ran := make([][]int, nDev)
	var q fineEvents
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
			op = heap.Pop(ready[d]).([2]int)[0]
		}
		busy[d] = true
		ran[d] = append(ran[d], op)
		heap.Push(&q, fineEvent{t: now + f.est.OpTime(op, d), seq: seq, op: op, xfer: -1})
		seq++
	}
	satisfy := func(v int) {
		if missing[v]--; missing[v] == 0 && prio != nil {
			heap.Push(ready[dev[v]], [2]int{v, seq})
			seq++
		}
	}
	for v := 0; v < n; v++ {
		if missing[v] == 0 && prio != nil {
			heap.Push(ready[dev[v]], [2]int{v, seq})
			seq++
		}
	}
	for d := 0; d < nDev; d++ {
		start(d)
	}
	remote := make([]int64, nDev)
	for q.Len() > 0 {
		e := heap.Pop(&q).(fineEvent)
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
			heap.Push(&q, fineEvent{t: end, seq: seq, op: u, xfer: d})
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
