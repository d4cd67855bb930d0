// Package chakra reads and writes execution traces, the workloads that the
// simulators of distributed training exchange: MLCommons Chakra execution
// traces (a length-delimited protobuf stream of one GlobalMetadata and
// Node messages per rank, schema et_def.proto, generated Go types in
// etdef), one file or a set trace.%d.et, and PyTorch execution traces
// (the JSON the execution-trace observer writes, optionally joined with a
// Kineto trace for kernel times). Both are read into one Trace and built
// into a workloads.Graph whose measured durations become measured op
// times; what the reader cannot use is a warning (an error under
// strict=true) and counted in a Summary. Write exports a placed,
// simulated step as per-rank Chakra ETs.
package chakra
