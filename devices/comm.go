package devices

import (
	"math"
	"sort"
	"sync"

	"placesim/links"
)

// CommView is what a collective model needs to know of a cluster, read
// off its topology once (Cluster.Comm): which devices share a node (an
// NVLink domain, or a host where there is no NVLink), each device's
// scale-up bandwidth, its share of the node's network adapters, and the
// leaf switch its adapter hangs off with that leaf's oversubscription. It
// is read-only.
type CommView struct {
	// Node is each device's node: the devices joined without crossing a
	// network switch (NCCL's "node"; a multi-node NVLink domain such as
	// an NVL72 rack is one node, as NCCL's MNNVL treats it).
	Node []int32
	// NodeDevices lists each node's devices.
	NodeDevices [][]int
	// IntraBW is each device's scale-up bandwidth in bytes/s per
	// direction: the sum of its NVLink (or Infinity Fabric) links, or
	// its fastest PCIe link where it has none.
	IntraBW []float64
	// IntraPath is each device's fastest single scale-up connection in
	// bytes/s per direction: the whole bundle to an NVSwitch, one peer's
	// links in a mesh (what one ring channel can use per hop).
	IntraPath []float64
	// IntraNVLink reports whether the scale-up links are NVLink-class.
	IntraNVLink []bool
	// NVSwitch reports whether the NVLink links go to an NVSwitch (where
	// NCCL's NVLS algorithms can run).
	NVSwitch []bool
	// NetBW is each device's share of its node's network bandwidth in
	// bytes/s per direction: the node's adapter links to the network
	// divided by its accelerators (one rail per GPU on DGX systems).
	NetBW []float64
	// NICs is the number of network adapters in each device's node.
	NICs []int
	// Leaf is the network switch each device's adapter connects to (-1
	// when the node has none), an index into LeafNodes and LeafUp.
	Leaf []int32
	// LeafNodes lists, per leaf switch, the nodes whose adapters it
	// serves (sorted).
	LeafNodes [][]int32
	// LeafUp is, per leaf switch, its uplink bandwidth over its downlink
	// bandwidth: 1 for a non-blocking leaf, 1/4 for 4:1
	// oversubscription, +Inf when it has no uplinks (a single switch).
	LeafUp []float64
	// LeafDown is, per leaf switch, the bandwidth of its links to
	// adapters (bytes/s per direction).
	LeafDown []float64
}

type commCache struct {
	once sync.Once
	v    *CommView
	memo sync.Map
}

// Memo returns the value stored under key for this cluster, computing it
// with f on first use: a cache of figures derived from the cluster (a
// collective's time under its peers' load) that lives and dies with the
// cluster, safe for concurrent use (f may run twice for one key when two
// callers race; the first value stored wins). Keys must be comparable
// and should be the caller's own type, so packages do not collide.
func (c *Cluster) Memo(key any, f func() (any, error)) (any, error) {
	if c.comm == nil {
		return f()
	}
	if v, ok := c.comm.memo.Load(key); ok {
		return v, nil
	}
	v, err := f()
	if err != nil {
		return nil, err
	}
	v, _ = c.comm.memo.LoadOrStore(key, v)
	return v, nil
}

// Comm returns the cluster's CommView, computed from the topology on
// first use (linear in its size; safe for concurrent use).
func (c *Cluster) Comm() *CommView {
	if c.comm == nil {
		// a Cluster built without NewCluster (tests): compute each time
		return newCommView(c.Topology, c.Devices)
	}
	c.comm.once.Do(func() { c.comm.v = newCommView(c.Topology, c.Devices) })
	return c.comm.v
}

