package celeritas_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/celeritas"
	"placesim/placers/placertest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

func TestConformance(t *testing.T) {
	// one of the paper's models, at a small batch, beside the tiny graphs
	inception, err := zoo.Build("zoo:inception_v3?batch=32&training=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		f        placers.Factory
		opts     placers.Options
		memAware bool
	}{
		{"celeritas", placers.Typed(celeritas.NewCeleritas), nil, false},
		{"celeritas-strict", placers.Typed(celeritas.NewCeleritas), placers.Options{"besteffort": "false"}, true},
		{"celeritas-fine", placers.Typed(celeritas.NewCeleritas), placers.Options{"coarsen": "false", "besteffort": "false"}, true},
		{"celeritas-best-effort", placers.Typed(celeritas.NewCeleritas), placers.Options{"besteffort": "true", "range": "3"}, false},
		{"celeritas-priorities", placers.Typed(celeritas.NewCeleritas), placers.Options{"priorities": "true", "range": "5", "besteffort": "false"}, true},
		{"order-place", placers.Typed(celeritas.NewOrderPlace), nil, false},
		{"order-place-strict", placers.Typed(celeritas.NewOrderPlace), placers.Options{"besteffort": "false"}, true},
		{"order-place-best-effort", placers.Typed(celeritas.NewOrderPlace), placers.Options{"besteffort": "true", "range": "3"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.f(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			placertest.Run(t, p, placertest.Config{MemoryAware: tc.memAware, Graphs: []*workloads.Graph{inception}})
		})
	}
}

// fork is s -> x and s -> y, x and y 10 ms each, both feeding z with out
// bytes.
func fork(out int64) *workloads.Graph {
	g := workloads.NewGraph("fork", 1)
	add := func(name string, t float64, out int64) int {
		return g.AddOp(workloads.Op{Name: name, Type: "compute", OutputBytes: out,
			Measured: map[string]float64{workloads.MeasuredAny: t}})
	}
	s := add("s", 1e-3, 1<<10)
	x := add("x", 10e-3, out)
	y := add("y", 10e-3, out)
	z := add("z", 1e-3, 1<<10)
	g.AddEdge(s, x, 1<<10)
	g.AddEdge(s, y, 1<<10)
	g.AddEdge(y, z, out)
	g.AddEdge(x, z, out)
	return g
}

func place(t *testing.T, f placers.Factory, opts placers.Options, g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := f(opts)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
}

// TestBackCost checks eq. 9 by hand. s goes to gpu0; x too (x and y tie
// in CPD-TOPO order, x has the smaller ID; it can start on gpu0 at once).
// y could start on gpu0 only after x, at 11 ms, or on another GPU right
// after s's 1 KiB arrive (1 ms and a few us): it moves when that 10 ms gain
// exceeds back_cost, the time to send its output on to z, and stays on
// gpu0 otherwise.
func TestBackCost(t *testing.T) {
	c, _ := devices.NewPreset("4xV100-pcie")
	tests := []struct {
		name  string
		out   int64
		moved bool
	}{
		// 1 KiB back: a few microseconds < 10 ms
		{"cheap back", 1 << 10, true},
		// 512 MiB over PCIe 3 (about 12 GB/s, two hops): over 40 ms > 10 ms
		{"dear back", 512 << 20, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := fork(tc.out)
			plan, err := place(t, placers.Typed(celeritas.NewCeleritas), placers.Options{"coarsen": "false"}, g, c)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Device[0] != 0 || plan.Device[1] != 0 {
				t.Fatalf("s and x on %d and %d, want gpu0", plan.Device[0], plan.Device[1])
			}
			if moved := plan.Device[2] != 0; moved != tc.moved {
				t.Fatalf("y on device %d: moved %v, want %v (plan %v)", plan.Device[2], moved, tc.moved, plan.Device)
			}
		})
	}
}

func TestBestEffort(t *testing.T) {
	// a chain whose parameters are twice the cluster's memory
	c, _ := devices.NewPreset("4xV100-pcie")
	g := workloads.Chain(16, []float64{1e-3}, 1<<20)
	per := 2 * c.TotalMemory() / 16
	for i := range g.Ops {
		g.Ops[i].ParamBytes = per
	}
	for _, f := range []placers.Factory{placers.Typed(celeritas.NewCeleritas), placers.Typed(celeritas.NewOrderPlace)} {
		plan, err := place(t, f, placers.Options{"coarsen": "false", "besteffort": "true"}, g, c)
		if err != nil {
			t.Fatal(err)
		}
		// the overfill is reported as a relaxed memory constraint
		p, err := f(placers.Options{"coarsen": "false", "besteffort": "true"})
		if err != nil {
			t.Fatal(err)
		}
		est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := placers.PlaceWithReport(context.Background(), p, &placers.Request{Graph: g, Cluster: c, Estimates: est})
		if err != nil {
			t.Fatal(err)
		}
		if rep == nil || len(rep.Relaxed) == 0 || !strings.Contains(rep.Relaxed[0], "best-effort") {
			t.Fatalf("%s: report %+v, want the best-effort overfill in Relaxed", p.Name(), rep)
		}
		// best effort spreads the overflow: the least used device each time
		count := make([]int, 4)
		for _, d := range plan.Device {
			count[d]++
		}
		for d, n := range count {
			if n < 3 {
				t.Fatalf("device %d got %d of 16 ops (%v): best effort should spread them", d, n, count)
			}
		}
		if _, err := place(t, f, placers.Options{"coarsen": "false", "besteffort": "false"}, g, c); !errors.Is(err, placers.ErrDoesNotFit) {
			t.Fatalf("besteffort=false: %v, want ErrDoesNotFit", err)
		}
	}
}

func TestOrderPlaceFillsInOrder(t *testing.T) {
	// 10 ops of 9 GiB parameters in a chain on 4 x 32 GB (28.8 GB each
	// after the reserve): Order-Place puts the first three ops of the chain
	// on gpu0, the next three on gpu1, ..., the last on gpu3
	c, _ := devices.NewPreset("4xV100-pcie")
	g := workloads.Chain(10, []float64{1e-3}, 1<<20)
	for i := range g.Ops {
		g.Ops[i].ParamBytes = 9 << 30
	}
	plan, err := place(t, placers.Typed(celeritas.NewOrderPlace), placers.Options{"coarsen": "false"}, g, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}
	for i := range want {
		if plan.Device[i] != want[i] {
			t.Fatalf("plan %v, want %v", plan.Device, want)
		}
	}
}

func TestCoarseCeleritasSimulates(t *testing.T) {
	c, _ := devices.NewPreset("4xV100-pcie")
	g := workloads.RandomLayered(3000, 40, 3)
	for _, f := range []placers.Factory{placers.Typed(celeritas.NewCeleritas), placers.Typed(celeritas.NewOrderPlace)} {
		plan, err := place(t, f, placers.Options{"range": "50"}, g, c)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Simulate(g, c, plan, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !(res.StepTime > 0) || res.OOM != nil {
			t.Fatalf("step %g, OOM %v", res.StepTime, res.OOM)
		}
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []placers.Options{{"besteffort": "yes"}, {"priorities": "2"}, {"range": "-1"}, {"memfrac": "0"}} {
		for _, f := range []placers.Factory{placers.Typed(celeritas.NewCeleritas), placers.Typed(celeritas.NewOrderPlace)} {
			if _, err := f(o); !errors.Is(err, placers.ErrBadOption) {
				t.Fatalf("options %v: %v, want ErrBadOption", o, err)
			}
		}
	}
}
