package llm

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/parallel"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// Span is one task as simulated on a pipeline rank's compute stream.
type Span struct {
	Task       Task    `json:"task"`
	Start, End float64 `json:"-"`
}

// RankResult is what one pipeline rank's representative did.
type RankResult struct {
	Rank int `json:"rank"`
	// Busy is the time the compute stream ran chunks (blocking
	// collectives inside them included); PipelineEnd is when its last
	// backward ended; Bubble the time it waited for the pipeline (idle,
	// not waiting on a transfer) before that.
	Busy, PipelineEnd, Bubble float64
	// Exposed is the communication time per kind (CommKinds order) the
	// compute stream waited for.
	Exposed [numComm]float64
	// Optimizer is the optimizer step's time.
	Optimizer float64
	// Spans is the order of tasks as they ran.
	Spans []Span `json:"-"`
	// Comm is the communication off the compute stream: data-parallel
	// reductions and gathers, pipeline sends.
	Comm []CommSpan `json:"-"`
}

// CommSpan is one communication operation of a rank.
type CommSpan struct {
	Kind       CommKind
	What       string
	Start, End float64
}

// Result is one simulated iteration.
type Result struct {
	// IterationTime in seconds.
	IterationTime float64
	// TokensPerSecPerGPU = seq·global batch / iteration time / GPUs.
	TokensPerSecPerGPU float64
	// ModelTFLOPsPerGPU is model FLOPs (no recomputation) per second per
	// GPU in TFLOP/s; MFU divides it by the precision's dense peak, HFU
	// counts recomputed FLOPs too.
	ModelTFLOPsPerGPU, MFU, HFU float64
	// Bubble is the largest rank's bubble as a fraction of the iteration.
	Bubble float64
	// Exposed is the communication time per kind the slowest rank's
	// compute stream waited for (CommKinds order).
	Exposed [numComm]float64
	// Ranks holds every pipeline rank's details.
	Ranks []RankResult
	// Memory per pipeline rank; PeakMemory the largest.
	Memory     []Memory
	PeakMemory int64
	// OOM is the verdict when a rank does not fit (nil otherwise); the
	// times are still simulated.
	OOM *OOM
	// GPUs, Stages (layers per virtual stage) and Notes (what was assumed).
	GPUs   int
	Stages []int
	Notes  []string
}

// ExposedByKind maps kind names to Exposed.
func (r *Result) ExposedByKind() map[string]float64 {
	out := map[string]float64{}
	for _, k := range CommKinds() {
		out[k.String()] = r.Exposed[k]
	}
	return out
}

type ev struct {
	t    float64
	seq  int
	kind int // 0 task end, 1 arrival
	rank int
	// arrival: direction (0 forward activation, 1 gradient), vs, mb
	dir, vs, mb int
}

type evHeap []ev

func (h evHeap) less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}

