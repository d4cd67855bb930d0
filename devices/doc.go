// Package devices models compute devices and clusters: device kinds (V100,
// A100, H100, RTX 2080 Ti, a CPU socket) with peak FLOP/s, memory bandwidth
// and capacity; the compute-time model of an op on a device (measured time
// when the workload has one, otherwise a roofline plus launch overhead);
// Cluster = devices + links.Topology with precomputed routes; named presets
// and a YAML/JSON cluster file format; and the Estimates placers see.
package devices
