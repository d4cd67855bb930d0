package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"placesim/devices"
	"placesim/links"
)

// ringRefBytes is the chunk a ring order is chosen for: large enough that
// bandwidth, not latency, decides.
const ringRefBytes = 64 << 20

// stepModel models one step of rings run at once (every member sends a
// chunk to the next in its ring), without allocating, for the ring
// search: each transfer takes its route's latencies plus chunk times the
// busiest share of a link's bandwidth, a link shared by k transfers of
// the step giving each 1/k; the step lasts as long as its slowest
// transfer (collectiveTopo.linkStep with equal chunks and no collective
// model).
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

// maxRingChannels bounds the channels ringChannels lays: NCCL's ring
// search asks for at most MAXCHANNELS/2 = 32 channels (init.cc).
const maxRingChannels = 32

// maxSpeedDivisor is how far below the first ring's rate ringChannels
// tries channel speeds: the first ring's slowest link's rate over 1, 2,
// ... 4 (NCCL's search walks its array of speeds down from the fastest
// its links allow and keeps the speed that moves the most, stopping below
// half the best one's; a link then carries as many channels as its
// bandwidth holds at the speed).
const maxSpeedDivisor = 4

// ringChannelKey memoises ringChannels per cluster (devices.Cluster.Memo)
// by the group's devices in ring order.
type ringChannelKey struct{ devs string }

// ringChannelSet is ringChannels' result: each ring as positions in the
// first ring and its share of the bytes.
type ringChannelSet struct {
	pos    [][]int
	shares []float64
}

// ringChannels is the set of rings NCCL runs an all-reduce's channels on
// among the replicas of one node (indices into devs), first being the
// fastest ring (ringOrder), with each ring's share of the bytes.
//
// It follows NCCL's topology search for the ring pattern
// (src/graph/search.cc, ncclTopoCompute): at a channel speed s every
// link holds floor(bandwidth/s) channels and each channel takes one off
// every link it crosses (ncclTopoFollowPath); channels are searched one
// after another, the reverse of the last ring first (search.cc: "Try to
// reverse the ring"), then a new ring whose next GPU is the one whose
// link has the most channels left (ncclTopoSearchNextGpuSort), until no
// ring fits or there are 32; the speed that moves the most (channels x
// s) wins, trying the first ring's rate over 1 to 4 (the fewer channels
// on a tie). The data is split evenly over the channels (src/enqueue.cc),
// so channels that follow one GPU order are one ring carrying their
// number of shares. On a DGX-1's hybrid cube-mesh that is 6 channels at
// 25 GB/s: the double-brick cycle twice each way and the single-brick
// cycle once each way (collectives.Time: 6 ring channels), where one ring
// over the double bricks gave 48 GB/s. Groups of more than 9 replicas
// keep the first ring alone (the search is exhaustive).
func ringChannels(c *devices.Cluster, devs []int, first []int) (rings [][]int, shares []float64) {
	if len(first) < 3 || len(first) > 9 {
		return [][]int{first}, []float64{1}
	}
	var key []byte
	for _, r := range first {
		key = binary.LittleEndian.AppendUint32(key, uint32(devs[r]))
	}
	v, _ := c.Memo(ringChannelKey{string(key)}, func() (any, error) {
		return searchRingChannels(c, devs, first), nil
	})
	set := v.(ringChannelSet)
	rings = make([][]int, len(set.pos))
	for k, p := range set.pos {
		rings[k] = make([]int, len(p))
		for i, j := range p {
			rings[k][i] = first[j]
		}
	}
	return rings, set.shares
}

