package llm

import (
	"fmt"

	"placesim/parallel"
	"placesim/workloads/zoo"
)

// Memory is the per-GPU memory of one pipeline rank's representative.
type Memory struct {
	// Rank is the pipeline rank; Device the representative's name;
	// Stands the number of GPUs with the same memory (TP·CP·DP).
	Rank   int    `json:"rank"`
	Device string `json:"device"`
	Stands int    `json:"stands"`
	// Params is the parameters held (dense + expert, before sharding).
	Params int64 `json:"params"`
	// Weights, Grads, Optimizer: bytes of the model state after
	// sharding (bf16/fp8: 2 + 4 + 12 bytes per parameter, fp16: 2 + 2 +
	// 16; Megatron-LM docs, "Distributed Optimizer": 18 or 20 bytes per
	// parameter, 6 + 12/d or 4 + 16/d with the distributed optimizer).
	// BF16 gradients are kept and reduced in FP32 as NeMo's recipes set
	// (grad_reduce_in_fp32=True, nemo/collections/llm/recipes/
	// llama31_405b.py).
	Weights   int64 `json:"weights"`
	Grads     int64 `json:"grads"`
	Optimizer int64 `json:"optimizer"`
	// Activations is the largest sum of activations kept for backwards in
	// flight (over the schedule), ActivationsPerMicroBatch one micro-batch
	// through all of the rank's chunks, InFlight the number of chunk
	// forwards held at that point.
	Activations              int64 `json:"activations"`
	ActivationsPerMicroBatch int64 `json:"activationsPerMicroBatch"`
	InFlight                 int   `json:"inFlight"`
	// Workspace is what a backward materialises while it runs
	// (recomputed activations of one layer).
	Workspace int64 `json:"workspace"`
	// Buffers are communication buffers: pipeline send/receive, the
	// sequence-parallel all-gather output, ZeRO-3's gathered layers.
	Buffers int64 `json:"buffers"`
	// Peak is the largest total; Capacity the device's memory.
	Peak     int64 `json:"peak"`
	Capacity int64 `json:"capacity"`
	// PeakAt names the task at the peak.
	PeakAt string `json:"peakAt"`
}

// State is Weights + Grads + Optimizer.
func (m Memory) State() int64 { return m.Weights + m.Grads + m.Optimizer }

// OOM is an out-of-memory verdict.
type OOM struct {
	Rank     int    `json:"rank"`
	Device   string `json:"device"`
	Op       string `json:"op"`
	Bytes    int64  `json:"bytes"`
	Capacity int64  `json:"capacity"`
	Err      error  `json:"-"`
}

// bytesPerParam: weights, gradients, optimizer state (mixed precision,
// FP32 master weights and Adam moments).
func bytesPerParam(p parallel.Precision) (w, g, o int64) {
	if p == parallel.FP16 {
		return 2, 2, 16
	}
	return 2, 4, 12
}

// stateBytes is bytesPerParam for j: its gradients in BF16 when
// j.BF16Grads says so.
func (j *Job) stateBytes() (w, g, o int64) {
	w, g, o = bytesPerParam(j.Layout.Precision)
	if j.BF16Grads {
		g = min(g, 2)
	}
	return w, g, o
}

