package engine

import (
	"fmt"
	"reflect"

	"placesim/devices"
	"placesim/links"
)

// Simulation by symmetry (issue 27): data-parallel replicas that run the
// same plan on identical devices, over links that mirror one another,
// do the same thing at the same times. The engine then plays replica 0
// alone (its compute nodes and its own steps of every all-reduce) and
// reports what it measured for every replica. A chunk a replica receives
// from its ring neighbour is, by symmetry, the chunk it sends to its
// other neighbour at the same instant over a route of the same links: a
// mirrored transfer (sideEdge.via) plays it on the representative's own
// route and lands the copy on its own device. Where the replicas differ
// (mixed device kinds or memory, a straggler, a slow link, an uneven
// placement, a tree all-reduce, a trace that must record every replica)
// or their transfers share a link (one adapter for a node's GPUs, say:
// FCFS then serves the peers one after another, which no one replica's
// transfer shows; a representative carrying k times the bytes ran the
// 2-node V100 golden case 0.12 % slower with 7.7 % less peak memory on
// one GPU than every replica played) every replica is played, and the
// result says why (Result.Symmetry).
//
// Where identical replicas' events tie at one instant, the full
// simulation runs them in replica order: a ring neighbour's chunk starts
// landing on a GPU before that GPU's own step at the same instant frees
// its inputs, on some replicas and not on others (one ring chunk more at
// the peak; in a 2-replica ring only the first replica has it). The
// representative keeps the order of the replicas that have it
// (finish, sendFirst), so its peak is the highest any replica reaches.

// SymmetryStats says how a data-parallel step's replicas were played.
type SymmetryStats struct {
	// Reduced: one representative per class of identical replicas was
	// played, and its figures stand for every replica of its class.
	Reduced bool `json:"reduced"`
	// Classes lists, when Reduced, each representative and the replicas
	// it stands for (its own included, ascending).
	Classes []ReplicaClass `json:"classes,omitempty"`
	// Fallback says, when not Reduced, why every replica was played
	// (empty when Options.FullReplicas asked for it).
	Fallback string `json:"fallback,omitempty"`
}

// ReplicaClass is a set of identical data-parallel replicas played by one
// representative.
type ReplicaClass struct {
	Representative int   `json:"representative"`
	Replicas       []int `json:"replicas"`
}

// peerClass is a class of transfers every replica makes alike at the
// same time: replica r's goes from device src[r] to device dst[r]; the
// representative plays replica 0's.
type peerClass struct {
	what     string
	src, dst []int
}

// replicasDiffer says why the replicas of layout l cannot stand for one
// another on their devices ("" when their devices are identical and no
// replica is made slower).
func replicasDiffer(c *devices.Cluster, p *Plan, l *layout) string {
	if m := p.DataParallel.Collective; m != nil && m.SpeedSpread > 0 {
		return fmt.Sprintf("the slowest replica computes %.2f %% slower than the others (dataParallel.collective.speedSpread = %g)",
			100*m.SpeedSpread*ExpectedMaxNormal(l.reps), m.SpeedSpread)
	}
	same := map[[2]*devices.KernelTable]bool{}
	for r := 1; r < l.reps; r++ {
		for j, rd := range l.repDev[r] {
			d := l.used[j]
			a, b := &c.Devices[d], &c.Devices[rd]
			if a.Memory != b.Memory {
				return fmt.Sprintf("replica %d's device %s has %d bytes of memory, replica 0's %s %d", r, b.Name, b.Memory, a.Name, a.Memory)
			}
			if !sameKind(&a.Kind, &b.Kind, same) {
				return fmt.Sprintf("replica %d's device %s (%s) is not of replica 0's %s's kind (%s) or figures", r, b.Name, b.Kind.Name, a.Name, a.Kind.Name)
			}
		}
	}
	return ""
}

// sameKind reports whether kinds a and b have the same figures (their
// kernel tables compared by value, remembered in same by pointer pair).
func sameKind(a, b *devices.Kind, same map[[2]*devices.KernelTable]bool) bool {
	if *a == *b {
		return true
	}
	x, y := *a, *b
	x.Kernels, y.Kernels = nil, nil
	if x != y || (a.Kernels == nil) != (b.Kernels == nil) {
		return false
	}
	key := [2]*devices.KernelTable{a.Kernels, b.Kernels}
	eq, ok := same[key]
	if !ok {
		eq = reflect.DeepEqual(*a.Kernels, *b.Kernels)
		same[key] = eq
	}
	return eq
}

// ringClass records, when replica 0 stands for its peers, the transfers
// of one step of rings run at once (every member sends to the next in its
// ring); rings must cover every replica.
func (u *unrolled) ringClass(what string, devs []int, rings [][]int, steps int) {
	if steps == 0 {
		return
	}
	pc := peerClass{what: what, src: make([]int, len(devs)), dst: make([]int, len(devs))}
	for _, ring := range rings {
		for i, r := range ring {
			pc.src[r], pc.dst[r] = devs[r], devs[ring[(i+1)%len(ring)]]
		}
	}
	u.peers = append(u.peers, pc)
}