func newCommView(t *links.Topology, devs []Device) *CommView {
	n := len(devs)
	v := &CommView{Node: make([]int32, n), IntraBW: make([]float64, n), IntraPath: make([]float64, n), IntraNVLink: make([]bool, n),
		NVSwitch: make([]bool, n), NetBW: make([]float64, n), NICs: make([]int, n), Leaf: make([]int32, n)}
	ne := len(t.Endpoints)
	parent := make([]int32, ne)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	isNet := func(e links.EndpointID) bool { return t.Endpoints[e].Type == links.NetSwitch }
	for _, l := range t.Links {
		if isNet(l.From) || isNet(l.To) || links.Network(l.Family) {
			continue
		}
		if a, b := find(int32(l.From)), find(int32(l.To)); a != b {
			parent[a] = b
		}
	}
	// nodes numbered in the order of their first device
	nodeOf := map[int32]int32{}
	for i, d := range devs {
		r := find(int32(d.Endpoint))
		id, ok := nodeOf[r]
		if !ok {
			id = int32(len(v.NodeDevices))
			nodeOf[r] = id
			v.NodeDevices = append(v.NodeDevices, nil)
		}
		v.Node[i] = id
		v.NodeDevices[id] = append(v.NodeDevices[id], i)
	}
	// per node: network bandwidth out of its adapters, adapter count, and
	// the leaf of each adapter
	nodes := len(v.NodeDevices)
	netBW := make([]float64, nodes)
	nics := make([]int, nodes)
	accel := make([]int, nodes)
	for i, d := range devs {
		if d.Kind.Class == Accelerator {
			accel[v.Node[i]]++
		}
	}
	leafID := map[links.EndpointID]int32{}
	nicLeaf := map[links.EndpointID]int32{}
	nodeLeaf := make([]int32, nodes)
	for i := range nodeLeaf {
		nodeLeaf[i] = -1
	}
	leafOf := func(sw links.EndpointID) int32 {
		id, ok := leafID[sw]
		if !ok {
			id = int32(len(v.LeafNodes))
			leafID[sw] = id
			v.LeafNodes = append(v.LeafNodes, nil)
			var down, up float64
			for _, lid := range t.Out(sw) {
				l := t.Links[lid]
				if isNet(l.To) {
					up += l.Bandwidth
				} else {
					down += l.Bandwidth
				}
			}
			r := math.Inf(1)
			if up > 0 && down > 0 {
				r = up / down
			}
			v.LeafUp = append(v.LeafUp, r)
			v.LeafDown = append(v.LeafDown, down)
		}
		return id
	}
	for e := range t.Endpoints {
		ep := links.EndpointID(e)
		if isNet(ep) {
			continue
		}
		node, ok := nodeOf[find(int32(ep))]
		if !ok {
			continue
		}
		counted := false
		for _, lid := range t.Out(ep) {
			l := t.Links[lid]
			if !isNet(l.To) {
				continue
			}
			netBW[node] += l.Bandwidth
			if !counted {
				nics[node]++
				counted = true
				lf := leafOf(l.To)
				nicLeaf[ep] = lf
				if nodeLeaf[node] < 0 {
					nodeLeaf[node] = lf
				}
				ln := v.LeafNodes[lf]
				if len(ln) == 0 || ln[len(ln)-1] != node {
					v.LeafNodes[lf] = append(ln, node)
				}
			}
		}
	}
	for i := range v.LeafNodes {
		ln := v.LeafNodes[i]
		sort.Slice(ln, func(a, b int) bool { return ln[a] < ln[b] })
		// drop duplicates (a node seen again after another)
		out := ln[:0]
		for j, x := range ln {
			if j == 0 || x != ln[j-1] {
				out = append(out, x)
			}
		}
		v.LeafNodes[i] = out
	}
	for i, d := range devs {
		node := v.Node[i]
		if accel[node] > 0 {
			v.NetBW[i] = netBW[node] / float64(accel[node])
		}
		v.NICs[i] = nics[node]
		v.Leaf[i] = nodeLeaf[node]
		var nvl, pcie float64
		for _, lid := range t.Out(d.Endpoint) {
			l := t.Links[lid]
			switch {
			case l.Family == "nvlink":
				nvl += l.Bandwidth
				v.IntraPath[i] = math.Max(v.IntraPath[i], l.Bandwidth)
				if t.Endpoints[l.To].Type == links.NVSwitch {
					v.NVSwitch[i] = true
				}
			case links.Network(l.Family):
				// a GPU wired straight to the network: its adapter
				if lf, ok := nicLeaf[d.Endpoint]; ok {
					v.Leaf[i] = lf
				}
			default:
				pcie = math.Max(pcie, l.Bandwidth)
			}
			// the device's own adapter, when it has one, gives its leaf
			if t.Endpoints[l.To].Type == links.NIC {
				if lf, ok := nicLeaf[l.To]; ok {
					v.Leaf[i] = lf
				}
			}
		}
		if nvl > 0 {
			v.IntraBW[i], v.IntraNVLink[i] = nvl, true
		} else {
			v.IntraBW[i], v.IntraPath[i] = pcie, pcie
		}
	}
	return v
}

// SpansLeaves reports whether traffic among the given nodes must cross
// the spine from the leaf leaf: some node is not under it.
func (v *CommView) SpansLeaves(leaf int32, nodes []int32) bool {
	if leaf < 0 {
		return false
	}
	ln := v.LeafNodes[leaf]
	if len(nodes) > len(ln) {
		return true
	}
	for _, n := range nodes {
		i := sort.Search(len(ln), func(i int) bool { return ln[i] >= n })
		if i == len(ln) || ln[i] != n {
			return true
		}
	}
	return false
}
