package collectives

import (
	"fmt"
	"math"

	"placesim/devices"
)

// Concurrent is the time of collective k of bytes over each of groups
// when all start at once: the tensor-parallel groups of a layout
// all-reducing together, or its data-parallel groups reducing gradients
// together. Groups slow each other only where their traffic meets:
//
//   - a GPU in several groups shares its scale-up links among them;
//   - a node's network adapters carry the sum of its groups' cross-node
//     traffic (each group's per-node rate is its bus bandwidth, capped
//     by the adapters it may use);
//   - a leaf switch's uplinks carry the traffic of the groups whose
//     next node (in ring order over sorted nodes; the tree algorithms
//     are charged as rings) is under another leaf, and an all-to-all's
//     share for nodes outside the leaf.
//
// Each group's bandwidth term (its time less NCCL's latency term) is
// stretched by its most loaded resource's demand over capacity; the
// latency term is not. Alone, a group's estimate is Time's.
func Concurrent(c *devices.Cluster, groups [][]int, k Kind, bytes int64) ([]Estimate, error) {
	calls := make([]Call, len(groups))
	for i, g := range groups {
		calls[i] = Call{Group: g, Kind: k, Bytes: bytes}
	}
	return Calls(c, calls)
}

// Call is one collective of a set that starts together (Calls).
type Call struct {
	Group []int
	Kind  Kind
	Bytes int64
}

// Calls is Concurrent for collectives of different kinds and sizes
// started together: a tensor-parallel all-reduce inside a node and a
// data-parallel reduce-scatter across the fabric slow each other only
// where they meet (a GPU's scale-up links, when the data-parallel group
// has several ranks in the node; a node's adapters; a leaf's uplinks).
func Calls(c *devices.Cluster, calls []Call) ([]Estimate, error) {
	cv := c.Comm()
	gs := make([]*group, len(calls))
	es := make([]Estimate, len(calls))
	for i, call := range calls {
		k, bytes := call.Kind, call.Bytes
		if bytes < 0 {
			return nil, fmt.Errorf("collective %s, call %d: size %d bytes (valid range: >= 0)", k, i, bytes)
		}
		if k < AllReduce || k > SendRecv {
			return nil, fmt.Errorf("collective %s, call %d: unknown kind", k, i)
		}
		g, err := analyse(c, call.Group)
		if err != nil {
			return nil, fmt.Errorf("collective %s, call %d: %w", k, i, err)
		}
		if k == SendRecv && g.nRanks != 2 {
			return nil, fmt.Errorf("collective %s, call %d: %w: %d devices (valid: exactly 2)", k, i, ErrBadGroup, g.nRanks)
		}
		gs[i], es[i] = g, g.estimate(k, bytes)
	}
	// demand on each resource, bytes/s
	gpuGroups := map[int]int{}
	nodeDemand := map[int32]float64{}
	leafDemand := map[int32]float64{}
	for i, g := range gs {
		k := calls[i].Kind
		if g.nRanks < 2 || es[i].Seconds == 0 {
			continue
		}
		if g.ppn > 1 || g.nNodes == 1 {
			for _, d := range g.members {
				gpuGroups[d]++
			}
		}
		if g.nNodes < 2 {
			continue
		}
		netCap := float64(g.nics) * g.net * 1e9
		rate := math.Min(es[i].BusBW, netCap)
		if k == AllToAll || k == SendRecv {
			rate = g.ppn * g.net * 1e9
		}
		for _, n := range g.nodes {
			nodeDemand[n] += rate
		}
		g.forCrossing(k, func(leaf int32, share float64) { leafDemand[leaf] += rate * share })
	}
	out := make([]Estimate, len(es))
	for i, g := range gs {
		k, e := calls[i].Kind, es[i]
		slow := 1.0
		if g.nRanks >= 2 && e.Seconds > 0 {
			if g.ppn > 1 || g.nNodes == 1 {
				for _, d := range g.members {
					slow = math.Max(slow, float64(gpuGroups[d]))
				}
			}
			if g.nNodes > 1 {
				for _, n := range g.nodes {
					nodeCap := 0.0
					for _, d := range cv.NodeDevices[n] {
						if c.Devices[d].Kind.Class == devices.Accelerator {
							nodeCap += cv.NetBW[d]
						}
					}
					if nodeCap > 0 {
						slow = math.Max(slow, nodeDemand[n]/nodeCap)
					}
				}
				g.forCrossing(k, func(leaf int32, _ float64) {
					if up := cv.LeafUp[leaf]; !math.IsInf(up, 1) {
						slow = math.Max(slow, leafDemand[leaf]/(up*cv.LeafDown[leaf]))
					}
				})
			}
		}
		if slow > 1 {
			e.Seconds = e.fixed + (e.Seconds-e.fixed)*slow
			e.setBW(k, calls[i].Bytes, g.nRanks)
		}
		out[i] = e
	}
	return out, nil
}

