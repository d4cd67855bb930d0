package collectives

import (
	"fmt"
	"math"
	"sort"

	"placesim/devices"
	"placesim/links"
)

// Estimate is the predicted time of one collective call and how NCCL
// would run it.
type Estimate struct {
	// Seconds is the time of the call, from the first rank's start to
	// the last rank's end, with no other traffic in the way.
	Seconds float64
	// Algorithm ("ring", "tree", "nvls", "nvls-tree", "pat", "p2p") and
	// Protocol ("LL", "LL128", "Simple") NCCL's tuning model picks.
	Algorithm, Protocol string
	// Channels is the number of channels (parallel rings or trees) of
	// the algorithm.
	Channels int
	// AlgBW is bytes / Seconds and BusBW is AlgBW times nccl-tests' bus
	// factor (Kind.BusFactor), both in bytes/s.
	AlgBW, BusBW float64
	// fixed is the part of Seconds that does not depend on bandwidth
	// (NCCL's latency term), which sharing links does not stretch.
	fixed float64
}

// group is what the tuning model needs to know of a communicator.
type group struct {
	nRanks, nNodes int
	ppn            float64 // ranks per node (NCCL: nRanks/nNodes)
	arch           arch
	nvlink         bool    // scale-up is NVLink-class for every rank
	nvswitch       bool    // every rank's NVLink goes to an NVSwitch
	intra          float64 // NCCL's per-GPU scale-up bandwidth, GB/s (slowest rank)
	path           float64 // its fastest single scale-up connection, GB/s
	net            float64 // network bandwidth per GPU, GB/s (slowest rank)
	nics           int     // adapters a node of the group may use
	nodes          []int32 // the group's nodes, sorted
	cv             *devices.CommView
	members        []int
}

// Time is the predicted time of collective k of bytes (nccl-tests' size,
// see Kind) over the devices of group, as NCCL runs it on cluster c. A
// group of one device costs nothing. For SendRecv the group is the two
// ends, sender first.
func Time(c *devices.Cluster, grp []int, k Kind, bytes int64) (Estimate, error) {
	if bytes < 0 {
		return Estimate{}, fmt.Errorf("collective %s: size %d bytes (valid range: >= 0)", k, bytes)
	}
	if k < AllReduce || k > SendRecv {
		return Estimate{}, fmt.Errorf("collective %s: unknown kind", k)
	}
	g, err := analyse(c, grp)
	if err != nil {
		return Estimate{}, fmt.Errorf("collective %s: %w", k, err)
	}
	if k == SendRecv && g.nRanks != 2 {
		return Estimate{}, fmt.Errorf("collective %s: %w: %d devices (valid: exactly 2, sender and receiver)", k, ErrBadGroup, g.nRanks)
	}
	return g.estimate(k, bytes), nil
}

// estimate is Time for an analysed group.
func (g *group) estimate(k Kind, bytes int64) Estimate {
	if g.nRanks == 1 || bytes == 0 {
		return Estimate{Algorithm: "none", Protocol: "none"}
	}
	var e Estimate
	switch k {
	case AllToAll:
		e = g.allToAll(bytes)
	case SendRecv:
		e = g.sendRecv(bytes)
	default:
		e = g.tuned(k, bytes)
	}
	e.setBW(k, bytes, g.nRanks)
	return e
}

func (e *Estimate) setBW(k Kind, bytes int64, n int) {
	if e.Seconds > 0 {
		e.AlgBW = float64(bytes) / e.Seconds
		e.BusBW = e.AlgBW * k.BusFactor(n)
	}
}

func archOf(name string) arch {
	switch name {
	case "volta", "turing":
		return archVolta
	case "hopper":
		return archHopper
	case "blackwell":
		return archBlackwell
	}
	// Ampere, and kinds NCCL has no constants for (custom kinds, AMD's
	// CDNA3 under RCCL): Ampere's, which enable no NVLS
	return archAmpere
}

