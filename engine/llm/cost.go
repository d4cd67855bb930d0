package llm

import (
	"fmt"

	"placesim/devices"
	"placesim/parallel"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// CommKind is a class of communication reported separately.
type CommKind int

// Communication kinds.
const (
	CommTP CommKind = iota
	CommCP
	CommEP
	CommPP
	CommDP
	numComm
)

// String is the kind's short name (TP, CP, EP, PP, DP).
func (k CommKind) String() string { return [...]string{"TP", "CP", "EP", "PP", "DP"}[k] }

// CommKinds lists the kinds in report order.
func CommKinds() []CommKind { return []CommKind{CommTP, CommCP, CommEP, CommPP, CommDP} }

// segment is a piece of a chunk's time on the compute stream.
type segment struct {
	compute float64
	exposed [numComm]float64
	// flops executed (hardware FLOPs, recomputation included)
	flops float64
}

func (s *segment) add(o segment, times float64) {
	s.compute += o.compute * times
	for i := range s.exposed {
		s.exposed[i] += o.exposed[i] * times
	}
	s.flops += o.flops * times
}

func (s segment) total() float64 {
	t := s.compute
	for _, e := range s.exposed {
		t += e
	}
	return t
}

// coster prices the parts of the model on one pipeline rank's
// representative.
type coster struct {
	j     *Job
	kind  *devices.Kind
	dtype workloads.DType
	// mmType is the arithmetic of the linear layers' matrix products:
	// FP8 under Transformer Engine's FP8 recipe (BF16 elsewhere; a kind
	// without FP8 runs them as the device's Peak says)
	mmType workloads.DType
	sh     zoo.Shard
	r      int // pipeline rank
	memo   *collMemo
}

func newCoster(j *Job, r int, memo *collMemo) *coster {
	l := j.Layout
	dev := j.rank(0, 0, 0, r)
	k := &j.Cluster.Devices[dev].Kind
	c := &coster{j: j, kind: k, dtype: workloads.BF16, mmType: workloads.BF16, r: r, memo: memo,
		sh: zoo.Shard{TP: l.TP, CP: l.CP, EP: l.EP, SP: l.SequenceParallel, MicroBatch: l.MicroBatch, ActBytes: 2}}
	switch l.Precision {
	case parallel.FP16:
		c.dtype, c.mmType = workloads.FP16, workloads.FP16
	case parallel.FP8:
		c.mmType = workloads.FP8
	}
	return c
}

// opTimes are an op's forward and backward times (opTime).
func (c *coster) opTimes(op zoo.LLMOp) (fwd, bwd float64, err error) {
	if fwd, err = c.opTime(op, false); err != nil {
		return 0, 0, err
	}
	bwd, err = c.opTime(op, true)
	return fwd, bwd, err
}

// opTime is an op's time by the device kind's cost model.
func (c *coster) opTime(op zoo.LLMOp, backward bool) (float64, error) {
	w := workloads.Op{Name: op.Name, Type: op.Type, FLOPs: op.FwdFLOPs, BytesAccessed: op.FwdBytes, Precision: c.dtype}
	if backward {
		w.Type, w.FLOPs, w.BytesAccessed = op.Type+"-grad", op.BwdFLOPs, op.BwdBytes
	}
	if op.Type == "matmul" {
		w.Precision = c.mmType
	}
	var t float64
	var err error
	if op.Groups > 0 {
		// an MoE layer's local experts: one GEMM per expert, each paying
		// its last wave and its launch (devices.GroupedGEMMTime)
		t, _, err = devices.GroupedGEMMTime(&w, c.kind, devices.GroupedGEMM{Groups: op.Groups, M: op.GroupM, N: op.GroupN, K: op.GroupK}, backward)
	} else {
		t, err = devices.OpTime(&w, c.kind)
	}
	if err != nil {
		return 0, fmt.Errorf("op %s: %w", op.Name, err)
	}
	if isFlash(op) {
		t /= flashHeadDimFactor(headDim(&c.j.Model), backward)
	}
	// a run of small eager kernels takes at least their host issue time
	n := op.Launches
	if backward {
		n = op.BwdLaunches
	}
	t = max(t, float64(n)*hostIssue)
	if op.Expert {
		t *= c.j.Model.Imbalance
	}
	return t, nil
}

func (c *coster) coll(groups [][]int, k Coll, bytes float64) (float64, error) {
	return c.memo.time(groups, k, bytes)
}

// partCost is a part's forward and backward on this rank (the backward
// without recomputation) and its recomputation under selective (the
// attention core) and full (the whole forward) recomputation.
type partCost struct {
	fwd, bwd, recSel segment
	// recMod is the forward of the ops of the job's recompute modules
	// (none under full recomputation: Job.recomputesModule)
	recMod segment
}

// part prices one part: its ops, the tensor-parallel collectives around
// its blocks (Megatron: an all-reduce after the row-parallel layer forward
// and one of the input gradient backward, or with sequence parallelism an
// all-gather before and a reduce-scatter after, swapped in the backward;
// Korthikanti et al. 2022 section 4.2.2), the context-parallel ring inside
// attention and the expert all-to-alls around the experts.
func (c *coster) part(p zoo.Part) (partCost, error) {
	var pc partCost
	j, l := c.j, c.j.Layout
	m := &j.Model
	ops := m.Ops(p, c.sh)
	T := float64(l.MicroBatch) * float64(m.Seq) / float64(l.CP)
	actBytes := 2 * T * float64(m.Hidden) // the block's [T, h] activation
	for _, op := range ops {
		f, b, err := c.opTimes(op)
		if err != nil {
			return pc, err
		}
		isCore := op.Name == "flash-attention" || op.Name == "scores" || op.Name == "softmax" || op.Name == "attention-dropout" || op.Name == "context"
		fs := segment{compute: f, flops: op.FwdFLOPs}
		bs := segment{compute: b, flops: op.BwdFLOPs}
		if isCore && l.CP > 1 {
			// ring attention (context parallelism): cp steps, each
			// computing a 1/cp block of the scores while the next K/V
			// block (forward) or K/V and their gradients (backward)
			// travel to the next rank of the ring
			kv := 2 * 2 * T * float64(m.KVHeads*headDim(m)) / float64(l.TP)
			step, err := c.coll(j.cpPairs(c.r), SendRecv, kv) // one neighbour exchange
			if err != nil {
				return pc, err
			}
			cp := float64(l.CP)
			fs.exposed[CommCP] = (cp - 1) * max(0, step-f/cp)
			bs.exposed[CommCP] = (cp - 1) * max(0, 2*step-b/cp)
		}
		pc.fwd.add(fs, 1)
		pc.bwd.add(bs, 1)
		if isCore {
			pc.recSel.add(fs, 1)
		}
		if j.recomputesModule(op) {
			pc.recMod.add(segment{compute: f, flops: op.FwdFLOPs}, 1)
		}
	}
	if l.TP > 1 {
		tg := j.tpPeers(c.r)
		var per, ag, rs, ar float64
		first := AllReduce
		if l.SequenceParallel {
			var err error
			if ag, err = c.coll(tg, AllGather, actBytes); err != nil {
				return pc, err
			}
			if rs, err = c.coll(tg, ReduceScatter, actBytes); err != nil {
				return pc, err
			}
			per, first = ag+rs, AllGather
		} else {
			var err error
			if ar, err = c.coll(tg, AllReduce, actBytes); err != nil {
				return pc, err
			}
			per = ar
		}
		gm, err := c.tpGEMMTimes(ops)
		if err != nil {
			return pc, err
		}
		switch {
		case isDenseTPPart(m, p, gm):
			// tp.go: what Megatron-LM hides behind the GEMMs
			ch, err := collChannels(j.Cluster, tg[0], first, actBytes)
			if err != nil {
				return pc, err
			}
			f, b := tpComm(l.SequenceParallel, l.TPOverlap, p == zoo.PartAttention, l.TP, gm, ag, rs, ar, ch, c.kind)
			pc.fwd.exposed[CommTP] += f
			pc.bwd.exposed[CommTP] += b
		case p == zoo.PartMLP:
			// an MoE layer: its collectives block the compute stream
			pc.fwd.exposed[CommTP] += per
			pc.bwd.exposed[CommTP] += per
		case p == zoo.PartEmbedding:
			pc.fwd.exposed[CommTP] += per / 2 // all-reduce or reduce-scatter of the vocabulary-parallel lookup
			if !l.SequenceParallel {
				pc.fwd.exposed[CommTP] += per / 2
			}
		case p == zoo.PartHead:
			pc.fwd.exposed[CommTP] += per / 2
			pc.bwd.exposed[CommTP] += per / 2
		}
	}
	if p == zoo.PartMLP && m.MoE() && l.EP > 1 {
		// dispatch and combine: each GPU sends its T·top_k/TP routed
		// tokens (the busiest rank Imbalance times as many)
		bytes := 2 * T * float64(m.TopK) * float64(m.Hidden) / float64(l.TP) * m.Imbalance
		a2a, err := c.coll(j.epPeers(c.r), AllToAll, bytes)
		if err != nil {
			return pc, err
		}
		pc.fwd.exposed[CommEP] += 2 * a2a
		pc.bwd.exposed[CommEP] += 2 * a2a
		meta, err := c.dispatchMetadata()
		if err != nil {
			return pc, err
		}
		pc.fwd.exposed[CommEP] += meta.fwd
		pc.bwd.exposed[CommEP] += meta.bwd
	}
	return pc, nil
}

func headDim(m *zoo.LLM) int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	return m.Hidden / m.Heads
}

