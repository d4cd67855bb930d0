// Package mip is the mixed-integer programming back end of the placers:
// build a model (continuous, integer and binary variables with bounds,
// linear constraints, a linear objective), write it as CPLEX LP or free
// MPS, solve it with COIN-OR CBC (the cbc binary of Debian's coinor-cbc)
// under a time limit and a relative gap, optionally warm-started from a
// given solution, and read back the solution, the solver's status, bound
// and log. The Tarnawski et al. IPs and the Pesto ILP are built on it.
package mip
