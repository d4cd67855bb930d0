// Package fastt implements the placers of FastT (Yi et al., "Fast Training
// of Deep Learning Models over Multiple GPUs", Middleware 2020): the cost
// models of section 4 (compute times per device, a linear-regression
// communication model per device pair), DPOS (Algorithm 1: upward-rank list
// scheduling with the critical path on its own device and the other ops at
// their earliest finish time with insertion), OS-DPOS (Algorithm 2: split
// critical-path ops along the batch or channel dimension while the
// estimated step time drops), order enforcement (section 6.1: the schedule's
// order as priorities), and data parallelism, both as FastT's start
// strategy (section 5.2: the replicated graph DPOS starts from) and as the
// baseline placer "data-parallel" (the engine's ring all-reduce).
package fastt