// chunkCost is one virtual stage's forward and backward of one
// micro-batch on its rank's representative.
type chunkCost struct {
	layers      int
	first, last bool
	fwd, bwd    segment
}

// chunk prices virtual stage vs of the job holding `layers` layers.
func (c *coster) chunk(layers int, first, last bool, layer [2]partCost, emb, head partCost) chunkCost {
	cc := chunkCost{layers: layers, first: first, last: last}
	rec := c.j.Layout.Recompute
	for _, p := range layer {
		cc.fwd.add(p.fwd, float64(layers))
		cc.bwd.add(p.bwd, float64(layers))
		switch rec {
		case parallel.RecomputeFull:
			cc.bwd.add(p.fwd, float64(layers))
		case parallel.RecomputeSelective:
			cc.bwd.add(p.recSel, float64(layers))
		}
		cc.bwd.add(p.recMod, float64(layers))
	}
	if first {
		cc.fwd.add(emb.fwd, 1)
		cc.bwd.add(emb.bwd, 1)
	}
	if last {
		cc.fwd.add(head.fwd, 1)
		cc.bwd.add(head.bwd, 1)
	}
	return cc
}

// dispatchMeta is what the all-to-all token dispatcher adds around its
// token exchanges per MoE layer and micro-batch, forward and backward.
type dispatchMeta struct{ fwd, bwd float64 }