// analyse reads the group's shape off the cluster: ranks, nodes, the
// slowest rank's links and the architecture of the oldest GPU (NCCL's
// minCompCap).
func analyse(c *devices.Cluster, grp []int) (*group, error) {
	if len(grp) == 0 {
		return nil, fmt.Errorf("%w: no devices", ErrBadGroup)
	}
	cv := c.Comm()
	seen := make(map[int]bool, len(grp))
	perNode := map[int32]int{}
	g := &group{nRanks: len(grp), arch: archBlackwell, nvlink: true, nvswitch: true,
		intra: math.Inf(1), path: math.Inf(1), net: math.Inf(1), cv: cv, members: grp}
	for _, d := range grp {
		if d < 0 || d >= len(c.Devices) {
			return nil, fmt.Errorf("%w: device %d (valid range: [0, %d))", ErrBadGroup, d, len(c.Devices))
		}
		if seen[d] {
			return nil, fmt.Errorf("%w: device %d twice", ErrBadGroup, d)
		}
		seen[d] = true
		perNode[cv.Node[d]]++
		if a := archOf(c.Devices[d].Kind.Arch); a < g.arch {
			g.arch = a
		}
		g.nvlink = g.nvlink && cv.IntraNVLink[d]
		g.nvswitch = g.nvswitch && cv.NVSwitch[d]
		g.net = math.Min(g.net, cv.NetBW[d]/1e9)
	}
	g.nNodes = len(perNode)
	g.ppn = float64(g.nRanks) / float64(g.nNodes)
	for n := range perNode {
		g.nodes = append(g.nodes, n)
	}
	sort.Slice(g.nodes, func(i, j int) bool { return g.nodes[i] < g.nodes[j] })
	for _, d := range grp {
		eff := pcieEfficiency
		if cv.IntraNVLink[d] {
			eff = nvlinkEfficiency[archOf(c.Devices[d].Kind.Arch)]
		}
		intra, path := cv.IntraBW[d], cv.IntraPath[d]
		if cv.IntraNVLink[d] && !cv.NVSwitch[d] {
			intra, path = meshLinks(c, d, grp, intra, path)
		}
		g.intra = math.Min(g.intra, intra*eff/1e9)
		g.path = math.Min(g.path, path*eff/1e9)
	}
	// the adapters a node may use: its ranks' rails (each GPU's share of
	// the node's adapters), at least one
	minPer := g.nRanks
	for _, k := range perNode {
		minPer = min(minPer, k)
	}
	d0 := grp[0]
	if nn := len(cv.NodeDevices[cv.Node[d0]]); nn > 0 && cv.NICs[d0] > 0 {
		g.nics = max(1, min(cv.NICs[d0], int(math.Round(float64(minPer)*float64(cv.NICs[d0])/float64(nn)))))
	}
	if g.nNodes > 1 && !(g.net > 0) {
		return nil, fmt.Errorf("%w: devices on %d nodes but no network adapter joins them", ErrBadGroup, g.nNodes)
	}
	if g.nNodes == 1 {
		g.net = 0
	}
	return g, nil
}

// meshLinks is the scale-up bandwidth of device d within group grp where
// its NVLinks join it to peers directly (a mesh such as the DGX-1's, not
// an NVSwitch): the sum and the fastest of its NVLinks to the group's
// other devices, as NCCL's search sees only the links among a
// communicator's GPUs (search.cc follows paths between the ranks' GPUs;
// the DGX-1's GPUs 0-3 have 4 of their 6 bricks among them). Where d has
// no NVLink to the group (its peers are reached some other way) it keeps
// intra and path, its links' figures.
func meshLinks(c *devices.Cluster, d int, grp []int, intra, path float64) (float64, float64) {
	top := c.Topology
	member := make(map[links.EndpointID]bool, len(grp))
	for _, x := range grp {
		if x != d {
			member[c.Devices[x].Endpoint] = true
		}
	}
	var sum, best float64
	for _, lid := range top.Out(c.Devices[d].Endpoint) {
		if l := &top.Links[lid]; l.Family == "nvlink" && member[l.To] {
			sum += l.Bandwidth
			best = math.Max(best, l.Bandwidth)
		}
	}
	if sum == 0 {
		return intra, path
	}
	return sum, best
}

