// Package study runs placers on workloads and clusters through the engine:
// it resolves workload and cluster specs, times placement, simulates the
// plan and gathers one Record (runresult.Record) per run; Compare does it for many placers.
package study
