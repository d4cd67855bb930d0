// Package llm simulates one training iteration of a decoder-only
// transformer (workloads/zoo's LLM) under a parallel layout (package
// parallel) on a cluster: by symmetry, one representative GPU per pipeline
// rank (the ranks of a tensor- and context-parallel group and the
// data-parallel replicas do the same work under balanced load), played
// event by event: forward and backward chunks per micro-batch and virtual
// stage in the schedule's order (GPipe, 1F1B, Megatron-LM's interleaved
// 1F1B) on a compute stream; tensor-, context- and expert-parallel
// collectives as operations of a chunk on the group's devices;
// pipeline sends over the real route between consecutive ranks'
// representatives (FCFS per link); data-parallel gradient reduction
// (all-reduce, or reduce-scatter and all-gather with a sharded optimizer,
// per-layer gathers with ZeRO-3/FSDP) bucketed on a data-parallel stream
// overlapped with the backward. It reports iteration time, tokens/s/GPU,
// model TFLOP/s/GPU, MFU and HFU, the bubble, exposed communication per
// kind and the per-GPU memory breakdown with an out-of-memory verdict.
//
// Job.Mode chooses how the GPUs are played: ModeReduced by symmetry
// (Result.Classes names the GPUs each representative stands for; a
// representative's collectives and sends are timed with every peer's at
// once, and the slowest peer sets the pace), ModeFull every tensor- and
// context-parallel group on its own devices, its collectives with its
// own groups, its sends over its own routes (FCFS on every link they
// cross), data-parallel collectives starting when every group has
// arrived; ModeAuto plays by symmetry unless a straggler (Job.Slowdown),
// a slow link, another GPU kind or a placement that crosses NVLink
// domains otherwise than the representative's breaks it, and then plays
// "mixed": the groups holding those GPUs and their pipeline partners
// individually, the others by representatives, and names them
// (Result.Individual, Result.Asymmetry, Result.Played). Reduced and full
// agree within 0.5 % where symmetry holds (TestReducedMatchesFull), mixed
// and full where it does not (TestMixedMatchesFull). Pipeline sends and
// data-parallel collectives share the links they both cross; tensor-
// parallel communication is overlapped with the GEMMs as Megatron-LM
// (and, with Layout.TPOverlap, Transformer Engine's userbuffers) do it
// (tp.go).
package llm
