// Package workloads holds the dataflow graph of a training or inference
// step: Ops (FLOPs, bytes moved, output, parameter and workspace bytes,
// optional measured times, colocation group, role) joined by Edges that
// carry tensors. It validates graphs (cycles, dangling edges, duplicate
// names, negative sizes or times) and provides tiny built-in graphs for
// tests. The model zoo, training derivation and importers build on it.
package workloads