// graph is the result of NCCL's topology search for one pattern: the
// channels and the bandwidth of each within and across nodes, GB/s.
type graph struct {
	nChannels        int
	bwIntra, bwInter float64
}

func (g *group) speeds(inter bool) []float64 {
	switch {
	case g.arch >= archBlackwell && inter:
		return sm100SpeedArrayInter
	case g.arch >= archBlackwell:
		return sm100SpeedArrayIntra
	case g.arch >= archHopper && inter:
		return sm90SpeedArrayInter
	case g.arch >= archHopper:
		return sm90SpeedArrayIntra
	case inter:
		return speedArrayInter
	}
	return speedArrayIntra
}

// channelsAt is how many channels of speed s the group's links carry:
// every channel passes through each rank's scale-up links (when a node
// has more than one rank) and crosses each node's adapters once per
// direction (search.cc follows the same accounting per path).
func (g *group) channelsAt(s float64) int {
	n := maxChannels
	if g.ppn > 1 || g.nNodes == 1 {
		n = min(n, int(g.intra/s+1e-9))
	}
	if g.nNodes > 1 {
		n = min(n, g.nics*int(g.net/s+1e-9))
	}
	return n
}

// ringGraph follows ncclTopoCompute for the ring pattern (search.cc): it
// tries the speeds from the fastest the links allow and keeps the
// largest channels x speed, stopping when the next speed falls below
// half of the best one's or the search is perfect; then
// ncclTopoDupChannels doubles the channels at half the speed when they
// are fast.
func (g *group) ringGraph() graph {
	// a channel's hop uses one connection: the NVSwitch bundle, or one
	// peer's links in a mesh (search.cc: a path's bandwidth)
	maxBw, totalBw := g.path, g.intra
	if g.nNodes > 1 {
		if g.ppn > 1 {
			maxBw = math.Min(g.path, g.net)
			totalBw = math.Min(g.intra, float64(g.nics)*g.net)
		} else {
			maxBw = g.net
			totalBw = float64(g.nics) * g.net
		}
	}
	var best graph
	for _, s := range g.speeds(g.nNodes > 1) {
		if s > maxBw || s > totalBw {
			continue
		}
		if best.nChannels > 0 && s/best.bwIntra <= .49 {
			break
		}
		if n := g.channelsAt(s); n > 0 && float64(n)*s > float64(best.nChannels)*best.bwIntra {
			best = graph{n, s, s}
		}
		if float64(best.nChannels)*best.bwIntra >= totalBw {
			break
		}
	}
	if best.nChannels == 0 {
		// slower than every speed of the array: one channel at the link's rate
		best = graph{1, maxBw, maxBw}
	}
	// ncclTopoDupChannels
	if best.bwIntra >= 25.0 && !(g.arch >= archHopper && best.bwIntra < 50.0 && best.nChannels > 4) {
		dup := min(best.nChannels*2, maxChannels)
		f := float64((dup + best.nChannels - 1) / best.nChannels)
		best = graph{dup, best.bwIntra / f, best.bwInter / f}
	}
	return best
}

// nvlsGraph follows the NVLS pattern's search: one channel per GPU of a
// node (up to NCCL_MAX_NVLS_ARITY), all required, at the fastest speed
// whose sum fits a GPU's NVLink bandwidth (and its adapter across
// nodes).
func (g *group) nvlsGraph() graph {
	ppn := int(g.ppn)
	n := min(maxNVLSArity, ppn)
	if n < 2 {
		return graph{}
	}
	maxBw := g.intra
	if g.nNodes > 1 {
		maxBw = math.Min(g.intra, g.net)
	}
	for _, s := range g.speeds(g.nNodes > 1) {
		if s <= maxBw && s*float64(n) <= g.intra {
			return graph{n, s, s}
		}
	}
	return graph{}
}

