// Package engine is placesim's discrete-event simulator. Its event core is a
// time-ordered binary heap (ties broken by a sequence number, so runs are
// deterministic). The executor plays a Plan on a devices.Cluster:
// one compute stream per device, every cross-device tensor a send/recv
// transfer whose route's directed links are FCFS queues, a memory ledger per
// device with peak and out-of-memory verdicts. It returns a Result with step
// time, utilisation, memory and, on request, a full trace. The engine never
// imports placers: placers that need feedback call Simulate themselves.
//
// # Pipelines and data parallelism
//
// A Plan may carry a Pipeline: the step's batch is cut into m micro-batches
// that flow through stages under a schedule (GPipe, 1F1B, PipeDream). A
// placer that splits a model into parts, one per device (the Tarnawski
// placers), emits a pipelined plan by setting Device as usual and adding
// the schedule; the stages follow from the devices in topological order:
//
//	plan := &engine.Plan{Device: dev,
//		Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 32}}
//
// A non-contiguous part becomes several stages on its device (the virtual
// devices of Tarnawski et al. §5.2), whose schedules the device merges;
// Pipeline.Stages fixes the stages explicitly, and EvenStages and
// FollowStages build them from layers. Order and Priority must be nil: the
// schedule gives each device its strict order, item by item (the forward
// ops of a micro-batch, its backward ops, its recomputation, the update).
//
// The executor does not copy the graph m times: unroll.go derives, in one
// place for every regime, the nodes (instance records: an op for one
// micro-batch and replica, a recomputed op, an all-reduce step, a weight
// stash) whose index is arithmetic on the three; a plain step is the
// identity unrolling (node = op). One event loop, link queues (transfer
// records) and memory ledger (buffers with their readers) play them all.
// A node's record holds its costs, its output buffer and where its
// successors and transfers are, in 48 bytes (four records to three cache
// lines); where its inputs are is in two compact arrays. The large arrays
// of a simulation are lent by a pool (arena.go) and reused by the next
// one, since placers and sweeps simulate the same graph many times, and
// the run reads them ahead of the nodes it starts (sim.warm). Per
// micro-batch, a forward or backward op's time
// (measured, or the roofline on its FLOPs and bytes), its output, workspace
// and edge bytes are divided by m, the launch overhead is not, parameters
// are not; update ops run once per step after the stage's last backward
// (gradient accumulation), or after every backward with PipeDream. Memory
// follows the schedule: an activation lives until the backward that reads
// it, so GPipe holds m micro-batches' activations and 1F1B p-s on stage s;
// PipeDream's stashed weight versions (up to p-s on stage s) and the
// recomputation's buffers are allocated as they arise.
//
// A Plan may also carry DataParallel: the plan is replicated on n device
// groups, each with 1/n of the batch, and every stage's gradients (of the
// trainable parameters only: the update ops' GradBytes, see gradients) are
// summed among its replicas by an all-reduce chosen as NCCL chooses: a
// ring ordered over the fastest links (reduce-scatter then all-gather,
// 2(n-1) steps of S/n bytes), and across nodes also a tree or the
// hierarchical algorithm (intra-node reduce-scatter, inter-node all-reduce,
// intra-node all-gather), whichever the link model says is fastest for the
// message size; optionally bucketed and overlapped with the backward pass.
// Its steps are side nodes, off the compute streams, whose chunks are
// transfers on the real link queues, so collectives that share a link
// queue up. Their dependencies on the backward ops are control edges, so
// the memory ledger frees each backward output as soon as its readers are
// done. With a Pipeline too, each replica is a whole pipeline (hybrid
// parallelism). Result.DataParallel reports each all-reduce's algorithm and
// nccl-tests' algorithm and bus bandwidths.
//
// Result.Pipeline has the period per micro-batch in the steady state, the
// bubble fraction, and per-stage utilisation, peak memory and weight
// versions; Result.DataParallel times each all-reduce; Result.Instances
// times every node.
package engine
