// Package maxload is the cost model of Tarnawski et al. (NeurIPS'20,
// section 3): a graph split over k accelerators and l CPUs, where an
// accelerator's load is the communication cost of every node whose output
// enters its part from outside, plus the compute of its part, plus the
// communication cost of every node of its part whose output leaves it; a
// CPU's load is its compute; the max-load is the time per sample of the
// pipelined execution (section 5.1); an accelerator's memory bounds the
// sizes placed on it. The DP, the IPs and the baselines of the paper
// (local search, PipeDream, greedy) all score splits with it. It is a
// leaf below the families: baseline, tarnawski and study import it, and it
// imports no family.
package maxload