// searchRingChannels is ringChannels' search; its rings are positions in
// first.
func searchRingChannels(c *devices.Cluster, devs []int, first []int) ringChannelSet {
	top := c.Topology
	n := len(first)
	pos := make([]int, n)
	for i := range pos {
		pos[i] = i
	}
	// routes between positions, found once
	route := make([][]links.LinkID, n*n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b {
				route[a*n+b] = c.Route(devs[first[a]], devs[first[b]])
			}
		}
	}
	// the first ring's rate: its slowest link's bandwidth over the
	// times the ring crosses it
	load := map[links.LinkID]int{}
	for i := range pos {
		for _, lid := range route[pos[i]*n+pos[(i+1)%n]] {
			load[lid]++
		}
	}
	r0 := math.Inf(1)
	for lid, k := range load {
		r0 = math.Min(r0, top.Links[lid].Bandwidth/float64(k))
	}
	var best [][]int
	var bestS float64
	for div := 1; div <= maxSpeedDivisor; div++ {
		s := r0 / float64(div)
		chans := channelsAt(top, route, n, s)
		if float64(len(chans))*s > float64(len(best))*bestS*(1+1e-9) {
			best, bestS = chans, s
		}
	}
	if len(best) == 0 {
		// the first ring always fits at its own rate; kept for safety
		return ringChannelSet{pos: [][]int{pos}, shares: []float64{1}}
	}
	// channels of one order are one ring
	var set ringChannelSet
	count := map[string]int{}
	index := map[string]int{}
	for _, ch := range best {
		k := fmt.Sprint(ch)
		if _, ok := index[k]; !ok {
			index[k] = len(set.pos)
			set.pos = append(set.pos, ch)
		}
		count[k]++
	}
	for _, ring := range set.pos {
		set.shares = append(set.shares, float64(count[fmt.Sprint(ring)])/float64(len(best)))
	}
	return set
}

// channelsAt lays ring channels at speed s over positions 0..n-1 (routes
// between them in route, by a*n+b): the first ring (positions in order)
// if it fits, then channels one after another, each new ring followed by
// its reverse where that fits, each taking one of the floor(bandwidth/s)
// channels every link it crosses holds, up to maxRingChannels.
func channelsAt(top *links.Topology, route [][]links.LinkID, n int, s float64) [][]int {
	left := make(map[links.LinkID]int)
	for _, r := range route {
		for _, lid := range r {
			left[lid] = int(top.Links[lid].Bandwidth/s + 1e-9)
		}
	}
	// take reports whether ring fits in what is left, and takes it
	take := func(ring []int) bool {
		var used []links.LinkID
		ok := true
		for i := range ring {
			for _, lid := range route[ring[i]*n+ring[(i+1)%n]] {
				left[lid]--
				used = append(used, lid)
				ok = ok && left[lid] >= 0
			}
		}
		if !ok {
			for _, lid := range used {
				left[lid]++
			}
		}
		return ok
	}
	var chans [][]int
	ring := make([]int, n)
	for i := range ring {
		ring[i] = i
	}
	if !take(ring) {
		return nil
	}
	chans = append(chans, ring)
	reversed := false // the last channel is the reverse of the one before
	for len(chans) < maxRingChannels {
		if last := chans[len(chans)-1]; !reversed {
			rev := append([]int{last[0]}, last[1:]...)
			slices.Reverse(rev[1:])
			if take(rev) {
				chans, reversed = append(chans, rev), true
				continue
			}
		}
		next := freeRing(route, n, left)
		if next == nil || !take(next) {
			break
		}
		chans, reversed = append(chans, next), false
	}
	return chans
}

// freeRing finds a ring over positions 0..n-1 (0 first) that fits in the
// channels left on its links, trying at each step the next position
// whose route has the most channels left (the fewest of its links'
// channels, ties by position); nil when there is none.
func freeRing(route [][]links.LinkID, n int, left map[links.LinkID]int) []int {
	ring := []int{0}
	in := make([]bool, n)
	in[0] = true
	room := func(a, b int) int {
		m := math.MaxInt
		for _, lid := range route[a*n+b] {
			m = min(m, left[lid])
		}
		return m
	}
	adjust := func(a, b, d int) {
		for _, lid := range route[a*n+b] {
			left[lid] += d
		}
	}
	var walk func() bool
	walk = func() bool {
		cur := ring[len(ring)-1]
		if len(ring) == n {
			return room(cur, 0) > 0
		}
		var cands []int
		for b := 0; b < n; b++ {
			if !in[b] && room(cur, b) > 0 {
				cands = append(cands, b)
			}
		}
		slices.SortStableFunc(cands, func(x, y int) int { return room(cur, y) - room(cur, x) })
		for _, b := range cands {
			adjust(cur, b, -1)
			ring = append(ring, b)
			in[b] = true
			if walk() {
				adjust(cur, b, 1)
				return true
			}
			in[b] = false
			ring = ring[:len(ring)-1]
			adjust(cur, b, 1)
		}
		return false
	}
	if !walk() {
		return nil
	}
	// walk gave back every hop's channels on its way out: the caller
	// takes the ring
	return ring
}
