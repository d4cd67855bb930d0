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

// collKey identifies a collective call: the groups of a job are
// arithmetic progressions of ranks (Megatron's rank order), named by
// their first two members and size.
type collKey struct {
	first, second, n int
	k                Coll
	bytes            int64
}

// collMemo caches collective times for one simulation (the same bucket
// of the same group recurs for every chunk and micro-batch).
type collMemo struct {
	c *devices.Cluster
	m map[collKey]float64
}

func newCollMemo(c *devices.Cluster) *collMemo {
	return &collMemo{c: c, m: map[collKey]float64{}}
}

// time is the representative's collective when its identical peers run
// theirs at the same moment: groups[0] is the representative's group,
// the others its peers' groups of the same kind (the tensor-parallel
// groups of every context and data-parallel rank, the data-parallel
// groups of every tensor-parallel rank, ...); they share the links where
// their traffic meets (collectives.Concurrent), so a representative sees
// the load of the ranks it stands for.
func (cm *collMemo) time(groups [][]int, k Coll, bytes float64) (float64, error) {
	group := groups[0]
	if len(group) <= 1 || bytes <= 0 {
		return 0, nil
	}
	key := collKey{first: group[0], second: group[1], n: len(group), k: k, bytes: int64(bytes)}
	if t, ok := cm.m[key]; ok {
		return t, nil
	}
	var t float64
	if len(groups) == 1 {
		var err error
		if t, err = collTime(cm.c, group, k, bytes); err != nil {
			return 0, err
		}
	} else {
		es, err := collectives.Concurrent(cm.c, groups, k, int64(bytes))
		if err != nil {
			return 0, err
		}
		t = es[0].Seconds
	}
	cm.m[key] = t
	return t, nil
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
