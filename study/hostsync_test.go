package study

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// TestHostProgramCost: each program's per-iteration costs in closed form
// from its parts: fairseq's gradient division is one elementwise pass per
// update op's gradient on any number of GPUs, and on n > 1 GPUs the
// all_gather_list (n ranks' host work and a ring all-gather's n-1 steps)
// and the GPU's wait for the host to issue the division's kernels; the
// ConvNets trainer adds only the loss's all-reduce (2(n-1) ring steps)
// and its division, on n > 1 GPUs.
func TestHostProgramCost(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	g, err := LoadWorkload("zoo:transformer?layers=2&hidden=256&heads=4&ff=1024&vocab=1000&seq=16&training=true&batch=8")
	if err != nil {
		t.Fatal(err)
	}
	k, err := devices.KindByName("V100-16GB")
	if err != nil {
		t.Fatal(err)
	}
	var pass float64
	var gpu []float64
	for i := range g.Ops {
		if o := &g.Ops[i]; o.Role == workloads.Update && o.GradBytes > 0 {
			x, err := devices.GradientPassTime(o.GradBytes, &k)
			if err != nil {
				t.Fatal(err)
			}
			pass += x
			gpu = append(gpu, x)
		}
	}
	if len(gpu) == 0 || !(pass > 0) {
		t.Fatalf("%d gradients, pass %g s", len(gpu), pass)
	}
	fair, conv := HostPrograms["fairseq"], HostPrograms["dle-convnets"]
	one, err := fair.Cost(g, &k, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbsOrRel(one.GradientPassGPU, pass, 0, tol) || one.GatherList != 0 || one.IssueWait != 0 || one.ReduceLoss != 0 {
		t.Errorf("fairseq on 1 GPU: %+v, want only the gradient pass %g s", one, pass)
	}
	eight, err := fair.Cost(g, &k, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantGather := 8*devices.HostGatherListPerRank + engine.NCCLRingBaseLatency + 7*engine.NCCLRingStepLatency
	wantWait := devices.HostIssuedLoop(gpu, devices.HostEagerOpTime) - pass
	if !scalar.EqualWithinAbsOrRel(eight.GatherList, wantGather, 0, tol) || !scalar.EqualWithinAbsOrRel(eight.IssueWait, wantWait, 0, tol) ||
		!scalar.EqualWithinAbsOrRel(eight.GradientPassGPU, pass, 0, tol) || eight.ReduceLoss != 0 {
		t.Errorf("fairseq on 8 GPUs: %+v, want gather %g s, wait %g s, pass %g s", eight, wantGather, wantWait, pass)
	}
	if !(eight.IssueWait >= 0) || !scalar.EqualWithinAbsOrRel(eight.Total(), pass+wantGather+wantWait, 0, tol) {
		t.Errorf("fairseq on 8 GPUs: wait %g s, total %g s", eight.IssueWait, eight.Total())
	}
	c1, _ := conv.Cost(g, &k, 1)
	if c1.Total() != 0 {
		t.Errorf("ConvNets on 1 GPU: %+v, want nothing beyond what the 1-GPU measurement ran", c1)
	}
	c4, _ := conv.Cost(g, &k, 4)
	if want := engine.NCCLRingBaseLatency + 6*engine.NCCLRingStepLatency + devices.HostEagerOpTime; !scalar.EqualWithinAbsOrRel(c4.ReduceLoss, want, 0, tol) || c4.Total() != c4.ReduceLoss {
		t.Errorf("ConvNets on 4 GPUs: %+v, want the loss's all-reduce %g s", c4, want)
	}
	if _, err := fair.Cost(g, &k, 0); err == nil {
		t.Error("0 GPUs: no error")
	}
}
