// Package fastt implements the placers of FastT (Yi et al., "Fast Training
// of Deep Learning Models over Multiple GPUs", Middleware 2020): the cost
// models of section 4 (compute times per device, a linear-regression
// communication model per device pair), DPOS (Algorithm 1: upward-rank list
// scheduling with the critical path on its own device and the other ops at
// their earliest finish time with insertion), OS-DPOS (Algorithm 2: split
// critical-path ops along the batch or channel dimension while the
// estimated step time drops), order enforcement (section 6.1: the schedule's
// order as priorities), and data parallelism, both as FastT's start
// strategy (section 5.2: the replicated graph DPOS starts from) and as two
// baseline placers: "data-parallel" (today's: the engine's ring
// all-reduce overlapped with the backward pass) and "data-parallel-tf1"
// (the paper's, section 6.2: TensorFlow slim's in-graph replicas with the
// variables, gradient sums and updates on a parameter device). FastT's
// option dp chooses which of the two its activation rule compares with
// and may keep. DPOS books each transfer on the links of its route and
// sends a tensor to a device once (linkBook), so that its estimate of a
// plan is the time the engine plays it in, within a few per cent on the
// Table 1 models on 2 and 4 GPUs.
package fastt
