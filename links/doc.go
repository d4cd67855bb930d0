// Package links models the interconnect of a machine or cluster: link kinds
// with vendor bandwidth and latency figures (PCIe, NVLink, InfiniBand,
// Ethernet), a topology of endpoints (GPUs, CPU sockets, switches, NICs)
// joined by directed links, shortest-path routing (one search, Fabric,
// laid out once per topology and asked for each source's tree), and the
// per-hop transfer time t = latency + bytes/bandwidth. It knows nothing of
// operators or placers; the engine turns routes into FCFS queues.
package links
