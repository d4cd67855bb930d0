package devices_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"placesim/devices"
)

func TestParseSystem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec        string
		gpus, nodes int // GPUs built, CommView nodes
		gpu         string
		nvlinkBW    float64 // per GPU, bytes/s per direction
		netBW       float64 // per GPU
	}{
		{"dgx-h100:nodes=2", 16, 2, "H100-80GB", 18 * 25e9, 50e9},
		{"dgx-a100-80gb:nodes=3", 24, 3, "A100-80GB", 12 * 25e9, 25e9},
		{"dgx-b200", 8, 1, "B200", 18 * 50e9, 50e9},
		{"gb200-nvl72:racks=2", 144, 2, "GB200", 18 * 50e9, 50e9},
		{"gb200-nvl72:racks=15,gpus=1024", 1024, 15, "GB200", 18 * 50e9, 50e9},
		{"gb200-nvl72:racks=1,nvlink-domain=8", 72, 9, "GB200", 18 * 50e9, 50e9},
		{"system:gpu=MI300X,nodes=2,nvlink=xgmi,nvlink-links=7,adapter-speed=400Gb/s,network=ethernet", 16, 2, "MI300X", 7 * 64e9, 50e9},
		{"system:gpu=H200,nodes=4,gpus-per-node=4,adapters=2,adapter-speed=800Gb/s,fabric=fat-tree,oversubscription=2:1", 16, 4, "H200", 18 * 25e9, 2 * 100e9 / 4},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			c, err := devices.Resolve(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Devices) != tc.gpus || c.Devices[0].Kind.Name != tc.gpu {
				t.Fatalf("%d devices of %s, want %d of %s", len(c.Devices), c.Devices[0].Kind.Name, tc.gpus, tc.gpu)
			}
			cv := c.Comm()
			if len(cv.NodeDevices) != tc.nodes {
				t.Fatalf("%d nodes, want %d", len(cv.NodeDevices), tc.nodes)
			}
			for d := range c.Devices {
				if !cv.IntraNVLink[d] || !cv.NVSwitch[d] || math.Abs(cv.IntraBW[d]-tc.nvlinkBW) > 1 || math.Abs(cv.NetBW[d]-tc.netBW) > 1 {
					t.Fatalf("device %d: nvlink %v/%v %g B/s, net %g B/s; want %g, %g", d, cv.IntraNVLink[d], cv.NVSwitch[d], cv.IntraBW[d], cv.NetBW[d], tc.nvlinkBW, tc.netBW)
				}
			}
			// the canonical form builds the same system
			sp, err := devices.ParseSystem(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			sp2, err := devices.ParseSystem(sp.String())
			if err != nil || sp2.String() != sp.String() {
				t.Fatalf("round trip %q: %q, %v", sp.String(), sp2.String(), err)
			}
			// every pair of GPUs has a route
			if r := c.Route(0, len(c.Devices)-1); len(r) == 0 {
				t.Fatal("no route from the first GPU to the last")
			}
		})
	}
}

// Leaves: rail-optimised nodes under one leaf per rail; a 4:1 fat-tree's
// leaves carry a quarter of their ports' bandwidth up.
func TestSystemFabric(t *testing.T) {
	t.Parallel()
	c, err := devices.NewSystem("dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4")
	if err != nil {
		t.Fatal(err)
	}
	cv := c.Comm()
	if len(cv.LeafNodes) != 2 {
		t.Fatalf("%d leaves, want 2 (4 nodes of 8 adapters on a 32-port leaf)", len(cv.LeafNodes))
	}
	for i, up := range cv.LeafUp {
		if math.Abs(up-0.25) > 1e-12 {
			t.Fatalf("leaf %d: up/down %g, want 0.25", i, up)
		}
	}
	if !cv.SpansLeaves(cv.Leaf[0], []int32{0, 7}) || cv.SpansLeaves(cv.Leaf[0], []int32{0, 3}) {
		t.Fatal("nodes 0-3 share a leaf, 7 does not")
	}
	r, err := devices.NewSystem("dgx-h100:nodes=64")
	if err != nil {
		t.Fatal(err)
	}
	rv := r.Comm()
	if len(rv.LeafNodes) != 16 { // 8 rails x 2 groups of 32 nodes
		t.Fatalf("rail-optimised: %d leaves, want 16", len(rv.LeafNodes))
	}
	if rv.Leaf[0] == rv.Leaf[1] || rv.Leaf[0] != rv.Leaf[8] {
		t.Fatal("rail-optimised: GPU 0 of nodes 0 and 1 share a leaf, GPUs 0 and 1 of a node do not")
	}
}

