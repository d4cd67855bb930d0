package workloads

// MaxDevices bounds the devices of one machine anywhere a data file or a
// flag can choose their number: a workload's ClusterHint (accelerators +
// CPUs), a cluster file's devices, a generated cluster. 65,536 (2^16) is
// four times the largest machine the project models (16,384 GPUs) and
// the largest msr-fiddle's maxFPGAs allows; every per-device-pair table
// beyond this bound is also counted against the simulation's memory limit
// (devices.CheckPairTables) before it is made.
const MaxDevices = 1 << 16