// tuned is NCCL's choice for the collectives of the tuning table
// (ncclTopoTuneModel and ncclTopoGetAlgoTime): the (algorithm, protocol)
// of least predicted time.
func (g *group) tuned(k Kind, bytes int64) Estimate {
	ring := g.ringGraph()
	graphs := [numAlgos]graph{algoTree: ring, algoRing: ring, algoPAT: ring}
	if g.nvswitch && g.nvlink && nvlsEfficiency[g.arch] > 0 {
		nv := g.nvlsGraph()
		graphs[algoNVLS], graphs[algoNVLSTree] = nv, nv
	}
	best := Estimate{Seconds: math.Inf(1)}
	for a := algo(0); a < numAlgos; a++ {
		for p := proto(0); p < numProtos; p++ {
			bw, lat := g.model(k, a, p, graphs[a])
			if !(bw > 0) {
				continue
			}
			t, fixed := g.algoTime(k, a, p, bw, lat, ring.nChannels, bytes)
			if t < best.Seconds {
				best = Estimate{Seconds: t, Algorithm: algoNames[a], Protocol: protoNames[p], Channels: graphs[a].nChannels, fixed: fixed}
			}
		}
	}
	return best
}

func log2i(n int) float64 {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return float64(l)
}

// model is the (algBw GB/s, latency us) of algorithm a with protocol p
// for collective k, or bw 0 when NCCL would not use it (tuning.cc).
func (g *group) model(k Kind, a algo, p proto, gr graph) (float64, float64) {
	if gr.nChannels == 0 {
		return 0, 0
	}
	switch k {
	case Broadcast:
		if a != algoRing {
			return 0, 0
		}
	case AllGather, ReduceScatter:
		if a != algoPAT && a != algoRing && a != algoNVLS {
			return 0, 0
		}
	case AllReduce:
		if a == algoPAT {
			return 0, 0
		}
	}
	if (a == algoNVLS || a == algoNVLSTree) && p != protoSimple {
		return 0, 0
	}
	if a == algoPAT && (p != protoSimple || g.nNodes != g.nRanks) {
		return 0, 0 // PAT: one GPU per node only
	}
	// enabled algorithms (tuning.cc): NVLS-tree needs several nodes;
	// NVLS alone across nodes needs CollNet, which is off
	if (a == algoNVLSTree && g.nNodes == 1) || (a == algoNVLS && g.nNodes > 1) {
		return 0, 0
	}
	// LL128 by default only over NVLink (or nothing) within nodes
	if p == protoLL128 && !g.nvlink && g.ppn > 1 {
		return 0, 0
	}
	n := g.nRanks
	nsteps := n
	switch k {
	case AllReduce:
		nsteps = 2 * (n - 1)
	case AllGather, ReduceScatter:
		nsteps = n - 1
	}
	ci := g.arch
	i2 := min(g.nNodes, 3) - 1
	i1 := int(ci)
	if g.nNodes > 1 {
		i1 = 0 // Intel host CPUs across nodes
	}
	llMaxBw := llMaxBws[i1][i2]
	bw := gr.bwIntra
	if g.nNodes > 2 {
		bw = gr.bwInter
	}
	if a == algoNVLS || a == algoNVLSTree {
		intraBw := gr.bwIntra * nvlsEfficiency[ci] * float64(gr.nChannels-1) / float64(gr.nChannels)
		if k == AllReduce {
			intraBw *= 2
		} else {
			intraBw *= (g.ppn - 1) / g.ppn
		}
		if g.nNodes == 1 {
			// one node: no network leg (the search raises bwInter with
			// bwIntra when there are no adapters, search.cc)
			bw = intraBw
		} else {
			interBw := gr.bwInter
			if g.nNodes <= 2 && a == algoNVLSTree {
				interBw *= 2
			}
			bw = math.Min(intraBw, interBw)
			if a == algoNVLSTree {
				bw = math.Min(bw, perChMaxNVLSTreeBws[ci][i2])
			}
		}
	}
	busBw := float64(gr.nChannels) * bw
	if a == algoRing && p == protoLL {
		busBw = math.Min(llMaxBw, busBw*.5)
	}
	if a == algoRing && p == protoLL128 {
		busBw = math.Min(busBw*0.92, float64(gr.nChannels)*perChMaxRingLL128Bws[ci][i2])
	}
	if a == algoTree && k == AllReduce {
		busBw = math.Min(busBw*.92, float64(gr.nChannels)*perChMaxTreeBws[ci][i2])
	}
	if a == algoTree && p == protoLL {
		busBw = math.Min(busBw/3.8, llMaxBw)
	}
	if a == algoTree && p == protoLL128 {
		f := 120.0 / 128.0
		if g.nNodes == 1 {
			f = 7.0 / 9.0
		}
		busBw = math.Min(busBw*f, float64(gr.nChannels)*perChMaxTreeLL128Bws[ci][i2])
	}
	if a == algoPAT {
		busBw *= .75
	}
	if (a == algoNVLS) && (k == AllGather || k == ReduceScatter) && g.nNodes > 1 {
		busBw = 0
	}
	// bus bandwidth to algorithm bandwidth
	if !(a != algoRing && (k == AllGather || k == ReduceScatter)) {
		ratio := .5
		if a == algoRing || a == algoNVLS || a == algoNVLSTree {
			ratio = float64(n) / float64(nsteps)
		}
		busBw *= ratio
	}
	// latency
	intraHw := hwPCI
	if g.nvlink {
		intraHw = hwNVLink
	}
	lat := baseLatencies[a][p]
	intraLat := hwLatencies[intraHw][a][p]
	interLat := hwLatencies[hwNet][a][p]
	if g.ppn == 1 {
		interLat = hwLatencies[hwNet][algoTree][p]
	}
	switch a {
	case algoRing:
		h := intraHw
		if g.nNodes > 1 {
			h = hwNet
		}
		if k == Broadcast {
			lat += hwLatencies[h][a][p] // sameChannels
		} else {
			no := 0.0
			if g.nNodes > 1 {
				no = netOverhead
				if p == protoSimple {
					no *= 3
				}
			}
			il := math.Max(intraLat, no)
			inter := 0
			if g.nNodes > 1 {
				inter = g.nNodes - 1
				if k == AllReduce {
					inter = 2 * (g.nNodes - 1)
				}
			}
			lat += float64(nsteps-inter)*il + float64(inter)*interLat
		}
	case algoTree:
		if k == AllReduce {
			lat += 2 * ((float64(g.nRanks)/float64(g.nNodes)-1)*intraLat + log2i(g.nNodes)*interLat)
		}
	case algoNVLS:
		lat = intraLat
		if g.nNodes > 1 {
			lat += interLat
		}
	case algoNVLSTree:
		lat += intraLat + 2*log2i(g.nNodes)*interLat
	case algoPAT:
		if k == AllGather || k == ReduceScatter {
			lat += log2i(g.nNodes)*(interLat/3.5) + float64(g.nRanks)*2.8
		}
	}
	return busBw, lat
}

