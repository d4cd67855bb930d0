package engine_test

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/workloads"
)

// tol is the relative (and absolute, in seconds) tolerance for simulated
// times compared with closed forms.
const tol = 1e-12

func near(a, b float64) bool { return scalar.EqualWithinAbsOrRel(a, b, tol, tol) }

// customKind is a V100 with a given capacity.
func customKind(mem int64) devices.Kind {
	k := devices.V100_32GB
	k.Memory = mem
	return k
}

// pairCluster builds n GPUs; edges lists direct links i-j with the given
// bandwidth and latency. Via, when set, joins every GPU to one middle
// endpoint of that type instead.
func pairCluster(t *testing.T, n int, edges [][2]int, bw, lat float64, via links.EndpointType) *devices.Cluster {
	t.Helper()
	topo := links.NewTopology()
	var devs []devices.Device
	for i := 0; i < n; i++ {
		id := topo.MustEndpoint("gpu"+string(rune('0'+i)), links.GPU)
		devs = append(devs, devices.Device{Name: topo.Endpoints[id].Name, Kind: customKind(32 << 30), Endpoint: id})
	}
	if via != "" {
		mid := topo.MustEndpoint("mid", via)
		for i := 0; i < n; i++ {
			if err := topo.ConnectCustom(links.EndpointID(i), mid, "test", "test", bw, lat); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range edges {
		if err := topo.ConnectCustom(links.EndpointID(e[0]), links.EndpointID(e[1]), "test", "test", bw, lat); err != nil {
			t.Fatal(err)
		}
	}
	c, err := devices.NewCluster("test", topo, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func simulate(t *testing.T, g *workloads.Graph, c *devices.Cluster, dev []int) *engine.Result {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := engine.Simulate(g, c, &engine.Plan{Device: dev}, engine.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func op(name string, t float64, out int64) workloads.Op {
	return workloads.Op{Name: name, OutputBytes: out, Measured: map[string]float64{workloads.MeasuredAny: t}}
}

func TestClosedForms(t *testing.T) {
	const (
		bw  = 10e9
		lat = 2e-6
		b   = int64(50 << 20)
	)
	xfer := lat + float64(b)/bw
	direct := pairCluster(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, bw, lat, "")

	t.Run("chain on one device is the sum of op times", func(t *testing.T) {
		times := []float64{1e-3, 2.5e-3, 0.7e-3}
		g := workloads.Chain(30, times, 1<<20)
		r := simulate(t, g, direct, make([]int, 30))
		want := 10 * (1e-3 + 2.5e-3 + 0.7e-3)
		if !near(r.StepTime, want) {
			t.Fatalf("step %g, want %g", r.StepTime, want)
		}
	})

	t.Run("producer and consumer on two devices", func(t *testing.T) {
		g := workloads.NewGraph("pc", 1)
		g.AddOp(op("p", 3e-3, b))
		g.AddOp(op("c", 4e-3, 8))
		g.AddEdge(0, 1, b)
		r := simulate(t, g, direct, []int{0, 1})
		if want := 3e-3 + lat + float64(b)/bw + 4e-3; !near(r.StepTime, want) {
			t.Fatalf("step %g, want t1 + latency + bytes/bw + t2 = %g", r.StepTime, want)
		}
	})

	// two producers with zero time feed two consumers with zero time, so
	// the consumers start exactly when their transfers land
	twoTransfers := func(dev []int) *engine.Result {
		g := workloads.NewGraph("fcfs", 1)
		g.AddOp(op("a1", 0, b))
		g.AddOp(op("a2", 0, b))
		g.AddOp(op("b1", 0, 0))
		g.AddOp(op("b2", 0, 0))
		g.AddEdge(0, 2, b)
		g.AddEdge(1, 3, b)
		return simulate(t, g, direct, dev)
	}
	t.Run("same directed link is FCFS: 1x and 2x", func(t *testing.T) {
		r := twoTransfers([]int{0, 0, 1, 1})
		if !near(r.OpStart[2], xfer) || !near(r.OpStart[3], 2*xfer) {
			t.Fatalf("arrivals %g and %g, want %g and %g", r.OpStart[2], r.OpStart[3], xfer, 2*xfer)
		}
		if len(r.Links) != 1 || !near(r.Links[0].QueueDelay, xfer) || r.Links[0].Transfers != 2 {
			t.Fatalf("link stats %+v, want one link, 2 transfers, queue delay %g", r.Links, xfer)
		}
	})
	t.Run("different links: both 1x", func(t *testing.T) {
		for name, dev := range map[string][]int{
			"disjoint pairs":     {0, 2, 1, 3},
			"opposite direction": {0, 1, 1, 0},
		} {
			r := twoTransfers(dev)
			if !near(r.OpStart[2], xfer) || !near(r.OpStart[3], xfer) {
				t.Fatalf("%s: arrivals %g and %g, want both %g", name, r.OpStart[2], r.OpStart[3], xfer)
			}
		}
	})

	t.Run("multi-hop route adds each hop", func(t *testing.T) {
		g := workloads.NewGraph("hop", 1)
		g.AddOp(op("p", 0, b))
		g.AddOp(op("c", 0, 0))
		g.AddEdge(0, 1, b)
		// through a host (store-and-forward): both hops in full
		viaHost := pairCluster(t, 2, nil, bw, lat, links.CPU)
		r := simulate(t, g, viaHost, []int{0, 1})
		if want := 2 * xfer; !near(r.StepTime, want) {
			t.Fatalf("via host: %g, want 2*(lat + b/bw) = %g", r.StepTime, want)
		}
		if got := viaHost.TransferTime(0, 1, b); !near(got, 2*xfer) {
			t.Fatalf("Cluster.TransferTime via host %g, want %g", got, 2*xfer)
		}
		// through a switch (cut-through): each hop's latency, the bytes once
		viaSwitch := pairCluster(t, 2, nil, bw, lat, links.PCIeSwitch)
		r = simulate(t, g, viaSwitch, []int{0, 1})
		if want := 2*lat + float64(b)/bw; !near(r.StepTime, want) {
			t.Fatalf("via switch: %g, want 2*lat + b/bw = %g", r.StepTime, want)
		}
		if got := viaSwitch.TransferTime(0, 1, b); !near(got, r.StepTime) {
			t.Fatalf("Cluster.TransferTime via switch %g, engine %g", got, r.StepTime)
		}
	})

	t.Run("more than 64 devices: routes kept by device pair in a map", func(t *testing.T) {
		// a chain there and back and there again through one switch:
		// the third transfer takes the first one's route again
		g := workloads.Chain(4, []float64{0}, b)
		big := pairCluster(t, 80, nil, bw, lat, links.PCIeSwitch)
		r := simulate(t, g, big, []int{0, 70, 0, 70})
		if want := 3 * (2*lat + float64(b)/bw); !near(r.StepTime, want) || r.TransferCount != 3 {
			t.Fatalf("step %g with %d transfers, want 3 transfers of 2*lat + b/bw = %g", r.StepTime, r.TransferCount, want)
		}
	})

	t.Run("parameters over capacity: OOM names the device", func(t *testing.T) {
		small := pairCluster(t, 2, [][2]int{{0, 1}}, bw, lat, "")
		small.Devices[1].Memory = 1 << 30
		g := workloads.Chain(4, []float64{1e-3}, 1<<10)
		for i := range g.Ops {
			g.Ops[i].ParamBytes = 400 << 20
		}
		r := simulate(t, g, small, []int{0, 1, 1, 1})
		if r.OOM == nil {
			t.Fatal("no OOM")
		}
		if r.OOM.DeviceName != "gpu1" || r.OOM.What != "parameters" || r.OOM.OpName != "op3" || r.OOM.Capacity != 1<<30 {
			t.Fatalf("OOM %+v, want gpu1, parameters of op3, capacity 1 GiB", *r.OOM)
		}
		if err := r.OOM.Err(); !errors.Is(err, engine.ErrOOM) || !strings.Contains(err.Error(), "gpu1") {
			t.Fatalf("OOM error %v", err)
		}
		if r.Devices[0].PeakMemory != 400<<20+1<<10 || r.Devices[1].PeakMemory < 1200<<20 {
			t.Fatalf("peaks %d %d", r.Devices[0].PeakMemory, r.Devices[1].PeakMemory)
		}
	})

	t.Run("diamond peak memory", func(t *testing.T) {
		const out, temp, param = 100 << 20, 30 << 20, 7 << 20
		g := workloads.Diamond(1e-3, out)
		for i := range g.Ops {
			g.Ops[i].TempBytes = temp
			g.Ops[i].ParamBytes = param
		}
		// one device: a's output lives until c ends, when d starts with b
		// and c alive: 4 params + 3 outputs + one workspace
		r := simulate(t, g, direct, []int{0, 0, 0, 0})
		if want := int64(4*param + 3*out + temp); r.Devices[0].PeakMemory != want {
			t.Fatalf("one device peak %d, want %d", r.Devices[0].PeakMemory, want)
		}
		// c on gpu1: gpu0 holds a, b (and a until its send is done), then
		// receives c's output while b's is alive and d runs
		r = simulate(t, g, direct, []int{0, 0, 1, 0})
		if want := int64(3*param + 3*out + temp); r.Devices[0].PeakMemory != want {
			t.Fatalf("split gpu0 peak %d, want %d", r.Devices[0].PeakMemory, want)
		}
		if want := int64(param + 2*out + temp); r.Devices[1].PeakMemory != want {
			t.Fatalf("split gpu1 peak %d, want %d (a's copy + c's output + c's workspace)", r.Devices[1].PeakMemory, want)
		}
		last := r.Trace.Memory[0][len(r.Trace.Memory[0])-1]
		if last.Bytes != 3*param {
			t.Fatalf("gpu0 ends with %d bytes in use, want only parameters %d", last.Bytes, 3*param)
		}
	})
}

func TestPlanErrors(t *testing.T) {
	c := pairCluster(t, 2, [][2]int{{0, 1}}, 1e9, 0, "")
	g := workloads.Chain(3, []float64{1}, 1)
	cpuOnly := workloads.Chain(2, []float64{1}, 1)
	cpuOnly.Ops[1].CPUOnly = true
	tests := []struct {
		name string
		g    *workloads.Graph
		plan *engine.Plan
		want string
	}{
		{"missing device", g, &engine.Plan{Device: []int{0, 1, 2}}, `op "op2" is on device 2, but cluster "test" has devices 0..1`},
		{"negative device", g, &engine.Plan{Device: []int{0, -1, 0}}, "device -1"},
		{"short plan", g, &engine.Plan{Device: []int{0}}, "1 device assignments for 3 ops"},
		{"cpu-only on gpu", cpuOnly, &engine.Plan{Device: []int{0, 1}}, `op "op1" is CPU-only but placed on accelerator`},
		{"order misses op", g, &engine.Plan{Device: []int{0, 0, 1}, Order: [][]int{{0, 1}, {}}}, `order misses op "op2"`},
		{"order wrong device", g, &engine.Plan{Device: []int{0, 0, 1}, Order: [][]int{{0, 1, 2}, {}}}, "placed on device 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Simulate(tc.g, c, tc.plan, engine.Options{})
			if !errors.Is(err, engine.ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrInvalidPlan containing %q", err, tc.want)
			}
			// Simulate checks some of these while it reads the ops
			// (the CPU-only op): Validate says the same
			if verr := tc.plan.Validate(tc.g, c); verr == nil || verr.Error() != err.Error() {
				t.Fatalf("Validate: %v, want Simulate's error %v", verr, err)
			}
		})
	}
	t.Run("order against dependencies deadlocks", func(t *testing.T) {
		_, err := engine.Simulate(g, c, &engine.Plan{Device: []int{0, 0, 0}, Order: [][]int{{1, 0, 2}, {}}}, engine.Options{})
		if !errors.Is(err, engine.ErrDeadlock) || !strings.Contains(err.Error(), `"op1"`) {
			t.Fatalf("error %v, want deadlock naming op1", err)
		}
	})
}

func TestPriorityAndOrder(t *testing.T) {
	c := pairCluster(t, 1, nil, 1e9, 0, "")
	// fork with three branches of different lengths
	g := workloads.NewGraph("prio", 1)
	g.AddOp(op("src", 1, 0))
	g.AddOp(op("x", 1, 0))
	g.AddOp(op("y", 1, 0))
	g.AddOp(op("z", 1, 0))
	for i := 1; i <= 3; i++ {
		g.AddEdge(0, i, 0)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	run := func(p *engine.Plan) []float64 {
		r, err := engine.Simulate(g, c, p, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r.OpStart
	}
	fifo := run(&engine.Plan{Device: make([]int, 4)})
	if fifo[1] != 1 || fifo[2] != 2 || fifo[3] != 3 {
		t.Fatalf("FIFO starts %v", fifo)
	}
	prio := run(&engine.Plan{Device: make([]int, 4), Priority: []float64{0, 1, 3, 2}})
	if prio[2] != 1 || prio[3] != 2 || prio[1] != 3 {
		t.Fatalf("priority starts %v, want y, z, x", prio)
	}
	ord := run(&engine.Plan{Device: make([]int, 4), Order: [][]int{{0, 3, 1, 2}}})
	if ord[3] != 1 || ord[1] != 2 || ord[2] != 3 {
		t.Fatalf("ordered starts %v, want z, x, y", ord)
	}
}
