package engine

import (
	"encoding/binary"
	"math"
	"slices"

	"placesim/devices"
)

// ringRefBytes is the chunk a ring order is chosen for: large enough that
// bandwidth, not latency, decides.
const ringRefBytes = 64 << 20

// stepTime models one step of rings run at once (every member sends a
// chunk to the next in its ring): each transfer takes its route's
// latencies plus chunk times the busiest share of a link's bandwidth, a
// link shared by k transfers of the step giving each 1/k; the step lasts
// as long as its slowest transfer.
func stepTime(c *devices.Cluster, devs []int, rings [][]int, chunk int64) float64 {
	return newStepModel(c).time(devs, rings, chunk)
}

// stepModel evaluates stepTime without allocating, for the ring search.
type stepModel struct {
	c    *devices.Cluster
	load []int32 // transfers of the step on each link
}

func newStepModel(c *devices.Cluster) *stepModel {
	return &stepModel{c: c, load: make([]int32, len(c.Topology.Links))}
}

func (m *stepModel) time(devs []int, rings [][]int, chunk int64) float64 {
	c := m.c
	for _, ring := range rings {
		for i, r := range ring {
			if len(ring) < 2 {
				break
			}
			for _, lid := range c.Route(devs[r], devs[ring[(i+1)%len(ring)]]) {
				m.load[lid]++
			}
		}
	}
	var worst float64
	for _, ring := range rings {
		for i, r := range ring {
			if len(ring) < 2 {
				break
			}
			var lat, slow float64
			for _, lid := range c.Route(devs[r], devs[ring[(i+1)%len(ring)]]) {
				l := &c.Topology.Links[lid]
				lat += l.Latency
				slow = math.Max(slow, float64(m.load[lid])/l.Bandwidth)
			}
			worst = math.Max(worst, lat+float64(chunk)*slow)
		}
	}
	for _, ring := range rings {
		for i, r := range ring {
			if len(ring) < 2 {
				break
			}
			for _, lid := range c.Route(devs[r], devs[ring[(i+1)%len(ring)]]) {
				m.load[lid] = 0
			}
		}
	}
	return worst
}

// routeSignature describes the routes between members (indices into
// devs) by position: for each ordered pair of positions, its route's
// links, each as the position of its first appearance in the signature
// with its bandwidth and latency. Two member lists of one signature give
// every ring order, position for position, the same stepModel time, so
// ringOrder picks the same positions for both.
func routeSignature(c *devices.Cluster, devs []int, members []int) string {
	label := map[int]uint32{}
	var b []byte
	top := c.Topology
	for _, a := range members {
		for _, z := range members {
			if a == z {
				continue
			}
			r := c.Route(devs[a], devs[z])
			b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
			for _, lid := range r {
				k, ok := label[int(lid)]
				if !ok {
					k = uint32(len(label))
					label[int(lid)] = k
				}
				l := &top.Links[lid]
				b = binary.LittleEndian.AppendUint32(b, k)
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(l.Bandwidth))
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(l.Latency))
			}
		}
	}
	return string(b)
}

