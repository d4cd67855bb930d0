package llm

import (
	"math"

	"placesim/collectives"
	"placesim/devices"
	"placesim/workloads/zoo"
)

// tpGEMMs are the forward and backward times of a layer part's two
// tensor-parallel GEMMs on one GPU: the column-parallel one (QKV, FC1)
// whose input the sequence-parallel all-gather provides and the
// row-parallel one (the output projection, FC2) whose output the
// reduce-scatter (or all-reduce) sums. A backward is half data gradient
// (dgrad) and half weight gradient (wgrad): the same FLOPs each. The
// split times are the same GEMMs run in chunks as userbuffers runs them
// (colFSplit: tp chunks of the forward, rowFSplit: ubSplits chunks,
// rowDSplit: tp chunks of the dgrad), each chunk a kernel of its own.
type tpGEMMs struct {
	colF, colB, rowF, rowB          float64
	colFSplit, rowFSplit, rowDSplit float64
	col, row                        bool
}

// tpGEMMTimes finds the part's TP GEMMs among ops (the names of
// zoo.LLM.Ops) and prices them whole and split.
func (c *coster) tpGEMMTimes(ops []zoo.LLMOp) (tpGEMMs, error) {
	var g tpGEMMs
	tp := c.j.Layout.TP
	split := func(op zoo.LLMOp, n int, backward bool) (float64, error) {
		o := op
		o.FwdFLOPs, o.BwdFLOPs = op.FwdFLOPs/float64(n), op.BwdFLOPs/float64(n)
		o.FwdBytes, o.BwdBytes = op.FwdBytes/int64(n), op.BwdBytes/int64(n)
		if backward {
			// the dgrad alone: half the backward
			o.BwdFLOPs, o.BwdBytes = o.BwdFLOPs/2, o.BwdBytes/2
		}
		t, err := c.opTime(o, backward)
		return t * float64(n), err
	}
	for _, op := range ops {
		var err error
		switch op.Name {
		case "qkv", "fc1", "fc13":
			if g.colF, g.colB, err = c.opTimes(op); err == nil {
				g.colFSplit, err = split(op, tp, false)
			}
			g.col = true
		case "out-proj", "fc2":
			if g.rowF, g.rowB, err = c.opTimes(op); err == nil {
				if g.rowFSplit, err = split(op, ubSplits, false); err == nil {
					g.rowDSplit, err = split(op, tp, true)
				}
			}
			g.row = true
		}
		if err != nil {
			return g, err
		}
	}
	return g, nil
}

// Transformer Engine userbuffers settings of the published Llama 3 70B
// runs (NVIDIA/NeMo nemo/collections/llm/recipes/tp_overlap_configs/
// userbuffers.py, userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192, which
// NVIDIA/dgxc-benchmarking@741c886 llama3.1/pretrain_llama31.py passes to
// MegatronCommOverlapCallback for the 70B and, with its h16384 sibling,
// the 405B): the forward QKV and FC1 all-gathers and the backward
// all-gathers of the output gradient before the projection's and FC2's
// dgrad are ring exchanges (copy-engine peer-to-peer, one step per
// TP rank, each GEMM chunk computed while the next shard travels); the
// forward reduce-scatters after the projection and FC2 are pipelined in
// 4 splits on 24 and 16 SMs with the GEMM kept off them
// (set_sm_margin); the backward all-gather of the QKV and FC1 input
// runs in bulk beside the dgrad GEMM on 4 and 2 SMs and the
// reduce-scatter of their input gradient beside the wgrad GEMM on 24
// and 4 SMs.
const (
	ubSplits    = 4
	ubProjRSSMs = 24
	ubFC2RSSMs  = 16
	ubQKVAGSMs  = 4
	ubFC1AGSMs  = 2
	ubQKVWRSSMs = 24
	ubFC1WRSSMs = 4
)

// beside is the exposed time of communication c run beside a GEMM of w
// seconds that loses s of the device's S SMs to it while both run (an
// NCCL kernel holds one SM per channel; a userbuffers kernel its
// num_sm): the GEMM runs at (S-s)/S while c lasts, so the pair ends
// max(c, w + c·s/S) after they start, which is max(c-w, c·s/S) beyond the
// GEMM alone. S = 0 (a kind whose SM count is not known) counts no
// contention. The rule is collectives' (SMShare, Stolen), which the
// classic engine's data-parallel all-reduce charges too.
func beside(c, w float64, s, S int) float64 {
	return math.Max(c-w, collectives.Stolen(c, collectives.SMShare(s, S)))
}

