// Package celeritas holds the placers of Celeritas (Xu, Xie, Liao and
// Zhou, "Celeritas: Fast Optimizer for Large Dataflow Graphs"): Order-Place
// (the coarse graph's ops in CPD-TOPO order, each device filled to its
// memory in turn) and Celeritas itself (operation fusion, then Adjusting
// Placement, Algorithm 2). The shared parts live in placers/graphalg:
// t-level and b-level (eq. 2-3), DFS-TOPO and CPD-TOPO (Algorithm 1),
// optimal operation fusion (eq. 4-6, loop-free by Theorem 1) and the
// coarse graph; Standard Evaluation, the estimates Celeritas places with,
// is devices.StandardEvaluation.
package celeritas
