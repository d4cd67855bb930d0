// Package baechi holds the memory-aware placers of Baechi (Jeon et al.,
// SoCC 2020), as Celeritas (section 6.2.2) and Pesto (section 5.2)
// describe and compare them: m-TOPO (topological order, devices filled in
// turn up to a memory share), m-ETF (earliest-task-first list scheduling
// with communication, a device whose memory would overflow not a
// candidate) and m-SCT (m-ETF with favourite children from the linear
// programming relaxation of small communication time scheduling, Hanen and
// Munier 1995). Colocation follows Baechi's rule: a unit goes where its
// first placed op goes, and its whole memory is charged then
// (graphalg.Book). Each placer takes the option coarsen=true to place the
// coarse graph of Celeritas' operation fusion instead.
package baechi
