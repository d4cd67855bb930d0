package links

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"placesim/internal/heap"
)

// routeTreeGeneric is RouteTree with the project's generic heap, as it
// was before distHeap: the reference TestRouteTreeHeap holds it to.
func (t *Topology) routeTreeGeneric(src EndpointID) []LinkID {
	n := len(t.Endpoints)
	dist := make([]float64, n)
	hops := make([]int, n)
	via := make([]LinkID, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		via[i] = -1
	}
	dist[src] = 0
	pq := heap.New(distBefore)
	pq.Push(distItem{src, 0, 0})
	for pq.Len() > 0 {
		cur := pq.Pop()
		if cur.d > dist[cur.e] || (cur.d == dist[cur.e] && cur.h > hops[cur.e]) {
			continue
		}
		if cur.e != src && t.Endpoints[cur.e].Type == GPU {
			continue
		}
		for _, lid := range t.out[cur.e] {
			l := t.Links[lid]
			nd := cur.d + l.HopTime(RouteRefBytes)
			nh := cur.h + 1
			if nd < dist[l.To] || (nd == dist[l.To] && nh < hops[l.To]) {
				dist[l.To], hops[l.To], via[l.To] = nd, nh, lid
				pq.Push(distItem{l.To, nd, nh})
			}
		}
	}
	via[src] = -1
	return via
}

// TestRouteTreeHeap: RouteTree (with distHeap, internal/heap's heap
// written out for its items) gives every source the tree the generic heap
// gives, on random fabrics of GPUs, switches and NICs with links of equal
// and of different speeds (many equal-distance ties).
func TestRouteTreeHeap(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			top := NewTopology()
			var ids []EndpointID
			kinds := []Kind{PCIe4, NVLink3, IBHDR}
			for i := 0; i < 60; i++ {
				typ := []EndpointType{GPU, PCIeSwitch, NIC, NetSwitch}[r.IntN(4)]
				ids = append(ids, top.MustEndpoint(fmt.Sprintf("e%d", i), typ))
			}
			for i := 1; i < len(ids); i++ {
				for k := 0; k < 1+r.IntN(3); k++ {
					j := r.IntN(i)
					if err := top.Connect(ids[i], ids[j], kinds[r.IntN(len(kinds))], 1); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, src := range ids {
				got, err := top.RouteTree(src)
				if err != nil {
					t.Fatal(err)
				}
				if want := top.routeTreeGeneric(src); !slices.Equal(got, want) {
					t.Fatalf("source %d: tree %v, the generic heap's %v", src, got, want)
				}
			}
		})
	}
}