// checkPeers decides whether replica 0's transfers stand for every
// replica's: each class of transfers (the plan's own between its devices,
// each all-reduce phase's) must cross, in every replica, a route of as
// many links of the same figures, each of replica 0's links standing for
// one link per replica (a map σ_r, one to one), and no link may carry transfers
// standing for two different links of replica 0 or for replica 0's link
// in two replicas (a shared link). It sets u.images, the links each of
// replica 0's stands for. It returns why not, or "".
func (u *unrolled) checkPeers() string {
	c, l := u.c, u.l
	classes := u.peers
	type pair struct{ a, b int }
	var pairs []pair
	seen := map[pair]bool{}
	for _, e := range u.g.Edges {
		a, b := u.plan.Device[e.From], u.plan.Device[e.To]
		if p := (pair{a, b}); a != b && !seen[p] {
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	for _, p := range pairs {
		pc := peerClass{what: "the plan's transfers", src: make([]int, u.reps), dst: make([]int, u.reps)}
		for r := range u.reps {
			pc.src[r], pc.dst[r] = l.dev(r, p.a), l.dev(r, p.b)
		}
		classes = append(classes, pc)
	}
	top := c.Topology
	name := func(lid int32) string {
		k := &top.Links[lid]
		return fmt.Sprintf("%s -> %s (%s)", top.Endpoints[k.From].Name, top.Endpoints[k.To].Name, k.Kind)
	}
	sigma := map[int64]int32{} // replica << 32 | replica 0's link -> the link standing in for it
	owner := map[int32]int32{} // link -> replica 0's link it stands in for
	var links []int32          // replica 0's links, in order of first use
	for _, pc := range classes {
		r0 := c.Route(pc.src[0], pc.dst[0])
		for r := range u.reps {
			rr := r0
			if r > 0 {
				rr = c.Route(pc.src[r], pc.dst[r])
			}
			if len(rr) != len(r0) {
				return fmt.Sprintf("%s: replica %d's route %s -> %s crosses %d links, replica 0's %s -> %s %d",
					pc.what, r, c.Devices[pc.src[r]].Name, c.Devices[pc.dst[r]].Name, len(rr), c.Devices[pc.src[0]].Name, c.Devices[pc.dst[0]].Name, len(r0))
			}
			for i := range r0 {
				a, b := int32(r0[i]), int32(rr[i])
				if !sameLink(top, a, b) {
					return fmt.Sprintf("%s: replica %d's link %s differs from replica 0's %s (bandwidth %g vs %g B/s, latency %g vs %g s)",
						pc.what, r, name(b), name(a), top.Links[b].Bandwidth, top.Links[a].Bandwidth, top.Links[b].Latency, top.Links[a].Latency)
				}
				key := int64(r)<<32 | int64(a)
				if t, ok := sigma[key]; ok {
					if t != b {
						return fmt.Sprintf("%s: replica %d crosses %s where replica 0 crosses %s, elsewhere %s", pc.what, r, name(b), name(a), name(t))
					}
					continue
				}
				sigma[key] = b
				if o, ok := owner[b]; ok {
					if o != a {
						return fmt.Sprintf("%s: link %s carries transfers standing for replica 0's %s and %s", pc.what, name(b), name(o), name(a))
					}
					return fmt.Sprintf("%s: link %s is shared by the transfers of several replicas", pc.what, name(b))
				}
				if r == 0 {
					links = append(links, a)
				}
				owner[b] = a
			}
		}
	}
	u.images = make(map[int32][]int32, len(links))
	for _, a := range links {
		img := make([]int32, u.reps)
		for r := range img {
			img[r] = sigma[int64(r)<<32|int64(a)]
		}
		u.images[a] = img
	}
	return ""
}

// sameLink reports whether links a and b time a transfer alike: the same
// bandwidth and latency, leaving and entering endpoints that forward
// alike (cut-through or store-and-forward).
func sameLink(top *links.Topology, a, b int32) bool {
	if a == b {
		return true
	}
	x, y := &top.Links[a], &top.Links[b]
	return x.Bandwidth == y.Bandwidth && x.Latency == y.Latency &&
		top.Endpoints[x.From].StoreAndForward() == top.Endpoints[y.From].StoreAndForward() &&
		top.Endpoints[x.To].StoreAndForward() == top.Endpoints[y.To].StoreAndForward()
}

// standFor completes r, measured on the played replicas, for every
// replica: when replica 0 stood for its peers, each replica's devices get
// its figures (their own names and capacities), each link standing for
// one of replica 0's its traffic, and the step's transfers and bytes
// count every replica's.
// It says how the replicas were played (r.Symmetry).
func (s *sim) standFor(r *Result) {
	u := s.un
	if u.reps < 2 {
		return
	}
	if u.played == u.reps {
		if u.fallback != "" || s.opt.FullReplicas {
			r.Symmetry = &SymmetryStats{Fallback: u.fallback}
		}
		return
	}
	for rep := 1; rep < u.reps; rep++ {
		for j, rd := range u.l.repDev[rep] {
			d := u.l.used[j]
			dst := &r.Devices[rd]
			name, capacity := dst.Name, dst.Capacity
			*dst = r.Devices[d]
			dst.Name, dst.Capacity = name, capacity
		}
	}
	top := s.c.Topology
	of := make(map[int32]int32, len(u.images)) // link -> replica 0's link it stands for
	for a, img := range u.images {
		for _, b := range img {
			of[b] = a
		}
	}
	r.Links = r.Links[:0]
	for lid := range s.links {
		a, ok := of[int32(lid)]
		if !ok {
			a = int32(lid)
		}
		st := s.links[a].stats
		if st.Transfers == 0 {
			continue
		}
		l := top.Links[lid]
		st.From, st.To, st.Kind = top.Endpoints[l.From].Name, top.Endpoints[l.To].Name, l.Kind
		r.Links = append(r.Links, st)
	}
	r.TransferCount *= u.reps
	r.BytesMoved *= int64(u.reps)
	all := make([]int, u.reps)
	for i := range all {
		all[i] = i
	}
	r.Symmetry = &SymmetryStats{Reduced: true, Classes: []ReplicaClass{{Representative: 0, Replicas: all}}}
}
