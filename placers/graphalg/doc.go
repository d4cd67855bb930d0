// Package graphalg holds the graph algorithms the list-scheduling placers
// share: a compact DAG view of a workload (unique dependencies with their
// bytes), node and edge weights from Estimates, t-level, b-level and the
// critical path, topological orders (Kahn's breadth-first order of m-TOPO,
// DFS-TOPO and CPD-TOPO of Celeritas), a device-availability timeline with
// insertion slots, a list-scheduling state (earliest start times with
// communication), an ETF selection loop, colocation bookkeeping, Celeritas'
// optimal operation fusion and the coarse graph it induces.
//
// Every function is deterministic: ties break by op ID or by position in a
// topological order. Times are seconds, sizes bytes.
package graphalg
