package llm

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"placesim/collectives"

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
	// Mode is how the GPUs were played: "reduced" (by symmetry, Classes
	// says which GPUs each representative stands for), "full" (every
	// GPU on its own) or "mixed" (the GPUs of Played on their own, the
	// others by the representatives of Classes).
	Mode    string
	Classes []Class
	// Individual lists the GPUs that broke the symmetry (a straggler, a
	// slow link, another GPU kind); Asymmetry says why (at most three
	// reasons). ModeAuto then plays them in the "mixed" mode: Played
	// lists the GPUs it simulated individually (the groups holding them
	// and those groups' pipeline partners), Classes the representatives
	// of the others; where every group holds one it plays "full".
	Individual []int
	Asymmetry  []string
	Played     []int
	// GPUPeak is each GPU's peak memory, by global rank.
	GPUPeak []int64
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

// Simulate plays one iteration of j: by symmetry (one representative GPU
// per pipeline rank, Result.Classes) where its GPUs are interchangeable,
// every GPU on its own otherwise or when j.Mode asks (see Mode).
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
	odd, why := j.asymmetry()
	full := j.Mode == ModeFull
	mixed := false
	if len(odd) > 0 {
		if j.Mode == ModeReduced {
			return nil, fmt.Errorf("%w: mode reduced, but GPUs %s are not interchangeable with their peers: %s", ErrJob, ranges(odd), strings.Join(why, "; "))
		}
		full = true
		mixed = j.Mode == ModeAuto
		res.Individual, res.Asymmetry = odd, why
	}
	// B gangs (columns) per pipeline rank, each standing for the
	// data-parallel blocks cols[b] (a block: every tensor- and
	// context-parallel group of gangDP data-parallel ranks, with the
	// expert-parallel groups they form): one column for all by symmetry;
	// one per block in the full mode; in the mixed mode (ModeAuto on an
	// asymmetric job) one per block holding a GPU that breaks the
	// symmetry, at every pipeline rank (its pipeline partners), and one
	// representative column for the other blocks
	nb := l.DP / j.gangDP()
	var cols [][]int
	switch {
	case mixed:
		cols = j.mixedColumns(odd)
		if len(cols) == nb {
			mixed = false // every block holds an odd GPU
		}
	case full:
		for b := 0; b < nb; b++ {
			cols = append(cols, []int{b})
		}
	default:
		all := make([]int, nb)
		for b := range all {
			all[b] = b
		}
		cols = [][]int{all}
	}
	B := len(cols)
	switch {
	case mixed:
		res.Mode = "mixed"
		res.Classes, res.Played = j.mixedClasses(cols)
	case full:
		res.Mode = ModeFull.String()
	default:
		res.Mode = ModeReduced.String()
		res.Classes = j.classes()
	}
	NG := P * B
	if res.Memory, err = j.memory(stages); err != nil {
		return nil, err
	}
	for _, mm := range res.Memory {
		res.PeakMemory = max(res.PeakMemory, mm.Peak)
	}
	res.OOM = oomOf(res.Memory)
	res.GPUPeak = make([]int64, l.GPUs())
	per := l.TP * l.CP * l.DP
	for g := range res.GPUPeak {
		res.GPUPeak[g] = res.Memory[g/per].Peak
		if full && res.OOM == nil {
			// every GPU against its own capacity
			mm := res.Memory[g/per]
			d := &j.Cluster.Devices[g]
			mm.Device, mm.Capacity = d.Name, d.Memory
			res.OOM = oomOf([]Memory{mm})
		}
	}

	memo := newCollMemo(j.Cluster)
	// costs per gang and virtual stage: the slowest member's chunk (its
	// device kind, its slowdown) with the collectives of the gang's groups
	chunks := make([][]chunkCost, NG)
	optT := make([]float64, NG)
	var costers0 *coster
	type kindKey struct {
		name      string
		peak, mem float64
		slow      float64
		r         int
	}
	for r := 0; r < P; r++ {
		for b := 0; b < B; b++ {
			g := r*B + b
			var members []int
			mm := memo
			if full {
				members = j.gangMembers(r, cols[b][0])
				mm = memo.gang(members)
			} else {
				members = []int{j.rank(0, 0, 0, r)}
			}
			seen := map[kindKey]bool{}
			chunks[g] = make([]chunkCost, V)
			for _, dev := range members {
				k := &j.Cluster.Devices[dev].Kind
				slow := 1.0
				if f, ok := j.Slowdown[dev]; ok {
					slow = f
				}
				kk := kindKey{k.Name, k.TensorBF16 + k.TensorFLOPS + k.TensorFP8, k.MemBandwidth, slow, r}
				if seen[kk] {
					continue
				}
				seen[kk] = true
				c := newCoster(j, r, mm)
				c.kind = k
				if costers0 == nil {
					costers0 = c
				}
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
					cc := c.chunk(stages[vs], vs == 0, vs == nvs-1, layer, emb, head)
					cc.fwd.compute *= slow
					cc.bwd.compute *= slow
					if len(seen) == 1 || cc.fwd.total() > chunks[g][ch].fwd.total() {
						chunks[g][ch].fwd = cc.fwd
					}
					if len(seen) == 1 || cc.bwd.total() > chunks[g][ch].bwd.total() {
						chunks[g][ch].bwd = cc.bwd
					}
					chunks[g][ch].layers, chunks[g][ch].first, chunks[g][ch].last = cc.layers, cc.first, cc.last
				}
				// optimizer step over the GPU's (sharded) state
				// (optimizerStepBytes): the parameters this GPU updates
				// are its share of the optimizer state (dense over
				// dp*cp, experts over dp*cp/ep when sharded)
				_, _, ob := j.stateBytes()
				n := float64(res.Memory[r].Optimizer) / float64(ob)
				op := workloads.Op{Name: "adam", Type: "apply-adam", FLOPs: 12 * n,
					BytesAccessed: int64(j.optimizerStepBytes()*n) + res.Memory[r].Grads, Precision: workloads.FP32}
				ot, err := devices.OpTime(&op, k)
				if err != nil {
					return nil, err
				}
				optT[g] = max(optT[g], ot*slow)
			}
		}
	}
	// pipeline transfer: one micro-batch's boundary activation (or its
	// gradient) from each GPU of a stage to its counterpart of the next
	T := float64(l.MicroBatch) * float64(m.Seq) / float64(l.CP)
	boundary := 2 * T * float64(m.Hidden)
	if l.SequenceParallel {
		boundary /= float64(l.TP)
	}
	// data-parallel work per chunk
	sh := costers0.sh
	wb, gb, _ := j.stateBytes()
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
	// the gradients are all-reduced, or reduce-scattered when the
	// optimizer state is sharded
	gradKind := AllReduce
	if l.Sharding != parallel.ShardNone {
		gradKind = ReduceScatter
	}
	// dpTime is the time of collective k over `frac` of virtual stage
	// vs's dense and expert parameters, bytesPer bytes each, on pipeline
	// rank r's data-parallel groups (a bucket's gradient reduction, or
	// its parameters' all-gather). A data-parallel collective spans every
	// gang of a pipeline rank: it starts when all of them have arrived
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

	type gangState struct {
		order   []Task
		next    int
		busy    bool
		free    float64 // compute stream
		lastB   []int   // index in order of each chunk's last backward
		asked   int     // ZeRO-3 gathers asked for: order indices < asked
		waiting bool    // for a ZeRO-3 gather its peers have not asked for
		waitT   float64
	}
	// per pipeline rank: the data-parallel stream, the gathers, the
	// reductions and gathers waiting for every gang to arrive
	type pending struct {
		count int
		at    float64
		ready []float64
	}
	dpFree := make([]float64, P)
	gather := make([]map[int]float64, P) // ZeRO-1/2 by chunk
	z3 := make([]map[int]*pending, P)    // ZeRO-3 by order index
	z3End := make([]map[int]float64, P)
	red := make([]map[int]*pending, P) // reductions by order index
	rankComm := make([][]CommSpan, P)
	rs := make([]*gangState, NG)
	gres := make([]RankResult, NG)
	for r := 0; r < P; r++ {
		o, err := Order(string(l.Schedule), P, V, M, r)
		if err != nil {
			return nil, err
		}
		gather[r], z3[r], z3End[r], red[r] = map[int]float64{}, map[int]*pending{}, map[int]float64{}, map[int]*pending{}
		for b := 0; b < B; b++ {
			st := &gangState{order: o, lastB: make([]int, V)}
			for i, t := range o {
				if t.Backward {
					st.lastB[t.Chunk] = i
				}
			}
			rs[r*B+b] = st
			gres[r*B+b].Rank = r
		}
	}
	// the data-parallel stream and the pipeline sends share the links
	// they both cross (an adapter, an NVSwitch port, a leaf uplink):
	// linkFree is when each directed link's last pipeline send ends (one
	// at a time, in arrival order), dpUntil when the last data-parallel
	// collective holding it (the routes of its rings, dpLinks) ends and
	// dpOwner whose stream that is. A collective starts after the sends
	// in flight on its links (they are short); a send that meets a
	// collective on a link shares its bandwidth: it takes up to twice as
	// long, and the collective's stream as much longer as the send took
	// of it (NCCL's chunks of both interleave on the wire)
	linkFree := make([]float64, len(j.Cluster.Topology.Links))
	dpUntil := make([]float64, len(j.Cluster.Topology.Links))
	dpOwner := make([]int, len(j.Cluster.Topology.Links))
	dpLinks := make([][]int, P)
	// by symmetry the links of one node stand for every node's: the
	// representative column's sample (its data-parallel group's members
	// on the representative's node) has its pipeline sends and the ring
	// edges into and out of it routed
	sample := make([]map[int]bool, P)
	for r := 0; r < P; r++ {
		sample[r] = j.nodeSample(r, cols[len(cols)-1])
		dpLinks[r] = j.dpLinks(r, full && !mixed, dpg[r], edpg[r], sample[r])
	}
	dpSlot := func(r int, ready, d float64) (float64, float64) {
		start := math.Max(ready, dpFree[r])
		if d > 0 {
			for _, lid := range dpLinks[r] {
				start = math.Max(start, linkFree[lid])
			}
		}
		end := start + d
		dpFree[r] = end
		if d > 0 {
			for _, lid := range dpLinks[r] {
				if end > dpUntil[lid] {
					dpUntil[lid], dpOwner[lid] = end, r
				}
			}
		}
		return start, end
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
				start, end := dpSlot(r, dpFree[r], t)
				rankComm[r] = append(rankComm[r], CommSpan{CommDP, fmt.Sprintf("all-gather parameters of chunk %d", ch), start, end})
				gather[r][ch] = end
			}
		}
	}
	// arrivals by gang index within its rank (b), virtual stage and
	// micro-batch
	arrF := make([][][]float64, B) // forward input of (vs, mb) arrived
	arrB := make([][][]float64, B)
	sentF := make([][][]float64, B) // when its producer finished
	sentB := make([][][]float64, B)
	for b := 0; b < B; b++ {
		arrF[b], arrB[b], sentF[b], sentB[b] = make([][]float64, nvs), make([][]float64, nvs), make([][]float64, nvs), make([][]float64, nvs)
		for vs := 0; vs < nvs; vs++ {
			arrF[b][vs], arrB[b][vs] = make([]float64, M), make([]float64, M)
			sentF[b][vs], sentB[b][vs] = make([]float64, M), make([]float64, M)
			for i := range arrF[b][vs] {
				arrF[b][vs][i], arrB[b][vs][i] = -1, -1
			}
		}
	}
	var h evHeap
	seq := 0
	push := func(e ev) { e.seq = seq; seq++; h.push(e) }

	var simErr error
	var tryStart func(g int, now float64)
	// fsdpGather asks, for gang g, for the ZeRO-3 all-gather of the
	// parameters the task at order index i needs; the gather runs on the
	// rank's data-parallel stream once every gang has asked. It reports
	// whether gather i has started.
	fsdpGather := func(g, i int, now float64) bool {
		st := rs[g]
		r := g / B
		if i >= len(st.order) {
			return true
		}
		if i >= st.asked {
			st.asked = i + 1
			p := z3[r][i]
			if p == nil {
				p = &pending{}
				z3[r][i] = p
			}
			p.count++
			p.at = math.Max(p.at, now)
			if p.count == B {
				t := st.order[i]
				d, err := dpTime(r, t.Chunk*P+r, AllGather, float64(wb), 1)
				if err != nil && simErr == nil {
					simErr = err
				}
				start, end := dpSlot(r, p.at, d)
				rankComm[r] = append(rankComm[r], CommSpan{CommDP, "all-gather parameters for " + t.String(), start, end})
				z3End[r][i] = end
				delete(z3[r], i)
				for b := 0; b < B; b++ {
					if w := rs[r*B+b]; w.waiting && r*B+b != g {
						w.waiting = false
						tryStart(r*B+b, w.waitT)
					}
				}
			}
		}
		_, ok := z3End[r][i]
		return ok
	}
	tryStart = func(g int, now float64) {
		st := rs[g]
		if st.busy || st.next >= len(st.order) {
			return
		}
		r, b := g/B, g%B
		t := st.order[st.next]
		vs := t.Chunk*P + r
		dep, sent := 0.0, 0.0
		switch {
		case !t.Backward && vs > 0:
			dep, sent = arrF[b][vs][t.MicroBatch], sentF[b][vs][t.MicroBatch]
		case t.Backward && vs < nvs-1:
			dep, sent = arrB[b][vs][t.MicroBatch], sentB[b][vs][t.MicroBatch]
		}
		if dep < 0 {
			return // waits for its input to arrive
		}
		// parameters: ZeRO-1/2's gather of the chunk before its first
		// forward, ZeRO-3's before every task
		var gt float64
		if l.Sharding == parallel.ShardZeRO3 {
			if !fsdpGather(g, st.next, now) {
				st.waiting, st.waitT = true, now
				return
			}
			gt = z3End[r][st.next]
			fsdpGather(g, st.next+1, now) // prefetch the next
		} else if x, ok := gather[r][t.Chunk]; ok && !t.Backward {
			gt = x
		}
		start := math.Max(math.Max(now, st.free), dep)
		rr := &gres[g]
		// the wait after the producer finished is the transfer, exposed
		if dep > st.free {
			pp := dep - math.Max(st.free, sent)
			rr.Exposed[CommPP] += math.Max(0, pp)
			rr.Bubble += math.Max(0, math.Min(dep, sent)-st.free)
		}
		if gt > start {
			rr.Exposed[CommDP] += gt - start
			start = gt
		}
		cc := chunks[g][t.Chunk]
		seg := cc.fwd
		if t.Backward {
			seg = cc.bwd
		}
		st.busy = true
		end := start + seg.total()
		rr.Busy += seg.total()
		for k := range seg.exposed {
			rr.Exposed[k] += seg.exposed[k]
		}
		rr.Spans = append(rr.Spans, Span{Task: t, Start: start, End: end})
		push(ev{t: end, kind: 0, rank: g})
	}

	// pipeline sends, gathered per event time: those of one stage to the
	// next (the same direction, virtual stage and micro-batch) issued at
	// the same moment by several gangs run at once (collectives.Concurrent
	// over all their pairs); each gang's pairs cross their own routes,
	// FCFS on every link of them
	type sendKey struct{ r, dst, dir, vs, mb int }
	var pend []sendKey
	pendBlocks := map[sendKey][]int{}
	type batchCost struct {
		dur   []float64 // per block of the batch
		links [][]int   // per block: the links its pairs' routes cross
	}
	batchMemo := map[string]*batchCost{}
	batch := func(r, dst int, blocks []int) (*batchCost, error) {
		key := fmt.Sprint(r, dst, blocks)
		if bc, ok := batchMemo[key]; ok {
			return bc, nil
		}
		all := j.ppPairs(r, dst) // ordered d, c, t
		n := len(all) / nb
		var pairs [][]int
		from := make([]int, len(blocks)+1) // column i's pairs: pairs[from[i]:from[i+1]]
		for i, b := range blocks {
			for _, blk := range cols[b] {
				pairs = append(pairs, all[blk*n:(blk+1)*n]...)
			}
			from[i+1] = len(pairs)
		}
		bc := &batchCost{dur: make([]float64, len(blocks)), links: make([][]int, len(blocks))}
		var es []collectives.Estimate
		if len(pairs) > 0 && boundary > 0 {
			var err error
			if es, err = collectives.Concurrent(j.Cluster, pairs, SendRecv, int64(boundary)); err != nil {
				return nil, err
			}
		}
		for i, b := range blocks {
			seen := map[int]bool{}
			for p := from[i]; p < from[i+1]; p++ {
				if (!full || len(cols[b]) > 1) && !sample[r][pairs[p][0]] {
					// by symmetry every pair's links hold what those of
					// the sample do (the representative's data-parallel
					// group's members on its node: their routes cross
					// the links its rings share; routing every GPU of
					// 16,384 costs minutes and gigabytes)
					if es != nil {
						bc.dur[i] = math.Max(bc.dur[i], es[p].Seconds)
					}
					continue
				}
				route := j.Cluster.Route(pairs[p][0], pairs[p][1])
				for _, lid := range route {
					if !seen[int(lid)] {
						seen[int(lid)] = true
						bc.links[i] = append(bc.links[i], int(lid))
					}
				}
				if len(route) > 0 && es != nil {
					bc.dur[i] = math.Max(bc.dur[i], es[p].Seconds)
				}
			}
			sort.Ints(bc.links[i])
		}
		batchMemo[key] = bc
		return bc, nil
	}
	send := func(g, dst, dir, vs, mb int, now float64) {
		k := sendKey{g / B, dst, dir, vs, mb}
		if _, ok := pendBlocks[k]; !ok {
			pend = append(pend, k)
		}
		pendBlocks[k] = append(pendBlocks[k], g%B)
		if dir == 0 {
			sentF[g%B][vs][mb] = now
		} else {
			sentB[g%B][vs][mb] = now
		}
	}
	ext := make([]float64, P) // per rank: how much the sends slowed its data-parallel stream
	flush := func(now float64) {
		for _, k := range pend {
			blocks := pendBlocks[k]
			delete(pendBlocks, k)
			sort.Ints(blocks)
			bc, err := batch(k.r, k.dst, blocks)
			if err != nil {
				if simErr == nil {
					simErr = err
				}
				return
			}
			start := now
			for _, ls := range bc.links {
				for _, lid := range ls {
					start = math.Max(start, linkFree[lid])
				}
			}
			for i, b := range blocks {
				// a data-parallel collective on one of its links: both
				// at half the bandwidth while they overlap
				var share float64
				for _, lid := range bc.links[i] {
					if u := dpUntil[lid]; u > start {
						x := math.Min(bc.dur[i], (u-start)/2)
						share = math.Max(share, x)
						ext[dpOwner[lid]] = math.Max(ext[dpOwner[lid]], x)
					}
				}
				end := start + bc.dur[i] + share
				for _, lid := range bc.links[i] {
					linkFree[lid] = math.Max(linkFree[lid], end)
				}
				push(ev{t: end, kind: 1, rank: k.dst*B + b, dir: k.dir, vs: k.vs, mb: k.mb})
				what := fmt.Sprintf("send activation %d to stage %d", k.mb, k.vs)
				if k.dir == 1 {
					what = fmt.Sprintf("send gradient %d to stage %d", k.mb, k.vs)
				}
				gres[k.r*B+b].Comm = append(gres[k.r*B+b].Comm, CommSpan{CommPP, what, start, end})
			}
		}
		pend = pend[:0]
		// the collectives the sends slowed end later, by the most any
		// of them took (the sends of one moment cross links in parallel)
		for r, x := range ext {
			if x > 0 {
				dpFree[r] += x
				for _, lid := range dpLinks[r] {
					if dpOwner[lid] == r && dpUntil[lid] > now {
						dpUntil[lid] += x
					}
				}
				ext[r] = 0
			}
		}
	}
	for g := 0; g < NG; g++ {
		tryStart(g, 0)
	}
	for len(h) > 0 && simErr == nil {
		e := h.pop()
		if e.kind == 1 {
			b := e.rank % B
			if e.dir == 0 {
				arrF[b][e.vs][e.mb] = e.t
			} else {
				arrB[b][e.vs][e.mb] = e.t
			}
			tryStart(e.rank, e.t)
		} else {
			g := e.rank
			r := g / B
			st := rs[g]
			t := st.order[st.next]
			vs := t.Chunk*P + r
			st.busy, st.free = false, e.t
			if !t.Backward && vs < nvs-1 {
				send(g, (vs+1)%P, 0, vs+1, t.MicroBatch, e.t)
			}
			if t.Backward && vs > 0 {
				send(g, (vs-1+P)%P, 1, vs-1, t.MicroBatch, e.t)
			}
			// gradient reduction, bucket by bucket as the backward
			// produces them: after the chunk's last backward (gradients
			// accumulated over the micro-batches), or after every
			// backward with ZeRO-2/3 (sharded gradients); each bucket's
			// collective starts when every gang of the rank has it ready
			if t.Backward && (st.next == st.lastB[t.Chunk] || l.Sharding >= parallel.ShardZeRO2) {
				nb := numBuckets(vs)
				span := gres[g].Spans[len(gres[g].Spans)-1]
				p := red[r][st.next]
				if p == nil {
					p = &pending{ready: make([]float64, nb)}
					red[r][st.next] = p
				}
				p.count++
				for bk := 0; bk < nb; bk++ {
					p.ready[bk] = math.Max(p.ready[bk], span.Start+float64(bk+1)/float64(nb)*(span.End-span.Start))
				}
				if p.count == B {
					delete(red[r], st.next)
					for bk := 0; bk < nb; bk++ {
						d, err := dpTime(r, vs, gradKind, float64(gb), 1/float64(nb))
						if err != nil {
							return nil, err
						}
						bs, be := dpSlot(r, p.ready[bk], d)
						rankComm[r] = append(rankComm[r], CommSpan{CommDP, fmt.Sprintf("%s gradients of stage %d, bucket %d/%d", gradKind, vs, bk+1, nb), bs, be})
					}
				}
			}
			st.next++
			tryStart(g, e.t)
		}
		if len(pend) > 0 && (len(h) == 0 || h[0].t > e.t) {
			flush(e.t)
		}
	}
	if simErr != nil {
		return nil, simErr
	}
	for g, st := range rs {
		if st.next != len(st.order) {
			return nil, fmt.Errorf("%w: pipeline rank %d stopped after %d of %d tasks (the schedule deadlocks)", ErrJob, g/B, st.next, len(st.order))
		}
	}
	// the optimizer step after the rank's last reduction
	res.Ranks = make([]RankResult, P)
	for r := 0; r < P; r++ {
		var bestEnd float64
		for b := 0; b < B; b++ {
			g := r*B + b
			st, rr := rs[g], &gres[g]
			rr.PipelineEnd = st.free
			rr.Optimizer = optT[g]
			end := st.free
			if dpFree[r] > end {
				rr.Exposed[CommDP] += dpFree[r] - end
				end = dpFree[r]
			}
			end += optT[g]
			if b == 0 || end > bestEnd {
				bestEnd = end
				res.Ranks[r] = *rr
			}
			if end > res.IterationTime {
				res.IterationTime = end
				res.Exposed = rr.Exposed
			}
		}
		res.Ranks[r].Comm = append(rankComm[r], res.Ranks[r].Comm...)
	}
	// MFU and HFU against the precision's dense peak
	k := &j.Cluster.Devices[0].Kind
	peak := k.Peak(costers0.mmType, true)
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
	res.Notes = append(res.Notes, j.spreadNotes()...)
	switch {
	case !full:
		res.Notes = append(res.Notes, fmt.Sprintf("simulated by symmetry: one representative GPU per pipeline rank stands for its %d tensor-, context- and data-parallel peers (classes: %s)", per, classNote(res.Classes)))
	case mixed:
		res.Notes = append(res.Notes, fmt.Sprintf("symmetry does not hold for GPUs %s (%s): simulated individually with the GPUs they synchronise with (their tensor-, context- and expert-parallel groups and those groups' pipeline partners): GPUs %s (%d of %d); the other %d GPUs by one representative group per pipeline rank (classes: %s)",
			ranges(odd), strings.Join(why, "; "), ranges(res.Played), len(res.Played), l.GPUs(), l.GPUs()-len(res.Played), classNote(res.Classes)))
	case len(odd) > 0:
		res.Notes = append(res.Notes, fmt.Sprintf("symmetry does not hold for GPUs %s (%s): every GPU simulated individually (%d groups of %d GPUs)", ranges(odd), strings.Join(why, "; "), NG, l.TP*l.CP*j.gangDP()))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("every GPU simulated individually (mode full: %d groups of %d GPUs)", NG, l.TP*l.CP*j.gangDP()))
	}
	return res, nil
}

// classNote lists classes as "rank 0: GPU 0 for 0-7; ...", at most four.
func classNote(cs []Class) string {
	var parts []string
	for i, c := range cs {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("... %d more", len(cs)-4))
			break
		}
		parts = append(parts, fmt.Sprintf("rank %d: GPU %d for %s", c.Rank, c.Representative, ranges(c.GPUs)))
	}
	return strings.Join(parts, "; ")
}