// dispatchMetadata prices the exchanges of Megatron-core's all-to-all
// token dispatcher besides the tokens themselves
// (MoEAlltoAllTokenDispatcher, NVIDIA/Megatron-LM@87eb3c2b
// megatron/core/transformer/moe/token_dispatcher.py, without CUDA graphs
// and without token dropping):
//   - preprocess: every rank's count of tokens per expert is all-gathered
//     over the expert-parallel group (gather_from_sequence_parallel_region
//     of an int64 [experts] tensor: tp x ep x experts x 8 bytes gathered);
//   - the counts (input_splits, output_splits) go to the host, which
//     waits for them before it can issue the variable-size all-to-all
//     (cuda_sync_point "before_ep_alltoall": d2h_event.synchronize()), so
//     the GPU runs dry and waits for the host to issue the device-to-host
//     copy's completion and then the all-to-all: two host issues
//     (hostIssue) on the critical path;
//   - the router probabilities travel with the tokens in an all-to-all of
//     their own (FP32, one per token-expert pair), forward and, as they
//     take gradients, backward.
func (c *coster) dispatchMetadata() (dispatchMeta, error) {
	j, l, m := c.j, c.j.Layout, &c.j.Model
	ep := j.epPeers(c.r)
	counts, err := c.coll(ep, AllGather, 8*float64(m.Experts*l.TP*l.EP))
	if err != nil {
		return dispatchMeta{}, err
	}
	T := float64(l.MicroBatch) * float64(m.Seq) / float64(l.CP)
	probs, err := c.coll(ep, AllToAll, 4*T*float64(m.TopK)/float64(l.TP)*m.Imbalance)
	if err != nil {
		return dispatchMeta{}, err
	}
	return dispatchMeta{fwd: counts + 2*hostIssue + probs, bwd: probs}, nil
}

// DispatchMetadataOf is the time the all-to-all token dispatcher's
// metadata (dispatchMetadata) adds to one MoE layer's forward and
// backward of one micro-batch on pipeline rank 0's representative: 0
// without experts or expert parallelism.
func DispatchMetadataOf(j *Job) (float64, error) {
	if !j.Model.MoE() || j.Layout.EP <= 1 {
		return 0, nil
	}
	if err := j.checkExceptStages(); err != nil {
		return 0, err
	}
	m, err := newCoster(j, 0, newCollMemo(j.Cluster)).dispatchMetadata()
	return m.fwd + m.bwd, err
}
