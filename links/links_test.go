package links_test

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/links"
)

func TestKindByName(t *testing.T) {
	t.Parallel()
	for _, n := range links.KindNames() {
		k, err := links.KindByName(n)
		if err != nil || k.Name != n || !(k.Bandwidth > 0) || k.Latency < 0 {
			t.Fatalf("kind %s: %+v, %v", n, k, err)
		}
	}
	if _, err := links.KindByName("nvlink9"); !errors.Is(err, links.ErrUnknownKind) {
		t.Fatalf("unknown kind: %v", err)
	}
	// vendor figures the presets rely on
	if links.PCIe3.Bandwidth != 15.75e9 || links.NVLink2.Bandwidth != 25e9 || links.IBEDR.Bandwidth != 12.5e9 {
		t.Fatal("vendor figures changed")
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	topo := links.NewTopology()
	a := topo.MustEndpoint("a", links.GPU)
	b := topo.MustEndpoint("b", links.GPU)
	c := topo.MustEndpoint("c", links.GPU)
	sw := topo.MustEndpoint("sw", links.PCIeSwitch)
	for _, e := range []links.EndpointID{a, b, c} {
		if err := topo.Connect(e, sw, links.PCIe3, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := topo.Connect(a, b, links.NVLink2, 2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		src, dst links.EndpointID
		hops     int
		kind     string
	}{
		{"nvlink beats the switch", a, b, 1, "nvlink2"},
		{"through the switch", a, c, 2, "pcie3"},
		{"no transit through a GPU", c, b, 2, "pcie3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := topo.Route(tc.src, tc.dst)
			if err != nil {
				t.Fatal(err)
			}
			if len(r) != tc.hops || topo.Links[r[0]].Kind != tc.kind {
				t.Fatalf("route %v", r)
			}
		})
	}
	lone := topo.MustEndpoint("lone", links.GPU)
	if _, err := topo.Route(a, lone); !errors.Is(err, links.ErrNoRoute) {
		t.Fatalf("disconnected: %v", err)
	}
	// uncontended transfer time through the switch: two latencies, bytes once
	r, _ := topo.Route(a, c)
	const b64 = 1 << 26
	want := 2*links.PCIe3.Latency + float64(b64)/links.PCIe3.Bandwidth
	if got := topo.TransferTime(r, b64); !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-12) {
		t.Fatalf("transfer time %g, want %g", got, want)
	}
}

func TestConnectErrors(t *testing.T) {
	t.Parallel()
	topo := links.NewTopology()
	a := topo.MustEndpoint("a", links.GPU)
	b := topo.MustEndpoint("b", links.GPU)
	for name, err := range map[string]error{
		"width 0":       topo.Connect(a, b, links.PCIe3, 0),
		"self link":     topo.Connect(a, a, links.PCIe3, 1),
		"zero bw":       topo.ConnectCustom(a, b, "x", "x", 0, 0),
		"negative lat":  topo.ConnectCustom(a, b, "x", "x", 1, -1),
		"out of range":  topo.ConnectCustom(a, 9, "x", "x", 1, 0),
		"duplicate end": func() error { _, err := topo.AddEndpoint("a", links.GPU); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
