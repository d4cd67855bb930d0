package graphalg_test

import (
	"testing"

	"placesim/devices"
	"placesim/engine"
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
	c, err := devices.NewPreset("2xV100-nvlink+cpu") // gpu0, gpu1 (and a CPU, unused)
	if err != nil {
		t.Fatal(err)
	}
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
