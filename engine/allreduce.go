package engine

import "placesim/workloads"

// allReduceNodes records one ring all-reduce's nodes, for the statistics.
type allReduceNodes struct {
	stage, round, bucket int
	bytes                int64
	first, last          []int32 // per replica: its first step, its completion
}

// gradient is the bytes of parameter gradients an op produces.
type gradient struct {
	op    int32
	bytes int64
}

// gradients lists the parameter gradients stage st's backward produces,
// in the order it runs its backward ops. An op's parameter bytes are
// gradient bytes made by the last backward op of its colocation group
// (its gradient op, as workloads.DeriveTraining and the msr-fiddle files
// colocate them), by itself if it is a backward op, else by the stage's
// last backward op. A stage without backward ops has no gradients.
func (u *unrolled) gradients(st int) []gradient {
	bwd := u.bwdOps[st]
	if len(bwd) == 0 {
		return nil
	}
	lastOf := map[string]int32{}
	for _, v := range bwd {
		if c := u.g.Ops[v].Colocation; c != "" {
			lastOf[c] = v
		}
	}
	bytes := map[int32]int64{}
	for _, w := range u.l.stages[st] {
		op := &u.g.Ops[w]
		if op.ParamBytes == 0 {
			continue
		}
		prod := bwd[len(bwd)-1]
		if op.Role == workloads.Backward {
			prod = w
		} else if v, ok := lastOf[op.Colocation]; ok && op.Colocation != "" {
			prod = v
		}
		bytes[prod] += op.ParamBytes
	}
	var gs []gradient
	for _, v := range bwd {
		if b := bytes[v]; b > 0 {
			gs = append(gs, gradient{v, b})
		}
	}
	return gs
}

// addAllReduces adds, for every stage with gradients and every update
// round (once per step; every micro-batch with PipeDream), a ring
// all-reduce per bucket among the stage's replicas, and makes the stage's
// update ops wait for them.
func (u *unrolled) addAllReduces() {
	l := u.l
	for st := range l.stages {
		gs := u.gradients(st)
		if len(gs) == 0 {
			continue
		}
		// buckets in backward order, each at least l.bucket bytes
		var buckets [][]gradient
		var cur []gradient
		var curB int64
		for _, gr := range gs {
			cur = append(cur, gr)
			curB += gr.bytes
			if l.bucket > 0 && curB >= l.bucket {
				buckets = append(buckets, cur)
				cur, curB = nil, 0
			}
		}
		if len(cur) > 0 {
			buckets = append(buckets, cur)
		}
		// the micro-batch whose backward completes each round's gradients
		var rounds []int
		switch l.sched {
		case PipeDream:
			for i := 0; i < u.m; i++ {
				rounds = append(rounds, i)
			}
		case OneFOneB:
			rounds = []int{u.m - 1}
		default: // gpipe runs B(0) last; without a pipeline m = 1
			rounds = []int{0}
		}
		for ri, mb := range rounds {
			u.allReduceRound(st, ri, mb, buckets)
		}
	}
}

// allReduceRound adds the ring all-reduces of stage st's buckets for the
// gradients of micro-batch mb's backward.
func (u *unrolled) allReduceRound(st, round, mb int, buckets [][]gradient) {
	l := u.l
	n := u.reps
	devs := make([]int, n)
	for r := range devs {
		devs[r] = l.repDev[r][l.stageDev[st]]
	}
	var barrier []int32
	if !l.overlap {
		// every bucket waits for the stage's whole backward pass
		barrier = make([]int32, n)
		for r := 0; r < n; r++ {
			barrier[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
			for _, v := range u.bwdOps[st] {
				u.edge(u.node(v, mb, r), barrier[r], 0)
			}
		}
	}
	for b, bucket := range buckets {
		var bytes int64
		for _, gr := range bucket {
			bytes += gr.bytes
		}
		first := make([]int32, n)
		for r := 0; r < n; r++ {
			first[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
			if barrier != nil {
				u.edge(barrier[r], first[r], 0)
				continue
			}
			for _, gr := range bucket {
				u.edge(u.node(gr.op, mb, r), first[r], 0)
			}
		}
		last := u.ring(devs, first, bytes, mb)
		for r := 0; r < n; r++ {
			for _, v := range u.updOps[st] {
				u.edge(last[r], u.node(v, mb, r), 0)
			}
		}
		u.ars = append(u.ars, allReduceNodes{stage: st, round: round, bucket: b, bytes: bytes, first: first, last: last})
	}
}

// ring adds a ring all-reduce of bytes among devs (replica r on devs[r],
// sending to r+1 mod n), started on each replica by start[r]; it returns
// each replica's completion node. Reduce-scatter then all-gather: 2(n-1)
// steps, in each of which every replica sends one chunk of bytes/n to the
// next and the receiver's next step waits for it (Patarasuk and Yuan's
// bandwidth-optimal all-reduce, as NCCL's ring). Each step is a side node
// of zero compute time whose output is the chunk, so every chunk is a
// transfer on the real link queues: on a ring of identical links with
// latency a and bandwidth B the all-reduce takes 2(n-1)(a + bytes/(n B)).
func (u *unrolled) ring(devs []int, start []int32, bytes int64, mb int) []int32 {
	n := len(devs)
	chunk := divUp(bytes, n)
	steps := 2 * (n - 1)
	prev := append([]int32(nil), start...) // each replica's previous step
	for k := 0; k < steps; k++ {
		cur := make([]int32, n)
		for r := 0; r < n; r++ {
			cur[r] = u.addSide(NodeAllReduce, devs[r], chunk, mb, r)
			u.edge(prev[r], cur[r], 0)
			if k > 0 {
				// the chunk the left neighbour sent in the previous step
				u.edge(prev[(r+n-1)%n], cur[r], chunk)
			}
		}
		prev = cur
	}
	done := make([]int32, n)
	for r := 0; r < n; r++ {
		done[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
		u.edge(prev[r], done[r], 0)
		u.edge(prev[(r+n-1)%n], done[r], chunk)
	}
	return done
}
