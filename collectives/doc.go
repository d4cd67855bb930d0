// Package collectives estimates the time of a collective operation
// (all-reduce, all-gather, reduce-scatter, all-to-all, broadcast,
// send/recv) over a group of a cluster's devices as NCCL runs it: NCCL's
// tuning model (src/graph/tuning.cc of NVIDIA/nccl) chooses the algorithm
// (ring, tree, NVLS, NVLS-tree, PAT) and protocol (LL, LL128, Simple) of
// least predicted time for the size, the group and the topology, with the
// channels and per-channel bandwidth that NCCL's topology search
// (src/graph/search.cc) finds. Bandwidths are reported as nccl-tests
// reports them (algbw, busbw; nccl-tests doc/PERFORMANCE.md).
//
// It reads the cluster through devices.Cluster.Comm (nodes, scale-up and
// network bandwidth, leaf switches) and knows nothing of workloads or the
// engine.
package collectives
