package llm

import (
	"placesim/collectives"
	"placesim/devices"
)

// Coll is a collective operation (collectives.Kind).
type Coll = collectives.Kind

// The collectives a step runs.
const (
	AllReduce     = collectives.AllReduce
	AllGather     = collectives.AllGather
	ReduceScatter = collectives.ReduceScatter
	AllToAll      = collectives.AllToAll
	SendRecv      = collectives.SendRecv
)

// collTime is the time of collective k of `bytes` (nccl-tests' size: the
// all-reduced buffer, the gathered output, the scattered input, one
// rank's all-to-all buffer, the message of a send/recv) over the devices
// of group, as NCCL runs it (collectives.Time: algorithm, protocol and
// channels by NCCL's tuning model).
func collTime(c *devices.Cluster, group []int, k Coll, bytes float64) (float64, error) {
	if len(group) <= 1 || bytes <= 0 {
		return 0, nil
	}
	e, err := collectives.Time(c, group, k, int64(bytes))
	if err != nil {
		return 0, err
	}
	return e.Seconds, nil
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
