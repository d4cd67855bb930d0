package graphalg_test

import (
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

func TestLifetimePeaks(t *testing.T) {
	// op0 -> op1 -> op2, 1 ms each, outputs 1, 2 and 4 MiB, op1 with 8 MiB
	// of parameters. op0 runs on gpu1, op1 and op2 on gpu0.
	const mib = 1 << 20
	g := workloads.NewGraph("chain3", 1)
	for i, out := range []int64{1 * mib, 2 * mib, 4 * mib} {
		g.AddOp(workloads.Op{Name: []string{"a", "b", "c"}[i], Type: "compute", OutputBytes: out,
			Measured: map[string]float64{workloads.MeasuredAny: 1e-3}})
		if i > 0 {
			g.AddEdge(i-1, i, g.Ops[i-1].OutputBytes)
		}
	}
	g.Ops[1].ParamBytes = 8 * mib
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	c := twoGPUs(t, 1<<30)
	c.Devices[1].Memory = 1 << 30
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := graphalg.NewProblem(&placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Schedule()
	s.Assign(0, 1, 0)
	s.Assign(1, 0, s.DataReady(1, 0))
	s.Assign(2, 0, s.Finish[1])
	got := graphalg.LifetimePeaks(p, s)
	// gpu1: op0's output until it is sent (its end): 1 MiB.
	// gpu0: 8 MiB of parameters; the received copy of op0's output (1 MiB)
	// and op1's output (2 MiB) while op1 runs; at op1's end the copy is
	// freed and op2's output (4 MiB) made beside op1's: 6 MiB. A static
	// sum would charge 1 + 2 + 4.
	want := []int64{8*mib + 6*mib, 1 * mib}
	for d := range want {
		if got[d] != want[d] {
			t.Errorf("peak on gpu%d = %d MiB, want %d MiB", d, got[d]/mib, want[d]/mib)
		}
	}
	// the engine's ledger, playing the same placement, agrees
	res, err := engine.Simulate(g, c, &engine.Plan{Device: []int{1, 0, 0}}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for d := range want {
		if res.Devices[d].PeakMemory != want[d] {
			t.Errorf("engine's peak on gpu%d = %d B, the ledger's %d B", d, res.Devices[d].PeakMemory, want[d])
		}
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