// forCrossing calls f for each leaf whose uplinks the group's traffic
// crosses, with the share of the group's per-node rate that crosses it:
// for an all-to-all, each rank's traffic to nodes outside its leaf (as a
// fraction of the other nodes), shared over the node's ranks; otherwise
// the ring's hop from each node to the next (sorted, cyclic) when that
// node is under another leaf, shared over the node's ranks (each on its
// rail's leaf).
func (g *group) forCrossing(k Kind, f func(leaf int32, share float64)) {
	cv := g.cv
	if g.nNodes < 2 {
		return
	}
	byNode := map[int32][]int{}
	for _, d := range g.members {
		byNode[cv.Node[d]] = append(byNode[cv.Node[d]], d)
	}
	for i, n := range g.nodes {
		ds := byNode[n]
		per := 1 / float64(len(ds))
		if k == AllToAll {
			for _, d := range ds {
				lf := cv.Leaf[d]
				if lf < 0 {
					continue
				}
				outside := 0
				for _, m := range g.nodes {
					if m != n && cv.SpansLeaves(lf, []int32{m}) {
						outside++
					}
				}
				if outside > 0 {
					f(lf, per*float64(outside)/float64(g.nNodes-1))
				}
			}
			continue
		}
		next := g.nodes[(i+1)%len(g.nodes)]
		for _, d := range ds {
			if lf := cv.Leaf[d]; lf >= 0 && cv.SpansLeaves(lf, []int32{next}) {
				f(lf, per)
			}
		}
	}
}

// replicatedKey memoizes Replicated on the cluster (devices.Cluster.Memo).
type replicatedKey struct {
	group string
	k     Kind
	bytes int64
	limit int
}

// Replicated is Time for group when every disjoint translate of it
// within the devices 0 to limit-1 (the group shifted by a device offset,
// as the data-parallel or tensor-parallel groups of a layout tile the
// GPUs) runs the same collective at the same time (Concurrent); limit 0
// means the whole cluster. Results are memoized on the cluster, so a
// simulation that asks again for the same group and size pays once.
func Replicated(c *devices.Cluster, grp []int, k Kind, bytes int64, limit int) (Estimate, error) {
	if limit <= 0 || limit > len(c.Devices) {
		limit = len(c.Devices)
	}
	key := replicatedKey{fmt.Sprint(grp), k, bytes, limit}
	v, err := c.Memo(key, func() (any, error) { return replicated(c, grp, k, bytes, limit) })
	if err != nil {
		return Estimate{}, err
	}
	return v.(Estimate), nil
}

func replicated(c *devices.Cluster, grp []int, k Kind, bytes int64, limit int) (Estimate, error) {
	groups := [][]int{grp}
	used := make([]bool, limit)
	lo, hi := math.MaxInt, -1
	for _, d := range grp {
		if d < 0 || d >= limit {
			return Time(c, grp, k, bytes) // Time names the bad device
		}
		used[d] = true
		lo, hi = min(lo, d), max(hi, d)
	}
	if len(grp) > 1 {
		for off := -lo; off+hi < limit; off++ {
			if off == 0 {
				continue
			}
			ok := true
			for _, d := range grp {
				if used[d+off] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			t := make([]int, len(grp))
			for j, d := range grp {
				t[j] = d + off
				used[d+off] = true
			}
			groups = append(groups, t)
		}
	}
	es, err := Concurrent(c, groups, k, bytes)
	if err != nil {
		return Estimate{}, err
	}
	return es[0], nil
}