func (h *evHeap) push(e ev) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *evHeap) pop() ev {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// Simulate plays one iteration of j.
func Simulate(j *Job) (*Result, error) {
	stages, err := j.check()
	if err != nil {
		return nil, err
	}
	l := j.Layout
	m := &j.Model
	P, V, M := l.PP, l.VP, l.MicroBatches()
	nvs := P * V
	res := &Result{GPUs: l.GPUs(), Stages: stages}
	if res.Memory, err = j.memory(stages); err != nil {
		return nil, err
	}
	for _, mm := range res.Memory {
		res.PeakMemory = max(res.PeakMemory, mm.Peak)
	}
	res.OOM = oomOf(res.Memory)

	// costs per virtual stage
	chunks := make([]chunkCost, nvs)
	costers := make([]*coster, P)
	memo := newCollMemo(j.Cluster)
	for r := 0; r < P; r++ {
		c := newCoster(j, r, memo)
		costers[r] = c
		var layer [2]partCost
		for i, p := range []zoo.Part{zoo.PartAttention, zoo.PartMLP} {
			if layer[i], err = c.part(p); err != nil {
				return nil, err
			}
		}
		emb, err := c.part(zoo.PartEmbedding)
		if err != nil {
			return nil, err
		}
		head, err := c.part(zoo.PartHead)
		if err != nil {
			return nil, err
		}
		for ch := 0; ch < V; ch++ {
			vs := ch*P + r
			chunks[vs] = c.chunk(stages[vs], vs == 0, vs == nvs-1, layer, emb, head)
		}
	}
	// pipeline transfer: one micro-batch's boundary activation (or its
	// gradient) from each representative to the next rank's
	T := float64(l.MicroBatch) * float64(m.Seq) / float64(l.CP)
	boundary := 2 * T * float64(m.Hidden)
	if l.SequenceParallel {
		boundary /= float64(l.TP)
	}
	// data-parallel work per chunk
	sh := costers[0].sh
	wb, gb, _ := bytesPerParam(l.Precision)
	dpg := make([][][]int, P)
	edpg := make([][][]int, P)
	for r := range dpg {
		dpg[r] = j.dpPeers(r)
		edpg[r] = j.expertDPPeers(r)
	}
	// chunkParams: dense and expert parameters of a virtual stage on a GPU
	chunkParams := func(vs int) (float64, float64) {
		ad, _ := m.Params(zoo.PartAttention, sh)
		md, me := m.Params(zoo.PartMLP, sh)
		d := float64(stages[vs]) * float64(ad+md)
		if vs == 0 {
			e, _ := m.Params(zoo.PartEmbedding, sh)
			d += float64(e)
		}
		if vs == nvs-1 {
			e, _ := m.Params(zoo.PartHead, sh)
			d += float64(e)
		}
		return d, float64(stages[vs]) * float64(me)
	}
	// Megatron-LM's bucket: max(40M, 1M x dp) parameters
	// (megatron/core/distributed/distributed_data_parallel.py)
	bucket := math.Max(40e6, 1e6*float64(len(dpg[0][0])))
	// gradReduce is the time of reducing a chunk's gradients in one
	// bucket of `frac` of them; paramGather the all-gather of its
	// parameters
	gradKind := AllReduce
	if l.Sharding != parallel.ShardNone {
		gradKind = ReduceScatter
	}
	dpTime := func(r, vs int, k Coll, bytesPer float64, frac float64) (float64, error) {
		d, e := chunkParams(vs)
		t1, err := memo.time(dpg[r], k, d*bytesPer*frac)
		if err != nil {
			return 0, err
		}
		t2, err := memo.time(edpg[r], k, e*bytesPer*frac)
		return t1 + t2, err
	}
	numBuckets := func(vs int) int {
		d, e := chunkParams(vs)
		return max(1, int(math.Ceil((d+e)/bucket)))
	}

	type rankState struct {
		order   []Task
		next    int
		busy    bool
		free    float64 // compute stream
		dpFree  float64 // data-parallel stream
		gather  map[int]float64
		lastB   []int // index in order of each chunk's last backward
		started int
	}
	rs := make([]*rankState, P)
	res.Ranks = make([]RankResult, P)
	for r := 0; r < P; r++ {
		o, err := Order(string(l.Schedule), P, V, M, r)
		if err != nil {
			return nil, err
		}
		st := &rankState{order: o, gather: map[int]float64{}, lastB: make([]int, V)}
		for i, t := range o {
			if t.Backward {
				st.lastB[t.Chunk] = i
			}
		}
		rs[r] = st
		res.Ranks[r].Rank = r
	}
	// ZeRO-1/2: the parameters updated by the last step are all-gathered
	// chunk by chunk, overlapped with the forward (Megatron's
	// overlap_param_gather): each chunk's first forward waits for it
	if l.Sharding == parallel.ShardZeRO1 || l.Sharding == parallel.ShardZeRO2 {
		for r := 0; r < P; r++ {
			for ch := 0; ch < V; ch++ {
				t, err := dpTime(r, ch*P+r, AllGather, float64(wb), 1)
				if err != nil {
					return nil, err
				}
				res.Ranks[r].Comm = append(res.Ranks[r].Comm, CommSpan{CommDP, fmt.Sprintf("all-gather parameters of chunk %d", ch), rs[r].dpFree, rs[r].dpFree + t})
				rs[r].dpFree += t
				rs[r].gather[ch] = rs[r].dpFree
			}
		}
	}
	arrF := make([][]float64, nvs) // forward input of (vs, mb) arrived
	arrB := make([][]float64, nvs)
	sentF := make([][]float64, nvs) // when its producer finished
	sentB := make([][]float64, nvs)
	for vs := range arrF {
		arrF[vs], arrB[vs] = make([]float64, M), make([]float64, M)
		sentF[vs], sentB[vs] = make([]float64, M), make([]float64, M)
		for i := range arrF[vs] {
			arrF[vs][i], arrB[vs][i] = -1, -1
		}
	}
	linkFree := map[int]float64{}
	var h evHeap
	seq := 0
	push := func(e ev) { e.seq = seq; seq++; h.push(e) }

	taskTime := func(r int, t Task) segment {
		cc := chunks[t.Chunk*P+r]
		if t.Backward {
			return cc.bwd
		}
		return cc.fwd
	}
	var simErr error
	// fsdpGather launches the ZeRO-3 all-gather of the parameters the
	// task at order index i needs, on the data-parallel stream
	fsdpGather := func(r, i int, now float64) {
		st := rs[r]
		if l.Sharding != parallel.ShardZeRO3 || i >= len(st.order) {
			return
		}
		if _, ok := st.gather[i]; ok {
			return
		}
		t := st.order[i]
		d, err := dpTime(r, t.Chunk*P+r, AllGather, float64(wb), 1)
		if err != nil && simErr == nil {
			simErr = err
		}
		start := math.Max(now, st.dpFree)
		st.dpFree = start + d
		res.Ranks[r].Comm = append(res.Ranks[r].Comm, CommSpan{CommDP, "all-gather parameters for " + t.String(), start, st.dpFree})
		st.gather[i] = st.dpFree
	}
	var tryStart func(r int, now float64)
	tryStart = func(r int, now float64) {
		st := rs[r]
		if st.busy || st.next >= len(st.order) {
			return
		}
		t := st.order[st.next]
		vs := t.Chunk*P + r
		dep, sent := 0.0, 0.0
		switch {
		case !t.Backward && vs > 0:
			dep, sent = arrF[vs][t.MicroBatch], sentF[vs][t.MicroBatch]
		case t.Backward && vs < nvs-1:
			dep, sent = arrB[vs][t.MicroBatch], sentB[vs][t.MicroBatch]
		}
		if dep < 0 {
			return // waits for its input to arrive
		}
		start := math.Max(math.Max(now, st.free), dep)
		rr := &res.Ranks[r]
		// the wait after the producer finished is the transfer, exposed
		if dep > st.free {
			pp := dep - math.Max(st.free, sent)
			rr.Exposed[CommPP] += math.Max(0, pp)
			rr.Bubble += math.Max(0, math.Min(dep, sent)-st.free)
		}
		// parameters: ZeRO-1/2's gather of the chunk before its first
		// forward, ZeRO-3's before every task
		var g float64
		if l.Sharding == parallel.ShardZeRO3 {
			fsdpGather(r, st.next, now)
			g = st.gather[st.next]
			fsdpGather(r, st.next+1, now) // prefetch the next
		} else if gt, ok := st.gather[t.Chunk]; ok && !t.Backward {
			g = gt
		}
		if g > start {
			rr.Exposed[CommDP] += g - start
			start = g
		}
		seg := taskTime(r, t)
		st.busy = true
		end := start + seg.total()
		rr.Busy += seg.total()
		for k := range seg.exposed {
			rr.Exposed[k] += seg.exposed[k]
		}
		rr.Spans = append(rr.Spans, Span{Task: t, Start: start, End: end})
		push(ev{t: end, kind: 0, rank: r})
	}
	ppDur := map[[2]int]float64{}
	send := func(r, dst, dir, vs, mb int, now float64) {
		src := j.rank(0, 0, 0, r)
		dd := j.rank(0, 0, 0, dst)
		route := j.Cluster.Route(src, dd)
		start := now
		for _, lid := range route {
			start = math.Max(start, linkFree[int(lid)])
		}
		end := start
		if len(route) > 0 {
			// every tensor-, context- and data-parallel rank of this
			// stage sends its piece to its counterpart at the same time:
			// the pairs share adapters and leaf uplinks where they meet
			d, ok := ppDur[[2]int{r, dst}]
			if !ok {
				var err error
				if d, err = memo.time(j.ppPairs(r, dst), SendRecv, boundary); err != nil && simErr == nil {
					simErr = err
				}
				ppDur[[2]int{r, dst}] = d
			}
			end = start + d
		}
		for _, lid := range route {
			linkFree[int(lid)] = end
		}
		push(ev{t: end, kind: 1, rank: dst, dir: dir, vs: vs, mb: mb})
		what := fmt.Sprintf("send activation %d to stage %d", mb, vs)
		if dir == 1 {
			what = fmt.Sprintf("send gradient %d to stage %d", mb, vs)
		}
		res.Ranks[r].Comm = append(res.Ranks[r].Comm, CommSpan{CommPP, what, start, end})
		if dir == 0 {
			sentF[vs][mb] = now
		} else {
			sentB[vs][mb] = now
		}
	}
	for r := 0; r < P; r++ {
		tryStart(r, 0)
	}
	for len(h) > 0 && simErr == nil {
		e := h.pop()
		if e.kind == 1 {
			if e.dir == 0 {
				arrF[e.vs][e.mb] = e.t
			} else {
				arrB[e.vs][e.mb] = e.t
			}
			tryStart(e.rank, e.t)
			continue
		}
		r := e.rank
		st := rs[r]
		t := st.order[st.next]
		vs := t.Chunk*P + r
		st.busy, st.free = false, e.t
		if !t.Backward && vs < nvs-1 {
			send(r, (vs+1)%P, 0, vs+1, t.MicroBatch, e.t)
		}
		if t.Backward && vs > 0 {
			send(r, (vs-1+P)%P, 1, vs-1, t.MicroBatch, e.t)
		}
		// gradient reduction, bucket by bucket as the backward produces
		// them: after the chunk's last backward (gradients accumulated
		// over the micro-batches), or after every backward with ZeRO-2/3
		// (sharded gradients)
		if t.Backward && (st.next == st.lastB[t.Chunk] || l.Sharding >= parallel.ShardZeRO2) {
			nb := numBuckets(vs)
			span := res.Ranks[r].Spans[len(res.Ranks[r].Spans)-1]
			for b := 0; b < nb; b++ {
				ready := span.Start + float64(b+1)/float64(nb)*(span.End-span.Start)
				d, err := dpTime(r, vs, gradKind, float64(gb), 1/float64(nb))
				if err != nil {
					return nil, err
				}
				bs := math.Max(ready, st.dpFree)
				st.dpFree = bs + d
				res.Ranks[r].Comm = append(res.Ranks[r].Comm, CommSpan{CommDP, fmt.Sprintf("%s gradients of stage %d, bucket %d/%d", gradKind, vs, b+1, nb), bs, st.dpFree})
			}
		}
		st.next++
		tryStart(r, e.t)
	}
	if simErr != nil {
		return nil, simErr
	}
	for r, st := range rs {
		if st.next != len(st.order) {
			return nil, fmt.Errorf("%w: pipeline rank %d stopped after %d of %d tasks (the schedule deadlocks)", ErrJob, r, st.next, len(st.order))
		}
	}
	// optimizer step over the rank's (sharded) state: Adam reads FP32
	// master weights, both moments and the gradient and writes the first
	// three and the BF16/FP16 weights: 30 bytes and about 12 FLOPs per
	// parameter (apex/Megatron fused multi-tensor Adam)
	for r, st := range rs {
		rr := &res.Ranks[r]
		rr.PipelineEnd = st.free
		// the parameters this GPU updates: its share of the optimizer
		// state (dense over dp*cp, experts over dp*cp/ep when sharded)
		_, _, ob := bytesPerParam(l.Precision)
		n := float64(res.Memory[r].Optimizer) / float64(ob)
		op := workloads.Op{Name: "adam", Type: "apply-adam", FLOPs: 12 * n, BytesAccessed: int64(30 * n), Precision: workloads.FP32}
		k := &j.Cluster.Devices[j.rank(0, 0, 0, r)].Kind
		ot, err := devices.OpTime(&op, k)
		if err != nil {
			return nil, err
		}
		rr.Optimizer = ot
		end := st.free
		if st.dpFree > end {
			rr.Exposed[CommDP] += st.dpFree - end
			end = st.dpFree
		}
		end += ot
		if end > res.IterationTime {
			res.IterationTime = end
			res.Exposed = rr.Exposed
		}
	}
	// MFU and HFU against the precision's dense peak
	k := &j.Cluster.Devices[0].Kind
	peak := k.Peak(costers[0].mmType, true)
	if l.Precision == parallel.FP8 && k.TensorFP8 == 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s has no FP8 tensor cores: FP8 runs as the device runs it (%.0f TFLOP/s peak)", k.Name, peak/1e12))
	}
	gpus := float64(l.GPUs())
	it := res.IterationTime
	gbs := float64(l.GlobalBatch)
	res.TokensPerSecPerGPU = float64(m.Seq) * gbs / it / gpus
	model := m.ModelFLOPsPerSequence() * gbs / it / gpus
	res.ModelTFLOPsPerGPU = model / 1e12
	res.MFU = model / peak
	res.HFU = m.TrainingFLOPsPerSequence(l.Recompute.String()) * gbs / it / gpus / peak
	for _, rr := range res.Ranks {
		res.Bubble = math.Max(res.Bubble, rr.Bubble/it)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("simulated by symmetry: one representative GPU per pipeline rank stands for its %d tensor-, context- and data-parallel peers", l.TP*l.CP*l.DP))
	return res, nil
}
