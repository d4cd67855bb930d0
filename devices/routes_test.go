package devices_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/links"
)

// bigClusterYAML is a cluster file of n V100s, 8 per node behind a PCIe
// switch, the nodes' switches joined to one InfiniBand switch.
func bigClusterYAML(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "name: big%d\ndevices:\n", n)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: g%d, kind: V100-16GB}\n", i)
	}
	b.WriteString("endpoints:\n  - {name: core, type: net-switch}\n")
	nodes := (n + 7) / 8
	for k := 0; k < nodes; k++ {
		fmt.Fprintf(&b, "  - {name: sw%d, type: pcie-switch}\n", k)
	}
	b.WriteString("links:\n")
	for k := 0; k < nodes; k++ {
		fmt.Fprintf(&b, "  - {between: [sw%d, core], kind: ib-edr}\n", k)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {between: [g%d, sw%d], kind: pcie3, width: 16}\n", i, i/8)
	}
	return []byte(b.String())
}

// bestPath finds by exhaustive search the least (time, hops) of any
// simple path from src to dst through no other GPU: the reference the
// route trees are held against.
func bestPath(tp *links.Topology, src, dst links.EndpointID) (float64, int) {
	best, bestHops := math.Inf(1), 0
	seen := make([]bool, len(tp.Endpoints))
	var walk func(e links.EndpointID, d float64, h int)
	walk = func(e links.EndpointID, d float64, h int) {
		if e == dst {
			if d < best || (d == best && h < bestHops) {
				best, bestHops = d, h
			}
			return
		}
		if e != src && tp.Endpoints[e].Type == links.GPU {
			return
		}
		seen[e] = true
		for _, lid := range tp.Out(e) {
			l := tp.Links[lid]
			if !seen[l.To] {
				walk(l.To, d+l.HopTime(links.RouteRefBytes), h+1)
			}
		}
		seen[e] = false
	}
	walk(src, 0, 0)
	return best, bestHops
}

// TestRoutesOptimal checks every route of every preset and of a small
// cluster file: a chain of links from the source to the destination
// through no other GPU, as fast (then as short) as the best simple path.
func TestRoutesOptimal(t *testing.T) {
	var cs []*devices.Cluster
	for _, p := range devices.Presets() {
		c, err := devices.NewPreset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	c, err := devices.ParseCluster(bigClusterYAML(20))
	if err != nil {
		t.Fatal(err)
	}
	cs = append(cs, c)
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			tp := c.Topology
			for i := range c.Devices {
				for j := range c.Devices {
					if i == j {
						continue
					}
					src, dst := c.Devices[i].Endpoint, c.Devices[j].Endpoint
					r := c.Route(i, j)
					d, at := 0.0, src
					for k, lid := range r {
						l := tp.Links[lid]
						if l.From != at || (k > 0 && tp.Endpoints[at].Type == links.GPU) {
							t.Fatalf("route %d->%d: %v is not a chain through no other GPU", i, j, r)
						}
						d += l.HopTime(links.RouteRefBytes)
						at = l.To
					}
					if at != dst {
						t.Fatalf("route %d->%d ends at %d", i, j, at)
					}
					wantD, wantH := bestPath(tp, src, dst)
					if !scalar.EqualWithinAbsOrRel(d, wantD, 0, routeTol) || len(r) > wantH {
						t.Fatalf("route %d->%d: time %g over %d hops, best %g over %d", i, j, d, len(r), wantD, wantH)
					}
					again, err := tp.Route(src, dst)
					if err != nil || !reflect.DeepEqual(again, r) {
						t.Fatalf("route %d->%d: cluster %v, topology %v (%v)", i, j, r, again, err)
					}
				}
			}
		})
	}
}

// routeTol is the relative tolerance on a route's time against the best
// (sums of the same hop times in another order).
const routeTol = 1e-12

// TestRoutesNoFabric: a cluster without one fabric touching every device
// is checked pair by pair; a missing route names both devices.
func TestRoutesNoFabric(t *testing.T) {
	ok := "name: ring\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}, {name: c, kind: V100-16GB}]\n" +
		"links: [{between: [a, b], kind: nvlink2}, {between: [b, c], kind: nvlink2}, {between: [c, a], kind: nvlink2}]\n"
	if _, err := devices.ParseCluster([]byte(ok)); err != nil {
		t.Fatalf("a ring of direct links: %v", err)
	}
	// a-b and b-c but no a-c: a route from a to c would pass through GPU b
	bad := "name: line\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}, {name: c, kind: V100-16GB}]\n" +
		"links: [{between: [a, b], kind: nvlink2}, {between: [b, c], kind: nvlink2}]\n"
	_, err := devices.ParseCluster([]byte(bad))
	if err == nil || !strings.Contains(err.Error(), "no route from a to c") {
		t.Fatalf("err %v, want no route from a to c", err)
	}
}

// BenchmarkClusterBuild parses and builds a cluster file of n devices and
// routes one transfer from every node's first GPU (what round-robin on a
// small model needs); devices/s is reported.
func BenchmarkClusterBuild(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		data := bigClusterYAML(n)
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c, err := devices.ParseCluster(data)
				if err != nil {
					b.Fatal(err)
				}
				_ = c.TransferTime(0, n-1, 1<<20)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "devices/s")
		})
	}
}
