// Package tarnawski implements the device-placement algorithms of
// Tarnawski et al., "Efficient Algorithms for Device Placement of DNN Graph
// Operators" (NeurIPS 2020): the max-load dynamic program over ideals for
// contiguous splits (section 5.1.1) with the training preprocessing of
// Appendix E, its linearisation heuristic DPL (section 5.1.2), the
// throughput IP for contiguous and non-contiguous splits (section 5.2,
// Appendix C) and the latency IP (section 4, Appendix A) solved with CBC,
// and the paper's baselines that share its cost model: PipeDream's
// optimizer on a linearised graph and the greedy split of Appendix F.
// Splits are scored by placers/maxload and returned as plans
// with one pipeline stage per part.
//
// The exact DP knows its limits: it stops enumerating at DefaultMaxIdeals
// ideals (its walk grows with the square of the ideals, section 5.1.1),
// within seconds, and tarnawski-dp then returns DPL's split with a
// fallback that names the limit; the IPs start from DPL's split then.
package tarnawski
