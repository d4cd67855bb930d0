package engine

import (
	"fmt"
	"math"
	"slices"

	"placesim/devices"
	"placesim/links"
	"placesim/workloads"
)

// Collective algorithms of the data-parallel all-reduce, as NCCL names them.
const (
	// AlgoRing is the ring all-reduce (reduce-scatter then all-gather,
	// 2(n-1) steps of S/n bytes) over a ring ordered on the fastest links.
	AlgoRing = "ring"
	// AlgoTree is a binary tree: reduce up to the root, broadcast down,
	// the whole message on every edge (latency-bound: 2 log2 n steps).
	AlgoTree = "tree"
	// AlgoHierarchical is an intra-node ring reduce-scatter, an inter-node
	// ring all-reduce of each GPU's shard among its peers in the other
	// nodes, and an intra-node ring all-gather.
	AlgoHierarchical = "hierarchical"
)

// allReduceNodes records one all-reduce's nodes, for the statistics.
type allReduceNodes struct {
	stage, round, bucket int
	bytes                int64
	algorithm            string
	replicas             int
	first, last          []int32 // per replica: its first step, its completion
	// contentionSM and contentionHBM are the compute time this bucket's
	// kernel added to one replica's overlapped backward ops, by the SMs
	// and by the memory bandwidth it held (CollectiveModel.contention)
	contentionSM, contentionHBM float64
}

// gradient is the bytes of parameter gradients an op produces.
type gradient struct {
	op    int32
	bytes int64
}

// gradients lists the parameter gradients stage st's backward produces, in
// the order it runs its backward ops: what a data-parallel all-reduce
// carries, the gradients of trainable parameters only (never optimizer
// state or gradient buffers), each at DataParallel.WireBytes per element
// when the plan sets it.
//
// When the graph's update ops carry workloads.Op.GradBytes (as
// workloads.DeriveTraining sets them), each update op's GradBytes is a
// gradient made by its input producer, the backward op that computes it.
// Otherwise (msr-fiddle graphs, hand-written native files without update
// ops or gradBytes) the fallback is the forward ops' ParamBytes, each made
// by the last backward op of its colocation group (its gradient op, as
// DeriveTraining and the msr-fiddle files colocate them), else by the
// stage's last backward op. A stage without backward ops has no gradients.
func (u *unrolled) gradients(st int) []gradient {
	bwd := u.bwdOps[st]
	if len(bwd) == 0 {
		return nil
	}
	g := u.g
	last := bwd[len(bwd)-1]
	bytes := map[int32]int64{}
	if u.gradBytes() {
		for _, w := range u.updOps[st] {
			op := &g.Ops[w]
			if op.GradBytes == 0 {
				continue
			}
			prod := last
			for _, p := range u.opPreds[u.opPredStart[w]:u.opPredStart[w+1]] {
				if g.Ops[p].Role == workloads.Backward && u.l.stageOf[p] == int32(st) {
					prod = p
					break
				}
			}
			bytes[prod] += op.GradBytes
		}
	} else {
		lastOf := map[string]int32{}
		for _, v := range bwd {
			if c := g.Ops[v].Colocation; c != "" {
				lastOf[c] = v
			}
		}
		for _, w := range u.fwdOps[st] {
			op := &g.Ops[w]
			if op.ParamBytes == 0 {
				continue
			}
			prod := last
			if v, ok := lastOf[op.Colocation]; ok && op.Colocation != "" {
				prod = v
			}
			bytes[prod] += op.ParamBytes
		}
	}
	var gs []gradient
	for _, v := range bwd {
		if b := bytes[v]; b > 0 {
			gs = append(gs, gradient{v, u.wire(b)})
		}
	}
	return gs
}

// wire is the bytes the all-reduce carries for a gradient of b bytes:
// DataParallel.WireBytes per element of the graph's parameter precision
// (at least a byte).
func (u *unrolled) wire(b int64) int64 {
	dp := u.plan.DataParallel
	if dp == nil || dp.WireBytes == 0 || b <= 0 {
		return b
	}
	elem := u.g.Precision.ParamBytes()
	return max(1, b*int64(dp.WireBytes)/elem)
}