// algoTime is ncclTopoGetAlgoTime for one operation, in seconds, and its
// latency part.
func (g *group) algoTime(k Kind, a algo, p proto, bw, lat float64, nChannels int, bytes int64) (float64, float64) {
	logSize := -1
	if b := bytes >> 6; b > 0 {
		logSize = int(log2i(int(min(b, math.MaxInt64))))
	}
	if a == algoTree && k == AllReduce && logSize >= 0 && logSize < 23 {
		bw *= treeCorrectionFactor[p][logSize]
	}
	if a == algoRing && p == protoSimple && g.nNodes > 1 && k == AllReduce && bytes/int64(nChannels*g.nRanks) >= 64 {
		lat *= 1.4 // plateau effect of ring (compute capability >= 80)
		if g.arch < archAmpere {
			lat *= 1.9 / 1.4
		}
	}
	us := lat + float64(bytes)/(1000*bw)
	return us * 1e-6, lat * 1e-6
}

// p2pLatency is the fixed cost of a send/recv step in microseconds: the
// Simple protocol's base latency plus one hop over the link class
// (tuning.cc constants of the ring, which p2p operations share).
func (g *group) p2pLatency(inter bool) float64 {
	h := hwPCI
	if g.nvlink {
		h = hwNVLink
	}
	if inter {
		h = hwNet
	}
	return baseLatencies[algoRing][protoSimple] + hwLatencies[h][algoRing][protoSimple]
}