func TestParseSystemErrors(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"dgx-h200:nodes=2":                 "unknown family",
		"dgx-h100:nodes=0":                 "nodes",
		"dgx-h100:nodes=x":                 "nodes",
		"dgx-h100:racks=2":                 "racks",
		"gb200-nvl72:nodes=2":              "nodes",
		"dgx-h100:nodes=2,color=red":       "unknown key",
		"dgx-h100:nodes=2,nodes=3":         "twice",
		"dgx-h100:nodes":                   "key=value",
		"dgx-h100:gpu=V200":                "gpu",
		"dgx-h100:gpu=CPU":                 "accelerator",
		"dgx-h100:nvlink-domain=12":        "multiple",
		"dgx-h100:nodes=2,gpus=17":         "gpus",
		"dgx-h100:fabric=torus":            "fabric",
		"dgx-h100:oversubscription=0.5":    "oversubscription",
		"dgx-h100:adapter-speed=fast":      "adapter-speed",
		"dgx-h100:nodes=2,adapters=0":      "adapters",
		"dgx-h100:fabric=fat-tree,leaf=4":  "leaf",
		"dgx-h100:network=myrinet":         "network",
		"system:nodes=100000000":           "nodes",
		"dgx-h100:nodes=16385,gpus=131073": "gpus",
	} {
		_, err := devices.NewSystem(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", spec, err, want)
		}
	}
}

// BenchmarkSystem16k builds a 16,384-GPU DGX H100 system (2,048 nodes,
// rail-optimised) with its CommView; the brief's target is < 1 s and
// < 500 MB.
func BenchmarkSystem16k(b *testing.B) {
	b.ReportAllocs()
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		c, err := devices.NewSystem("dgx-h100:nodes=2048")
		if err != nil {
			b.Fatal(err)
		}
		c.Comm()
		runtime.ReadMemStats(&m1)
		if live := m1.HeapAlloc - m0.HeapAlloc; live > peak {
			peak = live
		}
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(peak)/1e6, "MB-live")
}

func TestSetSystemSetting(t *testing.T) {
	t.Parallel()
	got, err := devices.SetSystemSetting("gb200-nvl72:racks=15,gpus=1024", "nvlink-domain", "8")
	if err != nil || got != "gb200-nvl72:racks=15,gpus=1024,nvlink-domain=8" {
		t.Fatalf("%q %v", got, err)
	}
	got, err = devices.SetSystemSetting("dgx-h100:nodes=2,oversubscription=2", "oversubscription", "4:1")
	if err != nil || got != "dgx-h100:nodes=2,oversubscription=4:1" {
		t.Fatalf("replace: %q %v", got, err)
	}
	for _, tc := range [][3]string{
		{"8xH100-nvswitch", "gpu", "B200"},
		{"dgx-h100", "colour", "red"},
		{"dgx-h100", "nvlink-domain", "12"},
	} {
		if _, err := devices.SetSystemSetting(tc[0], tc[1], tc[2]); err == nil {
			t.Errorf("%v: no error", tc)
		}
	}
}

// The MI300X platform: a full mesh, one Infinity Fabric link per pair, no
// switch (so no NVLS).
func TestMeshSystem(t *testing.T) {
	t.Parallel()
	c, err := devices.NewSystem("mi300x:nodes=2")
	if err != nil {
		t.Fatal(err)
	}
	cv := c.Comm()
	if len(c.Devices) != 16 || len(cv.NodeDevices) != 2 {
		t.Fatalf("%d devices in %d nodes", len(c.Devices), len(cv.NodeDevices))
	}
	for d := range c.Devices {
		if cv.NVSwitch[d] || !cv.IntraNVLink[d] || math.Abs(cv.IntraBW[d]-7*64e9) > 1 || math.Abs(cv.IntraPath[d]-64e9) > 1 {
			t.Fatalf("device %d: switch %v, %g B/s in all, %g per peer", d, cv.NVSwitch[d], cv.IntraBW[d], cv.IntraPath[d])
		}
	}
	if r := c.Route(0, 7); len(r) != 1 {
		t.Fatalf("GPUs 0 and 7 of a node: %d hops, want 1", len(r))
	}
	for spec, want := range map[string]string{
		"system:scale-up=mesh,nvlink-links=3":                    "nvlink-links",
		"system:scale-up=ring":                                   "scale-up",
		"system:scale-up=mesh,gpus-per-node=72,nvlink-links=100": "nvlink-domain",
	} {
		if _, err := devices.NewSystem(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", spec, err, want)
		}
	}
}