// gradBytes reports whether the graph says its gradients' sizes (some op
// has GradBytes); otherwise gradients falls back to parameter bytes.
func (u *unrolled) gradBytes() bool {
	for i := range u.g.Ops {
		if u.g.Ops[i].GradBytes > 0 {
			return true
		}
	}
	return false
}

// addAllReduces adds, for every stage with gradients and every update
// round (once per step; every micro-batch with PipeDream), an all-reduce
// per bucket among the stage's replicas, and makes the stage's update ops
// wait for them.
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
		devs := make([]int, u.reps)
		for r := range devs {
			devs[r] = l.dev(r, l.stageDev[st])
		}
		topo := newCollectiveTopo(u.c, devs)
		for ri, mb := range rounds {
			u.allReduceRound(st, ri, mb, buckets, topo)
		}
	}
}

// allReduceRound adds the all-reduces of stage st's buckets for the
// gradients of micro-batch mb's backward. Their dependencies on the
// backward ops are control edges: they order, but hold no buffer, so the
// ledger frees every backward output as soon as its consumers are done.
func (u *unrolled) allReduceRound(st, round, mb int, buckets [][]gradient, topo *collectiveTopo) {
	l := u.l
	n := u.reps
	devs := topo.devs
	var barrier []int32
	if !l.overlap {
		// every bucket waits for the stage's whole backward pass
		barrier = make([]int32, n)
		for r := 0; r < u.played; r++ {
			barrier[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
			for _, v := range u.bwdOps[st] {
				u.control(u.node(v, mb, r), barrier[r])
			}
		}
	}
	m := u.collective()
	algos := make([]string, len(buckets))
	times := make([]float64, len(buckets))
	after := make([][]float64, len(buckets))
	sizes := make([]int64, len(buckets))
	for b, bucket := range buckets {
		for _, gr := range bucket {
			sizes[b] += gr.bytes
		}
		algos[b], times[b] = topo.choose(sizes[b], m)
		after[b] = u.chargeCopies(m, bucket, mb, devs[:u.played])
	}
	contSM, contHBM := u.contention(m, st, mb, buckets, times, sizes, devs)
	// the update waits for every bucket (DDP's backward returns once all its
	// all-reduces are done): through one join node per replica, so that the
	// edges grow as buckets + update ops, not their product (8,929 update
	// ops x ~200 buckets x 8 replicas were 14 M edges at 96k ops)
	var join []int32
	if len(buckets) > 0 && len(u.updOps[st]) > 0 {
		join = make([]int32, n)
		for r := range join[:u.played] {
			join[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
			for _, v := range u.updOps[st] {
				u.edge(join[r], u.node(v, mb, r), 0)
			}
		}
	}
	for b, bucket := range buckets {
		bytes := sizes[b]
		first := make([]int32, n)
		for r := 0; r < u.played; r++ {
			first[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
			if m != nil {
				u.nodes[first[r]].cost = m.BaseLatency
			}
			if barrier != nil {
				u.control(barrier[r], first[r])
				continue
			}
			for _, gr := range bucket {
				u.control(u.node(gr.op, mb, r), first[r])
			}
		}
		algo := algos[b]
		var last []int32
		switch algo {
		case AlgoHierarchical:
			last = u.hierarchical(topo, first, bytes, mb)
		case AlgoTree:
			last = u.tree(topo, first, bytes, mb)
		default:
			last = u.rings(topo, first, bytes, mb)
		}
		if u.asym != "" {
			return // not identical after all: unroll plays every replica
		}
		for r := 0; r < u.played; r++ {
			// the copy back into the gradients runs on the compute stream
			// before the update; without update ops it ends the all-reduce
			if ups := u.updOps[st]; len(ups) > 0 {
				u.nodes[u.node(ups[0], mb, r)].cost += after[b][r]
			} else {
				u.nodes[last[r]].cost += after[b][r]
			}
			if join != nil {
				u.edge(last[r], join[r], 0)
			}
		}
		u.ars = append(u.ars, allReduceNodes{stage: st, round: round, bucket: b, bytes: bytes,
			algorithm: algo, replicas: n, first: first[:u.played], last: last[:u.played],
			contentionSM: contSM[b], contentionHBM: contHBM[b]})
	}
}

// rings adds a ring all-reduce of bytes on the topology's rings
// (ringChannels), each its share of the bytes in 2(n-1) steps, all
// started by start[r], and returns each replica's completion node: the
// ring's, or with several rings a node that waits for every ring's.
func (u *unrolled) rings(topo *collectiveTopo, start []int32, bytes int64, mb int) []int32 {
	n := u.reps
	if len(topo.rings) == 1 {
		if u.played < u.reps {
			u.ringClass("ring all-reduce", topo.devs, topo.rings, 2*(n-1))
		}
		return u.ringPhase(topo.devs, topo.ring, start, 2*(n-1), divUp(bytes, n), mb)
	}
	if u.played < u.reps {
		// in the full simulation the rings' chunks land on each GPU in
		// an order of ties that differs from replica to replica (its
		// peak memory by up to 3 % on a DGX-1), which one replica's
		// mirrored transfers do not reproduce
		u.asym = fmt.Sprintf("the all-reduce runs on %d rings, whose chunks land on each replica in its own order", len(topo.rings))
		return start
	}
	join := make([]int32, n)
	for r := 0; r < u.played; r++ {
		join[r] = u.addSide(NodeAllReduce, topo.devs[r], 0, mb, r)
	}
	for k, part := range topo.split(bytes) {
		ring := topo.rings[k]
		done := u.ringPhase(topo.devs, ring, start, 2*(n-1), divUp(part, n), mb)
		for r := 0; r < u.played; r++ {
			u.edge(done[r], join[r], 0)
		}
	}
	return join
}

// ringPhase adds steps of a ring among the replicas in ring order (replica
// ring[i] sends to ring[i+1 mod len]), started on each replica by start[r]
// (indexed by replica), and returns each replica's completion node. In
// every step each member sends one chunk to the next and the receiver's
// next step waits for it (Patarasuk and Yuan's bandwidth-optimal
// all-reduce, as NCCL's ring: 2(n-1) steps of S/n for an all-reduce, n-1
// for a reduce-scatter or an all-gather). Each step is a side node of zero
// compute time whose output is the chunk, so every chunk is a transfer on
// the real link queues: on a ring of identical links with latency a and
// bandwidth B an all-reduce takes 2(n-1)(a + S/(n B)).
//
// When replica 0 stands for its peers, only its own steps are added: the
// chunk each step receives from its left neighbour is, by symmetry, the
// one it sends to its right neighbour at the same time, a mirrored
// transfer (see sideEdge); the caller records the ring's class of
// transfers (peerClass).
func (u *unrolled) ringPhase(devs []int, ring []int, start []int32, steps int, chunk int64, mb int) []int32 {
	done := append([]int32(nil), start...)
	k := len(ring)
	if steps == 0 || k < 2 {
		return done
	}
	m := u.collective()
	if u.played < u.reps {
		i := slices.Index(ring, 0)
		if i < 0 {
			// newCollectiveTopo puts replica 0 first in its node's ring
			// and rail; a ring without it has no representative
			u.asym = "replica 0 is in none of the all-reduce's rings"
			return done
		}
		next := devs[ring[(i+1)%k]]
		wire := wireBytes(u.c, m, devs[0], next, chunk)
		prev := start[0]
		for s := 0; s < steps; s++ {
			cur := u.addSide(NodeAllReduce, devs[0], chunk, mb, 0)
			u.nodes[cur].cost = stepCost(u.c, m, devs[0], next)
			u.edge(prev, cur, 0)
			if s > 0 {
				u.mirrored(prev, cur, wire, next)
			}
			prev = cur
		}
		done[0] = u.addSide(NodeAllReduce, devs[0], 0, mb, 0)
		u.edge(prev, done[0], 0)
		u.mirrored(prev, done[0], wire, next)
		return done
	}
	prev := make([]int32, k) // by ring position
	wire := make([]int64, k) // what the hop into each position carries
	for i, r := range ring {
		prev[i] = start[r]
		wire[i] = wireBytes(u.c, m, devs[ring[(i+k-1)%k]], devs[r], chunk)
	}
	for s := 0; s < steps; s++ {
		cur := make([]int32, k)
		for i, r := range ring {
			cur[i] = u.addSide(NodeAllReduce, devs[r], chunk, mb, r)
			u.nodes[cur[i]].cost = stepCost(u.c, m, devs[r], devs[ring[(i+1)%k]])
			u.edge(prev[i], cur[i], 0)
			if s > 0 {
				// the chunk the left neighbour sent in the previous step
				u.edge(prev[(i+k-1)%k], cur[i], wire[i])
			}
		}
		prev = cur
	}
	for i, r := range ring {
		done[r] = u.addSide(NodeAllReduce, devs[r], 0, mb, r)
		u.edge(prev[i], done[r], 0)
		u.edge(prev[(i+k-1)%k], done[r], wire[i])
	}
	return done
}

// hierarchical adds NCCL's hierarchical all-reduce across nodes: each
// node's GPUs reduce-scatter S on their intra-node ring (g-1 steps of
// S/g), GPU j of every node all-reduces its shard with GPU j of the other
// nodes on an inter-node ring (2(k-1) steps of S/(g k)), and each node
// all-gathers (g-1 steps of S/g).
//
// When replica 0 stands for its peers, only its node's ring and its rail
// are added, with the classes of the transfers every node's rings and
// every rail make at the same time (peerClass).
func (u *unrolled) hierarchical(t *collectiveTopo, start []int32, bytes int64, mb int) []int32 {
	g, k := len(t.groups[0]), len(t.groups)
	shard := divUp(bytes, g)
	cur := start
	rail := func(j int) []int {
		rail := make([]int, k)
		for h := range t.groups {
			rail[h] = t.groups[h][j]
		}
		return rail
	}
	if u.played < u.reps {
		// replica 0 is the first of the first node's ring (newCollectiveTopo)
		u.ringClass("hierarchical all-reduce, intra-node ring", t.devs, t.groups, g-1)
		rails := make([][]int, g)
		for j := range rails {
			rails[j] = rail(j)
		}
		u.ringClass("hierarchical all-reduce, inter-node rail", t.devs, rails, 2*(k-1))
		cur = u.ringPhase(t.devs, t.groups[0], cur, g-1, shard, mb)
		cur = u.ringPhase(t.devs, rails[0], cur, 2*(k-1), divUp(shard, k), mb)
		return u.ringPhase(t.devs, t.groups[0], cur, g-1, shard, mb)
	}
	for _, ring := range t.groups {
		cur = u.ringPhase(t.devs, ring, cur, g-1, shard, mb)
	}
	for j := 0; j < g; j++ {
		cur = u.ringPhase(t.devs, rail(j), cur, 2*(k-1), divUp(shard, k), mb)
	}
	for _, ring := range t.groups {
		cur = u.ringPhase(t.devs, ring, cur, g-1, shard, mb)
	}
	return cur
}

// tree adds a binary-tree all-reduce over the replicas in node order
// (position i's parent is (i-1)/2): each reduces its children's partial
// sums (the whole message from each) and sends the result up; the root's
// sum is broadcast back down the same tree.
//
// Its replicas play different roles (root, inner node, leaf): none
// stands for the others, so with replica 0 standing for its peers it
// says so (u.asym) and adds nothing.
func (u *unrolled) tree(t *collectiveTopo, start []int32, bytes int64, mb int) []int32 {
	if u.played < u.reps {
		u.asym = fmt.Sprintf("the all-reduce of %d bytes is a tree, whose replicas play different roles (root, inner nodes, leaves)", bytes)
		return start
	}
	m := u.collective()
	order := t.nodeOrder
	n := len(order)
	up := make([]int32, n)
	for i := n - 1; i >= 0; i-- {
		r := order[i]
		out := bytes
		if i == 0 {
			out = 0
		}
		up[i] = u.addSide(NodeAllReduce, t.devs[r], out, mb, r)
		if i > 0 {
			u.nodes[up[i]].cost = stepCost(u.c, m, t.devs[r], t.devs[order[(i-1)/2]])
		}
		u.edge(start[r], up[i], 0)
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < n {
				u.edge(up[c], up[i], wireBytes(u.c, m, t.devs[order[c]], t.devs[r], bytes))
			}
		}
	}
	last := make([]int32, n)
	down := make([]int32, n)
	for i := 0; i < n; i++ {
		r := order[i]
		out := bytes
		if 2*i+1 >= n {
			out = 0
		}
		down[i] = u.addSide(NodeAllReduce, t.devs[r], out, mb, r)
		if 2*i+1 < n {
			u.nodes[down[i]].cost = stepCost(u.c, m, t.devs[r], t.devs[order[2*i+1]])
		}
		u.edge(up[i], down[i], 0)
		if i > 0 {
			u.edge(down[(i-1)/2], down[i], wireBytes(u.c, m, t.devs[order[(i-1)/2]], t.devs[r], bytes))
		}
		last[r] = down[i]
	}
	return last
}

// collectiveTopo is what the all-reduces of one stage know of the
// cluster: the replicas' devices, the ring order over the fastest links,
// the replicas grouped by node (devices whose routes to each other cross
// no NIC), and a model of each algorithm's time to choose among them.
type collectiveTopo struct {
	c    *devices.Cluster
	devs []int // replica -> device
	ring []int // replicas in ring order
	// rings are the rings the ring all-reduce's channels run on (ring
	// first) and shares each one's share of the bytes (ringChannels):
	// within one node NCCL's rings over every link, across nodes ring
	// alone
	rings     [][]int
	shares    []float64
	groups    [][]int // replicas by node, each in its ring order
	nodeOrder []int   // replicas node by node
}

// newCollectiveTopo orders the replicas' devices for the collectives.
func newCollectiveTopo(c *devices.Cluster, devs []int) *collectiveTopo {
	t := &collectiveTopo{c: c, devs: devs}
	// nodes: replicas whose routes cross no NIC
	group := make([]int, len(devs))
	for i := range group {
		group[i] = -1
	}
	for i := range devs {
		if group[i] >= 0 {
			continue
		}
		group[i] = len(t.groups)
		members := []int{i}
		for j := i + 1; j < len(devs); j++ {
			if group[j] < 0 && !c.CrossesNIC(devs[i], devs[j]) {
				group[j] = group[i]
				members = append(members, j)
			}
		}
		t.groups = append(t.groups, members)
	}
	// nodes alike (the same routes between their members' positions, over
	// links of the same figures shared alike) get the same order, found
	// once: a thousand DGX nodes are one search, not a thousand
	memo := map[string][]int{}
	for h, members := range t.groups {
		sig := routeSignature(c, devs, members)
		pos, ok := memo[sig]
		if !ok {
			order := ringOrder(c, devs, members)
			pos = make([]int, len(order))
			for i, r := range order {
				pos[i] = slices.Index(members, r)
			}
			memo[sig] = pos
		}
		ring := make([]int, len(members))
		for i, p := range pos {
			ring[i] = members[p]
		}
		t.groups[h] = ring
		t.nodeOrder = append(t.nodeOrder, ring...)
	}
	if len(t.groups) == 1 {
		t.ring = t.groups[0]
		t.rings, t.shares = ringChannels(c, devs, t.ring)
	} else {
		t.ring = ringOrder(c, devs, t.nodeOrder)
		t.rings, t.shares = [][]int{t.ring}, []float64{1}
	}
	return t
}

// split is each ring's part of an all-reduce of bytes (t.shares of it,
// the rounding left to the last ring).
func (t *collectiveTopo) split(bytes int64) []int64 {
	parts := make([]int64, len(t.rings))
	left := bytes
	for k := range t.rings {
		if k == len(t.rings)-1 {
			parts[k] = left
			break
		}
		parts[k] = min(left, int64(math.Round(float64(bytes)*t.shares[k])))
		left -= parts[k]
	}
	return parts
}

// ringStep is the modelled time of one step of the ring all-reduce of
// bytes on its rings at once (linkStep), each ring's chunk its share of
// the bytes over the replicas (m may be nil).
func (t *collectiveTopo) ringStep(bytes int64, m *CollectiveModel) float64 {
	n := len(t.devs)
	parts := t.split(bytes)
	chunks := make([]int64, len(parts))
	for k, part := range parts {
		chunks[k] = divUp(part, n)
	}
	return t.linkStep(t.rings, chunks, m)
}

// linkStep is the modelled time of one step in which every member of
// each ring of rings (replica indices) sends chunks[k] bytes to the next
// in its ring at once: each chunk crosses its hops' links as wireBytes,
// as the engine plays it, a link shared by several hops carrying them
// one after another; the step lasts as long as its busiest link's load
// plus the longest route's latencies across it (m may be nil). With
// equal chunks and m nil it is stepModel's time.
func (t *collectiveTopo) linkStep(rings [][]int, chunks []int64, m *CollectiveModel) float64 {
	c := t.c
	busy := map[links.LinkID]float64{}
	lat := map[links.LinkID]float64{}
	for k, ring := range rings {
		if len(ring) < 2 {
			continue
		}
		for i, r := range ring {
			a, b := t.devs[r], t.devs[ring[(i+1)%len(ring)]]
			w := float64(wireBytes(c, m, a, b, chunks[k]))
			var l float64
			route := c.Route(a, b)
			for _, lid := range route {
				l += c.Topology.Links[lid].Latency
			}
			for _, lid := range route {
				busy[lid] += w / c.Topology.Links[lid].Bandwidth
				lat[lid] = math.Max(lat[lid], l)
			}
		}
	}
	var worst float64
	for lid, b := range busy {
		worst = math.Max(worst, b+lat[lid])
	}
	return worst
}

// same is n copies of chunk.
func same(n int, chunk int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = chunk
	}
	return out
}

// choose picks the algorithm for an all-reduce of bytes as NCCL does: the
// one whose modelled time (latency plus bytes over bandwidth, per step) is
// the smallest for this message size (NCCL's tuning model,
// src/graph/tuning.cc, and its per-size cost table in enqueue.cc). Within
// one node NCCL runs rings; across nodes the tree and the hierarchical
// algorithm are candidates too. Ties go to the ring. It returns the
// algorithm and its modelled time alone on the links, with the
// collective model's latencies (m may be nil).
func (t *collectiveTopo) choose(bytes int64, m *CollectiveModel) (string, float64) {
	n := len(t.devs)
	var base, step float64
	if m != nil {
		base, step = m.BaseLatency, m.StepLatency
	}
	c := t.c
	best, bestT := AlgoRing, base+float64(2*(n-1))*(step+t.ringStep(bytes, m))
	if len(t.groups) < 2 || n < 3 {
		return best, bestT
	}
	k, g := len(t.groups), len(t.groups[0])
	equal := true
	for _, members := range t.groups {
		equal = equal && len(members) == g
	}
	if equal {
		shard := divUp(bytes, g)
		rails := make([][]int, g)
		for j := range rails {
			for h := range t.groups {
				rails[j] = append(rails[j], t.groups[h][j])
			}
		}
		// the engine plays both phases' chunks as wireBytes (ringPhase),
		// as the ring's ringStep counts them
		h := base + 2*float64(g-1)*(step+t.linkStep(t.groups, same(k, shard), m)) + 2*float64(k-1)*(step+t.linkStep(rails, same(g, divUp(shard, k)), m))
		if h < bestT {
			best, bestT = AlgoHierarchical, h
		}
	}
	// tree: 2 depth levels, each the slowest parent-child edge
	depth := 0
	for m := 1; m < n; m = 2*m + 1 {
		depth++
	}
	var edge float64
	for i := 1; i < n; i++ {
		a, b := t.devs[t.nodeOrder[(i-1)/2]], t.devs[t.nodeOrder[i]]
		edge = math.Max(edge, c.TransferTime(a, b, wireBytes(c, m, a, b, bytes))) // as tree plays it
	}
	if tr := base + 2*float64(depth)*(step+edge); tr < bestT {
		best, bestT = AlgoTree, tr
	}
	return best, bestT
}