// sendRecv moves bytes from the first to the second rank: over the
// scale-up links within a node, over the sender's adapter across nodes.
func (g *group) sendRecv(bytes int64) Estimate {
	inter := g.nNodes > 1
	bw := g.intra
	if inter {
		bw = g.net
	}
	lat := g.p2pLatency(inter)
	us := lat + float64(bytes)/(1000*bw)
	return Estimate{Seconds: us * 1e-6, Algorithm: "p2p", Protocol: protoNames[protoSimple], Channels: 1, fixed: lat * 1e-6}
}

// allToAll is NCCL's all-to-all, a group of send/recv to every peer:
// each rank sends bytes/n to each other rank, its node's peers over the
// scale-up links and the rest over its adapter share, both at once. When
// the group's nodes sit under different leaf switches, the traffic that
// leaves a leaf shares its uplinks (LeafUp of the downlink rate) with
// the rest of the leaf's ports (all busy: an all-to-all loads every
// rank alike).
func (g *group) allToAll(bytes int64) Estimate {
	n := float64(g.nRanks)
	piece := float64(bytes) / n
	intraBytes := piece * (g.ppn - 1)
	interBytes := piece * (n - g.ppn)
	t := intraBytes / (1000 * g.intra)
	if interBytes > 0 {
		net := g.net * g.leafFactor()
		t = math.Max(t, interBytes/(1000*net))
	}
	lat := g.p2pLatency(g.nNodes > 1)
	us := lat + t
	return Estimate{Seconds: us * 1e-6, Algorithm: "p2p", Protocol: protoNames[protoSimple], Channels: 1, fixed: lat * 1e-6}
}

// leafFactor is the share of its adapter rate a rank keeps for
// traffic to the group's other nodes when that traffic crosses
// oversubscribed leaf uplinks: 1 when every node shares the rank's leaf
// or the leaves are non-blocking, else uplink/downlink over the fraction
// of the other nodes outside the leaf (worst over the ranks).
func (g *group) leafFactor() float64 {
	f := 1.0
	if g.nNodes < 2 {
		return f
	}
	cv := g.cv
	checked := map[int32]bool{}
	for _, d := range g.members {
		lf := cv.Leaf[d]
		if lf < 0 || checked[lf] {
			continue
		}
		checked[lf] = true
		up := cv.LeafUp[lf]
		if up >= 1 || !cv.SpansLeaves(lf, g.nodes) {
			continue
		}
		outside := 0
		for _, nd := range g.nodes {
			ln := cv.LeafNodes[lf]
			i := sort.Search(len(ln), func(i int) bool { return ln[i] >= nd })
			if i == len(ln) || ln[i] != nd {
				outside++
			}
		}
		frac := float64(outside) / float64(g.nNodes-1)
		if frac > 0 {
			f = math.Min(f, math.Min(1, up/frac))
		}
	}
	return f
}
