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
// their first two members and size, and the number of concurrent groups.
type collKey struct {
	first, second, n, groups int
	k                        Coll
	bytes                    int64
}

// collMemo caches collective times for one simulation (the same bucket
// of the same group recurs for every chunk and micro-batch). sel, when
// not nil, is the set of GPUs one gang of the full mode holds: time then
// counts only the groups that gang's GPUs start (see time).
type collMemo struct {
	c   *devices.Cluster
	m   map[collKey][]float64
	sel map[int]bool
}

func newCollMemo(c *devices.Cluster) *collMemo {
	return &collMemo{c: c, m: map[collKey][]float64{}}
}

// gang is a memo sharing cm's cache whose times count the groups started
// by the GPUs of members only.
func (cm *collMemo) gang(members []int) *collMemo {
	sel := make(map[int]bool, len(members))
	for _, g := range members {
		sel[g] = true
	}
	return &collMemo{c: cm.c, m: cm.m, sel: sel}
}

// time is a collective when all groups of one kind run theirs at the
// same moment: groups[0] is the representative's group, the others its
// peers' groups of the same kind (the tensor-parallel groups of every
// context and data-parallel rank, the data-parallel groups of every
// tensor-parallel rank, ...); they share the links where their traffic
// meets (collectives.Concurrent), so a representative sees the load of
// the ranks it stands for. The time is the slowest group's (of those
// whose first member is in sel, when sel is set): the ranks a
// representative stands for wait for each other at their next
// collective, so the slowest of them sets the pace.
func (cm *collMemo) time(groups [][]int, k Coll, bytes float64) (float64, error) {
	group := groups[0]
	if len(group) <= 1 || bytes <= 0 {
		return 0, nil
	}
	key := collKey{first: group[0], second: group[1], n: len(group), groups: len(groups), k: k, bytes: int64(bytes)}
	ts, ok := cm.m[key]
	if !ok {
		if len(groups) == 1 {
			t, err := collTime(cm.c, group, k, bytes)
			if err != nil {
				return 0, err
			}
			ts = []float64{t}
		} else {
			es, err := collectives.Concurrent(cm.c, groups, k, int64(bytes))
			if err != nil {
				return 0, err
			}
			ts = make([]float64, len(es))
			for i, e := range es {
				ts[i] = e.Seconds
			}
		}
		cm.m[key] = ts
	}
	var t float64
	for i, x := range ts {
		if cm.sel == nil || cm.sel[groups[i][0]] {
			t = max(t, x)
		}
	}
	return t, nil
}

// collChannels is the number of channels NCCL runs collective k of
// `bytes` over group with (collectives.Time): each channel's kernel
// block holds one SM while it runs.
func collChannels(c *devices.Cluster, group []int, k Coll, bytes float64) (int, error) {
	if len(group) <= 1 || bytes <= 0 {
		return 0, nil
	}
	e, err := collectives.Time(c, group, k, int64(bytes))
	if err != nil {
		return 0, err
	}
	return e.Channels, nil
}
