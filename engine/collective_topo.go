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
