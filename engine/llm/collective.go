package llm

import (
	"fmt"

	"placesim/devices"
)

// Coll is a collective operation.
type Coll int

// Collectives.
const (
	AllReduce Coll = iota
	AllGather
	ReduceScatter
	AllToAll
)

func (k Coll) String() string {
	return [...]string{"all-reduce", "all-gather", "reduce-scatter", "all-to-all"}[k]
}

// collTime is the time of collective k of `bytes` (the whole tensor: the
// all-reduced buffer, the gathered output, the scattered input, the bytes
// each rank sends in an all-to-all) over the devices of group, as a ring
// in the group's order (the order of Megatron's process groups): each of
// the n-1 (all-gather, reduce-scatter, all-to-all as n-1 pairwise steps)
// or 2(n-1) (all-reduce) steps moves bytes/n over every ring hop at once,
// at the slowest hop's bottleneck bandwidth plus its route latency
// (Patarasuk and Yuan 2009; NCCL's ring, whose bus bandwidth is the link
// bandwidth). This is the private estimate issue 25 allows until the
// collectives package of issue 26 lands; it sees no contention between
// groups.
func collTime(c *devices.Cluster, group []int, k Coll, bytes float64) (float64, error) {
	n := len(group)
	if n <= 1 || bytes <= 0 {
		return 0, nil
	}
	bw, lat := 0.0, 0.0
	for i, d := range group {
		next := group[(i+1)%n]
		if d < 0 || d >= len(c.Devices) || next < 0 || next >= len(c.Devices) {
			return 0, fmt.Errorf("%w: collective group %v: device out of range [0, %d)", ErrJob, group, len(c.Devices))
		}
		b, l := routeBW(c, d, next)
		if i == 0 || b < bw {
			bw = b
		}
		lat = max(lat, l)
	}
	steps := float64(n - 1)
	if k == AllReduce {
		steps *= 2
	}
	return steps * (lat + bytes/float64(n)/bw), nil
}

// routeBW is the bottleneck bandwidth and the latency of the route from
// device a to b.
func routeBW(c *devices.Cluster, a, b int) (bw, lat float64) {
	top := c.Topology
	for i, lid := range c.Route(a, b) {
		l := top.Links[lid]
		if i == 0 || l.Bandwidth < bw {
			bw = l.Bandwidth
		}
		lat += l.Latency
	}
	return bw, lat
}