// optimizerStepBytes is the memory traffic of the optimizer step per
// parameter of the GPU's optimizer state, as Megatron-core's mixed
// precision optimizers run it without the precision-aware optimizer
// (NVIDIA/Megatron-LM@87eb3c2b megatron/core/optimizer/optimizer.py and
// distrib_optimizer.py; Megatron-Bridge's GPT-OSS recipe sets
// use_precision_aware_optimizer False, NeMo's Llama recipes leave it off),
// each step its own multi-tensor kernel:
//   - the main (FP32) gradients: BF16 gradients are copied to FP32
//     (_copy_model_grads_to_main_grads, shard_model_grad.float(): read 2,
//     write 4; an FP32 gradient is used in place); under FP16 the scaled
//     gradients are unscaled and checked for infinities
//     (_amp_foreach_non_finite_check_and_unscale_: read 4, write 4);
//   - the gradient norm for clipping (get_grad_norm_fp32: read 4);
//   - Adam (multi-tensor fused Adam: reads the FP32 weights, both
//     moments and the gradient, writes the first three: 28);
//   - the updated FP32 weights copied to the BF16/FP16 model weights
//     (_copy_main_params_to_model_params: read 4, write 2).
//
// The caller adds the zeroing of the gradient buffer the next iteration
// starts with (param_and_grad_buffer.py reset: grad_data.zero_()), one
// write of the GPU's gradient bytes.
func (j *Job) optimizerStepBytes() float64 {
	_, g, _ := j.stateBytes()
	main := 0.0
	switch {
	case j.Layout.Precision == parallel.FP16:
		main = 8
	case g < 4:
		main = 6
	}
	return main + 4 + 28 + 6
}

