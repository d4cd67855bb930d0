package graphalg

import (
	"placesim/devices"
	"placesim/workloads"
)

// NewBookWith returns an empty book for g on cluster c whose op memory is
// given (mem[op], bytes) rather than OpMemory of estimates: for a placer
// with its own memory model, or one that schedules a graph it rewrote
// (which the request's estimates do not cover). mem must have one entry
// per op of g; t must be NewTargets(g, c).
func NewBookWith(g *workloads.Graph, c *devices.Cluster, t *Targets, mem []int64) *Book {
	b := &Book{t: t, g: g, c: c, Mem: append([]int64(nil), mem...),
		unitMem: make([]int64, len(t.Units)), anchor: make([]int, len(t.Units)),
		Free: make([]int64, len(c.Devices)), Used: make([]int64, len(c.Devices))}
	for i, m := range b.Mem {
		b.unitMem[t.UnitOf[i]] += m
	}
	for u := range b.anchor {
		b.anchor[u] = -1
	}
	for d, dev := range c.Devices {
		b.Free[d] = dev.Memory
	}
	return b
}
