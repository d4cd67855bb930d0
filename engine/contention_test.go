package engine_test

import (
	"math"
	"testing"

	"placesim/collectives"
	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// TestCollectiveModelResources: with Resources, bucket 1's all-reduce
// (b1's gradient, P bytes among 2 replicas over one link of bandwidth bw:
// ar = P/bw) slows the backward op b0 that it overlaps by ar times the
// share of the GPU the NCCL kernel holds: the SMs of its launched
// channels (at least the floor) for a matrix product, the larger of that
// and the ring's memory traffic (RingHBMPerByte(2) bytes per byte received
// at the bus bandwidth P/ar, against the GPU's memory bandwidth) for an
// elementwise kernel. The results report the charge by resource.
func TestCollectiveModelResources(t *testing.T) {
	const (
		P   = int64(40 << 20)
		bwd = 10e-3
	)
	for _, tc := range []struct {
		name, typ string
		bw, floor float64
		memBound  bool
	}{
		{"gemm", "matmul", 100e9, 0, false},
		{"gemm/floor", "matmul", 100e9, 0.3, false},
		{"elementwise/hbm", "add", 100e9, 0, true},
		{"elementwise/floor above hbm", "add", 10e9, 0.2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pairCluster(t, 2, [][2]int{{0, 1}}, tc.bw, 0, "")
			g := bwdPair(P, bwd, 2)
			for i := range g.Ops {
				if g.Ops[i].Role == workloads.Backward {
					g.Ops[i].Type = tc.typ
				}
			}
			plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: 2, BucketBytes: P, Overlap: true,
				Collective: &engine.CollectiveModel{Resources: true, Contention: tc.floor}}}
			r, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ar := float64(P) / tc.bw
			e, err := collectives.Time(c, []int{0, 1}, collectives.AllReduce, P)
			if err != nil {
				t.Fatal(err)
			}
			S, ok := devices.StreamingMultiprocessors(&c.Devices[0].Kind)
			if !ok {
				t.Fatalf("kind %s: no SM count", c.Devices[0].Kind.Name)
			}
			sm := math.Max(tc.floor, collectives.SMShare(collectives.KernelChannels(e), S))
			hbm := collectives.RingHBMPerByte(2) * (float64(P) / ar) / c.Devices[0].Kind.MemBandwidth
			share, byHBM := sm, false
			if tc.memBound && hbm > sm {
				share, byHBM = hbm, true
			}
			if !(share > 0 && share < 1) {
				t.Fatalf("share %g: the case does not exercise the model", share)
			}
			if got, want := r.Devices[0].Busy, 2*bwd+ar*share; !closeTo(got, want, modelTol) {
				t.Errorf("gpu0 busy %.9g s, want 2 x backward + ar x share %.4g = %.9g", got, share, want)
			}
			dp := r.DataParallel
			got, other := dp.ContentionSMs, dp.ContentionHBM
			if byHBM {
				got, other = other, got
			}
			if !closeTo(got, ar*share, modelTol) || other != 0 {
				t.Errorf("contention by SMs %.9g s, by HBM %.9g s; want %.9g s all by the %s", dp.ContentionSMs, dp.ContentionHBM, ar*share,
					map[bool]string{true: "memory bandwidth", false: "SMs"}[byHBM])
			}
		})
	}
}

// TestNCCLModelResources: the built-in NCCL model charges contention
// from the kernel's resources with the measured average as its floor.
func TestNCCLModelResources(t *testing.T) {
	m := engine.NCCLModel()
	if !m.Resources || m.Contention != engine.OverlapContention {
		t.Fatalf("NCCL model %+v: want Resources with Contention %g as floor", m, engine.OverlapContention)
	}
}