// shard divides state by the data-parallel size d as the sharding says.
func shardState(s parallel.Sharding, d int64, w, g, o int64) (int64, int64, int64) {
	switch s {
	case parallel.ShardZeRO1:
		return w, g, ceilDiv(o, d)
	case parallel.ShardZeRO2:
		return w, ceilDiv(g, d), ceilDiv(o, d)
	case parallel.ShardZeRO3:
		return ceilDiv(w, d), ceilDiv(g, d), ceilDiv(o, d)
	}
	return w, g, o
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// rankParams is the dense and expert parameters of pipeline rank r.
func (j *Job) rankParams(stages []int, r int, sh zoo.Shard) (dense, expert int64) {
	l := j.Layout
	m := &j.Model
	ad, _ := m.Params(zoo.PartAttention, sh)
	md, me := m.Params(zoo.PartMLP, sh)
	for c := 0; c < l.VP; c++ {
		vs := c*l.PP + r
		n := int64(stages[vs])
		dense += n * (ad + md)
		expert += n * me
		if vs == 0 {
			d, _ := m.Params(zoo.PartEmbedding, sh)
			dense += d
		}
		if vs == l.PP*l.VP-1 {
			d, _ := m.Params(zoo.PartHead, sh)
			dense += d
		}
	}
	return dense, expert
}

func partSaved(m *zoo.LLM, p zoo.Part, sh zoo.Shard) int64 {
	var n int64
	for _, op := range m.Ops(p, sh) {
		n += op.Saved
	}
	return n
}

// MemoryOf computes the per-GPU memory of every pipeline rank from the
// layout and the schedule's order alone (no timing): the closed form a
// layout search uses to rule layouts out before simulating them.
func MemoryOf(j *Job) ([]Memory, error) {
	stages, err := j.check()
	if err != nil {
		return nil, err
	}
	return j.memory(stages)
}

func (j *Job) memory(stages []int) ([]Memory, error) {
	l := j.Layout
	m := &j.Model
	sh := zoo.Shard{TP: l.TP, CP: l.CP, EP: l.EP, SP: l.SequenceParallel, MicroBatch: l.MicroBatch, ActBytes: 2}
	rec := l.Recompute.String()
	perLayer := m.ActivationBytesPerLayer(sh, rec)
	// the backward of a layer under recomputation materialises the
	// activations it recomputes: the whole layer (full) or its attention
	// core (selective)
	var ws int64
	switch l.Recompute {
	case parallel.RecomputeFull:
		ws = m.ActivationBytesPerLayer(sh, "none")
	case parallel.RecomputeSelective:
		ws = m.ActivationBytesPerLayer(sh, "none") - perLayer
	}
	T := int64(l.MicroBatch) * int64(m.Seq) / int64(l.CP)
	boundary := 2 * T * int64(m.Hidden)
	if l.SequenceParallel {
		boundary /= int64(l.TP)
	}
	wb, gb, ob := j.stateBytes()
	d := int64(l.DP * l.CP)
	de := max(1, d/int64(l.EP))
	out := make([]Memory, l.PP)
	for r := 0; r < l.PP; r++ {
		dense, expert := j.rankParams(stages, r, sh)
		w1, g1, o1 := shardState(l.Sharding, d, dense*wb, dense*gb, dense*ob)
		w2, g2, o2 := shardState(l.Sharding, de, expert*wb, expert*gb, expert*ob)
		dev := j.Cluster.Devices[j.rank(0, 0, 0, r)]
		mem := Memory{Rank: r, Device: dev.Name, Stands: l.TP * l.CP * l.DP, Params: dense + expert,
			Weights: w1 + w2, Grads: g1 + g2, Optimizer: o1 + o2, Capacity: dev.Memory}
		act := make([]int64, l.VP)
		for c := range act {
			vs := c*l.PP + r
			act[c] = int64(stages[vs]) * perLayer
			if vs == 0 {
				act[c] += partSaved(m, zoo.PartEmbedding, sh)
			}
			if vs == l.PP*l.VP-1 {
				act[c] += partSaved(m, zoo.PartHead, sh)
			}
			mem.ActivationsPerMicroBatch += act[c]
		}
		if stages[r] > 0 || l.VP > 1 {
			mem.Workspace = ws
		}
		mem.Buffers = 2 * boundary // a send and a receive buffer
		if l.SequenceParallel {
			mem.Buffers += 2 * T * int64(m.Hidden) // the all-gathered block input
		}
		if l.Sharding == parallel.ShardZeRO3 {
			// the layer running and the one prefetched, gathered in full
			ad, _ := m.Params(zoo.PartAttention, sh)
			md, me := m.Params(zoo.PartMLP, sh)
			mem.Buffers += 2 * wb * (ad + md + me)
		}
		order, err := Order(string(l.Schedule), l.PP, l.VP, l.MicroBatches(), r)
		if err != nil {
			return nil, err
		}
		static := mem.State() + mem.Buffers
		mem.Peak, mem.PeakAt = static, "model state and buffers"
		var cur int64
		held := 0
		for _, t := range order {
			if !t.Backward {
				cur += act[t.Chunk]
				held++
				if tot := static + cur; tot > mem.Peak {
					mem.Peak, mem.PeakAt, mem.Activations, mem.InFlight = tot, fmt.Sprintf("forward %s", t), cur, held
				}
				continue
			}
			if tot := static + cur + mem.Workspace; tot > mem.Peak {
				mem.Peak, mem.PeakAt, mem.Activations, mem.InFlight = tot, fmt.Sprintf("backward %s", t), cur, held
			}
			cur -= act[t.Chunk]
			held--
		}
		out[r] = mem
	}
	return out, nil
}

// oomOf returns the verdict of the first rank over capacity, nil if all
// fit.
func oomOf(mem []Memory) *OOM {
	for _, m := range mem {
		if m.Peak > m.Capacity {
			what := m.PeakAt
			if m.State() > m.Capacity {
				what = "weights, gradients and optimizer state"
			}
			o := &OOM{Rank: m.Rank, Device: m.Device, Op: what, Bytes: m.Peak, Capacity: m.Capacity}
			o.Err = fmt.Errorf("%w on %s (pipeline rank %d, stands for %d GPUs) at %s: %.2f GB needed > %.2f GB (weights %.2f GB, gradients %.2f GB, optimizer state %.2f GB, activations %.2f GB, workspace %.2f GB, buffers %.2f GB)",
				ErrOOM, m.Device, m.Rank, m.Stands, what, gb(m.Peak), gb(m.Capacity), gb(m.Weights), gb(m.Grads), gb(m.Optimizer), gb(m.Activations), gb(m.Workspace), gb(m.Buffers))
			return o
		}
	}
	return nil
}

func gb(b int64) float64 { return float64(b) / 1e9 }
