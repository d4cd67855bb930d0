package baechi_test

import (
	"context"
	"errors"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/placers"
	"placesim/placers/baechi"
	"placesim/placers/baseline"
	"placesim/placers/graphalg"
	"placesim/placers/mip/miptest"
	"placesim/placers/placertest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

func TestConformance(t *testing.T) {
	// one of the paper's models, at a small batch, beside the tiny graphs
	// (m-SCT's LP on it takes seconds: it runs the tiny graphs only)
	inception, err := zoo.Build("zoo:inception_v3?batch=32&training=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    placers.Factory
		opts placers.Options
		zoo  bool
	}{
		{"m-topo", placers.Typed(baechi.NewMTopo), nil, true},
		{"m-etf", placers.Typed(baechi.NewMETF), nil, true},
		{"m-sct", placers.Typed(baechi.NewMSCT), nil, false},
		{"m-sct-gonum-windows", placers.Typed(baechi.NewMSCT), placers.Options{"lp": "gonum", "window": "5"}, false},
		{"m-topo-coarse", placers.Typed(baechi.NewMTopo), placers.Options{"coarsen": "true", "range": "4"}, false},
		{"m-etf-coarse", placers.Typed(baechi.NewMETF), placers.Options{"coarsen": "true", "range": "4"}, false},
		{"m-sct-coarse", placers.Typed(baechi.NewMSCT), placers.Options{"coarsen": "true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.f(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			cfg := placertest.Config{MemoryAware: true}
			if tc.zoo {
				cfg.Graphs = []*workloads.Graph{inception}
			}
			placertest.Run(t, p, cfg)
		})
	}
}

// twoGPUs is two V100s on a PCIe switch; gpu0 has only mem0 bytes.
func twoGPUs(t *testing.T, mem0 int64) *devices.Cluster {
	t.Helper()
	topo := links.NewTopology()
	sw, _ := topo.AddEndpoint("sw", links.PCIeSwitch)
	var devs []devices.Device
	for i, mem := range []int64{mem0, 0} {
		ep, _ := topo.AddEndpoint([]string{"gpu0", "gpu1"}[i], links.GPU)
		if err := topo.Connect(ep, sw, links.PCIe3, 1); err != nil {
			t.Fatal(err)
		}
		devs = append(devs, devices.Device{Name: []string{"gpu0", "gpu1"}[i], Kind: devices.V100_32GB, Memory: mem, Endpoint: ep})
	}
	c, err := devices.NewCluster("2gpu-small0", topo, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func placeOn(t *testing.T, f placers.Factory, opts placers.Options, g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
	t.Helper()
	p, err := f(opts)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
}

func TestMemoryAwareAvoidsSmallDevice(t *testing.T) {
	// four independent chains of ops with 4 MiB of parameters each: ETF
	// spreads them over both devices, but gpu0 holds only 6 MiB: one op
	g := workloads.ForkJoin(4, 3, 1e-3, 64<<10)
	for i := range g.Ops {
		g.Ops[i].ParamBytes = 4 << 20
	}
	c := twoGPUs(t, 6<<20)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	onSmall := func(plan *engine.Plan) (n int) {
		for _, d := range plan.Device {
			if d == 0 {
				n++
			}
		}
		return n
	}
	plain, err := placeOn(t, placers.Typed(baseline.NewETF), nil, g, c)
	if err != nil {
		t.Fatal(err)
	}
	if onSmall(plain) < 2 {
		t.Fatalf("plain ETF put %d ops on gpu0: the test needs a graph ETF would spread", onSmall(plain))
	}
	for _, tc := range []struct {
		name string
		f    placers.Factory
	}{{"m-etf", placers.Typed(baechi.NewMETF)}, {"m-sct", placers.Typed(baechi.NewMSCT)}, {"m-topo", placers.Typed(baechi.NewMTopo)}} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := placeOn(t, tc.f, nil, g, c)
			if err != nil {
				t.Fatal(err)
			}
			if n := onSmall(plan); n > 1 {
				t.Fatalf("%d ops of 4 MiB on gpu0 (6 MiB)", n)
			}
			res, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.OOM != nil {
				t.Fatalf("plan runs out of memory: %+v", res.OOM)
			}
		})
	}
	// with no room anywhere: a clear error wrapping ErrDoesNotFit
	tiny := twoGPUs(t, 1<<20)
	tiny.Devices[1].Memory = 1 << 20
	for _, f := range []placers.Factory{placers.Typed(baechi.NewMETF), placers.Typed(baechi.NewMSCT), placers.Typed(baechi.NewMTopo)} {
		if _, err := placeOn(t, f, nil, g, tiny); !errors.Is(err, placers.ErrDoesNotFit) {
			t.Fatalf("no room: %v, want ErrDoesNotFit", err)
		}
	}
}

func TestFavouriteChildren(t *testing.T) {
	// u forks to a (long) and b (short), both join at v; communication is
	// dear. The LP keeps the long branch on u's device: a is u's favourite
	// child and v's favourite parent.
	g := workloads.NewGraph("fork", 1)
	for _, op := range []struct {
		name string
		t    float64
	}{{"u", 1e-3}, {"a", 10e-3}, {"b", 1e-3}, {"v", 1e-3}} {
		g.AddOp(workloads.Op{Name: op.name, Type: "compute", OutputBytes: 64 << 20,
			Measured: map[string]float64{workloads.MeasuredAny: op.t}})
	}
	g.AddEdge(0, 1, 64<<20)
	g.AddEdge(0, 2, 64<<20)
	g.AddEdge(1, 3, 64<<20)
	g.AddEdge(2, 3, 64<<20)
	c, _ := devices.NewPreset("4xV100-pcie")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	p, err := graphalg.NewProblem(&placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"gonum", "cbc"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "cbc" {
				miptest.Require(t) // skips without cbc, fails under PLACESIM_REQUIRE_CBC=1
			}
			fav, err := baechi.FavouriteParents(context.Background(), p, backend, 24)
			if err != nil {
				t.Fatal(err)
			}
			want := []int32{-1, 0, -1, 1}
			for i := range want {
				if fav[i] != want[i] {
					t.Fatalf("favourite parents %v, want %v", fav, want)
				}
			}
		})
	}
}