// ringOrder orders the replicas members (indices into devs) into the ring
// with the fastest step, as NCCL builds its rings over the fastest links
// (NVLink on a DGX-1's hybrid cube-mesh, avoiding PCIe and the CPU link):
// every order is tried for up to 9 members (the first member stays first;
// ties keep the earlier order, so on uniform links the members' own order
// stays), nearest neighbour by transfer time beyond.
func ringOrder(c *devices.Cluster, devs []int, members []int) []int {
	n := len(members)
	best := append([]int(nil), members...)
	if n <= 2 {
		return best
	}
	model := newStepModel(c)
	bestT := model.time(devs, [][]int{best}, ringRefBytes)
	if n > 9 {
		greedy := []int{members[0]}
		// the members not yet in the ring, in order, and their devices
		cands := slices.Clone(members[1:])
		candDevs := make([]int, len(cands))
		for i, m := range cands {
			candDevs[i] = devs[m]
		}
		for len(greedy) < n {
			cur := greedy[len(greedy)-1]
			// the first of the least transfer time
			i, _ := c.Nearest(devs[cur], ringRefBytes, candDevs)
			greedy = append(greedy, cands[i])
			cands, candDevs = slices.Delete(cands, i, i+1), slices.Delete(candDevs, i, i+1)
		}
		if t := model.time(devs, [][]int{greedy}, ringRefBytes); t < bestT {
			best = greedy
		}
		return best
	}
	perm := append([]int(nil), members...)
	rings := [][]int{perm}
	var walk func(k int)
	walk = func(k int) {
		if k == n {
			if t := model.time(devs, rings, ringRefBytes); t < bestT*(1-1e-9) {
				best, bestT = append(best[:0], perm...), t
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			walk(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	walk(1)
	return best
}

// maxRingChannels bounds the rings ringChannels returns: NCCL's ring
// search asks for at most MAXCHANNELS/2 = 32 channels (init.cc); a ring
// found here stands for as many of NCCL's channels as its share holds.
const maxRingChannels = 32

// ringChannelKey memoises ringChannels per cluster (devices.Cluster.Memo)
// by the group's devices in ring order.
type ringChannelKey struct{ devs string }

// ringChannels is the set of rings NCCL runs an all-reduce's channels on
// among the replicas of one node (indices into devs), first being the
// fastest ring (ringOrder), and each ring's share of the bytes. NCCL's
// topology search (src/graph/search.cc, ncclTopoCompute with the ring
// pattern) finds as many rings as the links hold at one speed, each
// channel taking that speed off every link it crosses
// (ncclTopoFollowPath), trying the reverse of a ring it found before a
// new one (search.cc: "Try to reverse the ring"), and keeps the speed
// that moves the most; the data is split evenly over the channels
// (src/enqueue.cc), so a ring over links that carry k channels carries k
// shares. Here a ring stands for all the channels NCCL lays on the same
// GPU order: rings are searched over links no earlier ring crosses
// (each directed link serves one ring, the channels it carries in full),
// the reverse of the last ring first, then the ring whose slowest link is
// the fastest, down to half the first ring's (the search keeps no speed
// below half the best one's); each ring's share of the bytes is its
// slowest link's bandwidth over the sum of all rings' (the channels at
// one speed it carries). On a DGX-1's hybrid cube-mesh this finds the
// NVLink double-brick cycle both ways and the single-brick cycle both
// ways: 2+2+1+1 bricks of 25 GB/s out of every GPU, NCCL's 6 channels
// (collectives.Time: 6 ring channels of 20 GB/s), where one ring used 2.
// Groups of more than 9 replicas keep the first ring alone (the search
// is exhaustive).
func ringChannels(c *devices.Cluster, devs []int, first []int) ([][]int, []float64) {
	if len(first) < 3 || len(first) > 9 {
		return [][]int{first}, []float64{1}
	}
	var key []byte
	for _, r := range first {
		key = binary.LittleEndian.AppendUint32(key, uint32(devs[r]))
	}
	v, _ := c.Memo(ringChannelKey{string(key)}, func() (any, error) {
		rings, shares := searchRingChannels(c, devs, first)
		// positions in first, so that the memo does not depend on the
		// caller's replica numbering
		pos := make([][]int, len(rings))
		for k, ring := range rings {
			for _, r := range ring {
				pos[k] = append(pos[k], slices.Index(first, r))
			}
		}
		return ringChannelSet{pos, shares}, nil
	})
	set := v.(ringChannelSet)
	rings := make([][]int, len(set.pos))
	for k, p := range set.pos {
		rings[k] = make([]int, len(p))
		for i, j := range p {
			rings[k][i] = first[j]
		}
	}
	return rings, set.shares
}

// ringChannelSet is ringChannels' memoised result: each ring as positions
// in the first ring, and its share of the bytes.
type ringChannelSet struct {
	pos    [][]int
	shares []float64
}

// searchRingChannels is ringChannels' search.
func searchRingChannels(c *devices.Cluster, devs []int, first []int) ([][]int, []float64) {
	top := c.Topology
	used := make([]bool, len(top.Links))
	// rate is the ring's slowest link's bandwidth shared by its hops
	// (a link two hops cross gives each half); ok says the ring crosses
	// no used link
	load := make([]int32, len(top.Links))
	rate := func(ring []int) (float64, bool) {
		r, ok := math.Inf(1), true
		k := len(ring)
		for i := range ring {
			for _, lid := range c.Route(devs[ring[i]], devs[ring[(i+1)%k]]) {
				load[lid]++
				ok = ok && !used[lid]
			}
		}
		for i := range ring {
			for _, lid := range c.Route(devs[ring[i]], devs[ring[(i+1)%k]]) {
				if load[lid] > 0 {
					r = math.Min(r, top.Links[lid].Bandwidth/float64(load[lid]))
					load[lid] = 0
				}
			}
		}
		return r, ok
	}
	take := func(ring []int) {
		k := len(ring)
		for i := range ring {
			for _, lid := range c.Route(devs[ring[i]], devs[ring[(i+1)%k]]) {
				used[lid] = true
			}
		}
	}
	r0, _ := rate(first)
	rings, rates := [][]int{first}, []float64{r0}
	take(first)
	floor := r0 / 2
	for len(rings) < maxRingChannels {
		last := rings[len(rings)-1]
		rev := append([]int{last[0]}, last[1:]...)
		slices.Reverse(rev[1:])
		if r, ok := rate(rev); ok && r >= floor {
			rings, rates = append(rings, rev), append(rates, r)
			take(rev)
			continue
		}
		ring, r := bestFreeRing(c, devs, first, used, floor)
		if ring == nil {
			break
		}
		rings, rates = append(rings, ring), append(rates, r)
		take(ring)
	}
	var sum float64
	for _, r := range rates {
		sum += r
	}
	shares := make([]float64, len(rates))
	for k, r := range rates {
		shares[k] = r / sum
	}
	return rings, shares
}

// bestFreeRing is the ring over members (first member first) that
// crosses no used link and no link twice and whose slowest link is the
// fastest, at least floor; nil when there is none. Ties keep the first
// found (members' order).
func bestFreeRing(c *devices.Cluster, devs []int, members []int, used []bool, floor float64) ([]int, float64) {
	top := c.Topology
	n := len(members)
	mine := make([]bool, len(top.Links))
	perm := slices.Clone(members)
	var best []int
	bestR := floor
	// hop adds the route from a to b to the ring so far, returning its
	// slowest link and false when a link is used or already the ring's
	hop := func(a, b int) (float64, bool) {
		r := math.Inf(1)
		route := c.Route(devs[a], devs[b])
		for _, lid := range route {
			if used[lid] || mine[lid] {
				return 0, false
			}
		}
		for _, lid := range route {
			mine[lid] = true
			r = math.Min(r, top.Links[lid].Bandwidth)
		}
		return r, true
	}
	unhop := func(a, b int) {
		for _, lid := range c.Route(devs[a], devs[b]) {
			mine[lid] = false
		}
	}
	var walk func(k int, r float64)
	walk = func(k int, r float64) {
		if k == n {
			h, ok := hop(perm[n-1], perm[0])
			if !ok {
				return
			}
			unhop(perm[n-1], perm[0])
			if r = math.Min(r, h); r > bestR || (best == nil && r >= bestR) {
				best, bestR = slices.Clone(perm), r
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			if h, ok := hop(perm[k-1], perm[k]); ok {
				if rr := math.Min(r, h); rr > bestR || (best == nil && rr >= bestR) {
					walk(k+1, rr)
				}
				unhop(perm[k-1], perm[k])
			}
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	walk(1, math.Inf(1))
	return best, bestR
}
