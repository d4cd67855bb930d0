package pesto

import (
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads/zoo"
)

// TestILPSeesLinkScaling: a what-if that scales the NVLink bandwidth (as
// study.ApplySettings does: the cluster's links scaled, routes rebuilt)
// reaches the transfer times of Pesto's ILP, which the request's
// estimates carry, and so the makespan the ILP's model gives a placement
// with cut edges (issue 28: Figure 8b needs the communication terms to
// see the what-if bandwidth).
func TestILPSeesLinkScaling(t *testing.T) {
	g, err := zoo.Build("zoo:gnmt?layers=2&hidden=256&seq=4&vocab=1000&batch=16&training=true")
	if err != nil {
		t.Fatal(err)
	}
	base, err := devices.NewPreset("2xV100-nvlink+cpu")
	if err != nil {
		t.Fatal(err)
	}
	const bytes = 64 << 20
	var xfer, span []float64
	for _, f := range []float64{10, 0.1} {
		c := base.Clone()
		n := 0
		for i := range c.Topology.Links {
			if l := &c.Topology.Links[i]; l.Family == "nvlink" {
				l.Bandwidth *= f
				n++
			}
		}
		if n == 0 {
			t.Fatal("2xV100-nvlink+cpu has no NVLink links")
		}
		if err := c.Rebuild(); err != nil {
			t.Fatal(err)
		}
		est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pr, _ := testProblem(t, g, est, 30)
		acc, _ := placers.Targets(c)
		xfer = append(xfer, pr.transfer(acc[0], acc[1], bytes))
		// accelerator groups alternately on the two GPUs: cut edges
		dev := make([]int, pr.c.Len())
		for v := range dev {
			ts := pr.targets[pr.c.Group[v]]
			dev[v] = ts[pr.c.Group[v]%len(ts)]
		}
		est0, _ := pr.windows(1)
		tm, err := pr.evaluate(dev, pr.orderByStart(dev, est0, est0))
		if err != nil {
			t.Fatal(err)
		}
		span = append(span, tm.makespan)
	}
	// 64 MiB is bandwidth-bound: 100x the bandwidth is nearly 100x the
	// time (latency aside)
	if r := xfer[1] / xfer[0]; r < 50 {
		t.Errorf("ILP transfer of 64 MiB GPU to GPU: %.6gs at 0.1x NVLink, %.6gs at 10x (ratio %.3g, want > 50)", xfer[1], xfer[0], r)
	}
	if span[1] <= span[0] {
		t.Errorf("ILP makespan of a placement with cut edges: %.6gs at 0.1x NVLink, not above %.6gs at 10x", span[1], span[0])
	}
}
