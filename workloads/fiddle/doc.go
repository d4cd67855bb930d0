// Package fiddle reads the workload files of Tarnawski et al. (NeurIPS'20,
// the msr-fiddle/dnn-partitioning artifact): a DAG of layers or operators
// with measured accelerator and CPU times per sample, accelerator memory per
// node, colocation classes, forward/backward roles and per-node
// communication costs, plus the machine it is to be split on (k
// accelerators, l CPUs, accelerator memory). Parse turns such a file into a
// workloads.Graph whose costs the engine and the placers read as they are.
package fiddle