// ringExchange is the exposed time, beyond a whole GEMM of w seconds,
// of an all-gather of c seconds split into tp-1 peer-to-peer steps ahead
// of that GEMM run in tp chunks of ws seconds in all: chunk i runs while
// shard i+1 travels, the last with nothing left to receive.
func ringExchange(c, w, ws float64, tp int) float64 {
	if tp < 2 {
		return 0
	}
	n := float64(tp)
	total := (n-1)*math.Max(ws/n, c/(n-1)) + ws/n
	return total - w
}

// pipelinedRS is the exposed time, beyond a whole GEMM of w seconds, of
// a reduce-scatter of c seconds after that GEMM, both in `splits` chunks
// (ws seconds of GEMM in all), the GEMM on S-s SMs (set_sm_margin) while
// chunk k's reduce-scatter follows GEMM chunk k on s SMs: the last
// chunk's reduce-scatter is never hidden.
func pipelinedRS(c, w, ws float64, splits, s, S int) float64 {
	wm := ws
	if S > 0 && s > 0 && s < S {
		wm = ws * float64(S) / float64(S-s)
	}
	n := float64(splits)
	total := math.Max(wm+c/n, wm/n+c)
	return total - w
}

// tpComm is a layer part's exposed tensor-parallel communication per
// micro-batch, forward and backward, given its GEMMs' times (g) and its
// collectives' (ag, rs: the sequence-parallel all-gather and
// reduce-scatter of the [T, h] activation; ar: the all-reduce without
// sequence parallelism), as Megatron-LM's tensor-parallel layers run them
// (megatron/core/tensor_parallel/layers.py at NVIDIA/Megatron-LM@d98e8a6,
// LinearWithGradAccumulationAndAsyncCommunication):
//   - forward, without userbuffers: the all-gather before the
//     column-parallel GEMM and the reduce-scatter (all-reduce) after the
//     row-parallel one block the compute stream;
//   - backward, without userbuffers: the row-parallel layer all-gathers
//     its output gradient before its GEMMs (blocking); the column-parallel
//     layer's all-gather of its input for the weight gradient is issued
//     asynchronously before its dgrad GEMM, and the reduce-scatter
//     (all-reduce without sequence parallelism) of the input gradient
//     before its wgrad GEMM ("we rely on CUDA_DEVICE_MAX_CONNECTIONS=1 to
//     ensure that the gather is scheduled before the input gradient
//     computation"): each hidden behind that GEMM, which loses the NCCL
//     kernel's SMs (ch, one per channel) while they share the GPU;
//   - with userbuffers (TPOverlap) every one of them overlaps its GEMM as
//     the constants above say.
//
// Korthikanti et al. 2022 (section 4.2.2) count the same volumes: per
// layer an all-gather and a reduce-scatter per part forward, and in the
// backward the all-gather again (the sequence-parallel input is not
// kept whole) beside the reduce-scatter.
func tpComm(sp, ub, attn bool, tp int, g tpGEMMs, ag, rs, ar float64, ch int, k *devices.Kind) (fwd, bwd float64) {
	S, _ := devices.StreamingMultiprocessors(k)
	colD, colW, rowD := g.colB/2, g.colB/2, g.rowB/2
	switch {
	case !sp:
		// all-reduce after the row-parallel forward; in the backward the
		// column-parallel dgrad's all-reduce beside its wgrad
		return ar, beside(ar, colW, ch, S)
	case !ub:
		return ag + rs, ag + beside(ag, colD, ch, S) + beside(rs, colW, ch, S)
	}
	// userbuffers: the SM counts of QKV/projection or FC1/FC2
	rsSMs, agSMs, wrsSMs := ubFC2RSSMs, ubFC1AGSMs, ubFC1WRSSMs
	if attn {
		rsSMs, agSMs, wrsSMs = ubProjRSSMs, ubQKVAGSMs, ubQKVWRSSMs
	}
	fwd = ringExchange(ag, g.colF, g.colFSplit, tp) + pipelinedRS(rs, g.rowF, g.rowFSplit, ubSplits, rsSMs, S)
	bwd = ringExchange(ag, rowD, g.rowDSplit, tp) + beside(ag, colD, agSMs, S) + beside(rs, colW, wrsSMs, S)
	return fwd, bwd
}

// isDenseTPPart reports whether part p of m has the two tensor-parallel
// GEMMs tpComm models (attention; a dense MLP).
func isDenseTPPart(m *zoo.LLM, p zoo.Part, g tpGEMMs) bool {
	return (p == zoo.PartAttention || p == zoo.PartMLP && !m.MoE()) && g.col && g.row
}
