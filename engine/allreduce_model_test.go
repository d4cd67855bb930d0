package engine_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/workloads"
)

// modelTol is the tolerance of the collective model's closed forms (the
// simulation is exact up to rounding).
const modelTol = 1e-9

// TestCollectiveModelLatency: with NCCL's latencies a ring all-reduce of
// S bytes over n devices joined in a cycle of identical links (bandwidth
// bw, latency a < step latency; k rings, see ringCluster) takes
// 2(n-1)/n · S/(k bw) + base + 2(n-1)·step: each step's latency counts
// the link's own once.
func TestCollectiveModelLatency(t *testing.T) {
	const (
		bw  = 25e9
		lat = 0.7e-6
	)
	m := engine.NCCLModel()
	for _, n := range []int{2, 4, 8} {
		for _, S := range []int64{1 << 20, 256 << 20} {
			t.Run(fmt.Sprintf("n=%d/S=%d", n, S), func(t *testing.T) {
				c := ringCluster(t, n, bw, lat)
				g := gradGraph("w", S)
				plan := &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: n, Collective: m}}
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				steps := 2 * float64(n-1)
				want := steps/float64(n)*float64(S)/(float64(ringsOf(n))*bw) + m.BaseLatency + steps*m.StepLatency
				ars := r.DataParallel.AllReduces
				if len(ars) != 1 {
					t.Fatalf("%d all-reduces, want 1", len(ars))
				}
				if got := ars[0].End - ars[0].Start; !closeTo(got, want, modelTol) {
					t.Errorf("all-reduce took %.9g s, want 2(n-1)/n·S/(k bw) + base + 2(n-1)·step = %.9g", got, want)
				}
			})
		}
	}
}

// bwdPair is f0 -> f1 -> b1 -> b0 -> u0, b1 -> u1: forward ops without
// time holding P bytes of parameters each, backward ops taking bwd each on
// one replica's share (the measured time is the whole batch's: reps x
// bwd), update ops without time. b1 makes f1's gradient (P bytes, u1's
// GradBytes), b0 f0's (u0's).
func bwdPair(P int64, bwd float64, reps int) *workloads.Graph {
	g := workloads.NewGraph("pair", reps)
	zero := map[string]float64{workloads.MeasuredAny: 0}
	bt := map[string]float64{workloads.MeasuredAny: bwd * float64(reps)}
	f0 := g.AddOp(workloads.Op{Name: "f0", Role: workloads.Forward, ParamBytes: P, Measured: zero})
	f1 := g.AddOp(workloads.Op{Name: "f1", Role: workloads.Forward, ParamBytes: P, Measured: zero})
	b1 := g.AddOp(workloads.Op{Name: "b1", Role: workloads.Backward, Measured: bt})
	b0 := g.AddOp(workloads.Op{Name: "b0", Role: workloads.Backward, Measured: bt})
	u0 := g.AddOp(workloads.Op{Name: "u0", Role: workloads.Update, GradBytes: P, Measured: zero})
	u1 := g.AddOp(workloads.Op{Name: "u1", Role: workloads.Update, GradBytes: P, Measured: zero})
	g.AddEdge(f0, f1, 0)
	g.AddEdge(f1, b1, 0)
	g.AddEdge(b1, b0, 0)
	g.AddEdge(b0, u0, 0)
	g.AddEdge(b1, u1, 0)
	return g
}

// TestCollectiveModelContention: bucket 1 (b1's gradient) all-reduces
// while b0 computes; with contention s, b0 takes s x (the bucket's
// modelled time, or b0's time if shorter) longer, only when the buckets
// overlap the backward pass. Bucket 0 is ready when the backward ends and
// slows nothing.
func TestCollectiveModelContention(t *testing.T) {
	const (
		P   = int64(40 << 20)
		bw  = 10e9
		bwd = 10e-3
	)
	c := pairCluster(t, 2, [][2]int{{0, 1}}, bw, 0, "")
	ar := float64(P) / bw // 2 replicas: 2 steps of P/2
	for _, tc := range []struct {
		name      string
		overlap   bool
		s         float64
		wantExtra float64
	}{
		{"overlap", true, 0.25, 0.25 * ar},
		{"overlap/no contention", true, 0, 0},
		{"after backward", false, 0.25, 0},
		{"contention 1", true, 1, ar},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := bwdPair(P, bwd, 2)
			plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: 2, BucketBytes: P, Overlap: tc.overlap,
				Collective: &engine.CollectiveModel{Contention: tc.s}}}
			r, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.DataParallel.AllReduces); n != 2 {
				t.Fatalf("%d all-reduces, want 2 (one per bucket)", n)
			}
			if got, want := r.Devices[0].Busy, 2*bwd+tc.wantExtra; !closeTo(got, want, modelTol) {
				t.Errorf("gpu0 busy %.9g s, want 2 x backward + contention %.9g = %.9g", got, 2*bwd, want)
			}
		})
	}
}

// TestCollectiveModelCopies: DDP's copies add, per pass, a read and a
// write of every gradient byte at the device's streaming bandwidth on the
// compute stream, plus a kernel launch each (one per gradient for the
// first pack pass and each unpack pass, one per bucket for further pack
// passes).
func TestCollectiveModelCopies(t *testing.T) {
	const (
		P   = int64(64 << 20)
		bwd = 1e-3
	)
	c := pairCluster(t, 2, [][2]int{{0, 1}}, 10e9, 0, "")
	k := &c.Devices[0].Kind
	copyOf := func(b int64) float64 {
		row := k.Kernels.Row(workloads.KernelElementwise)
		return float64(2*b)/(k.MemBandwidth*row.MemEff) + row.Overhead
	}
	for _, tc := range []struct {
		pack, unpack float64
		want         float64
	}{
		{0, 0, 0},
		{1, 0, 2 * copyOf(P)},               // one bucket of both gradients: a copy per gradient
		{2, 1, 4*copyOf(P) + copyOf(2*P)},   // + the bucket divided, + a copy back per gradient
		{3, 2, 6*copyOf(P) + 2*copyOf(2*P)}, // two whole-bucket passes, two copies back
		// a cast to FP16 and a copy in (2.5), a copy out and a cast back
		// (2.5): a copy per gradient, then a whole bucket and a half
		// bucket, then two and a half copies back per gradient
		{2.5, 2.5, 2*copyOf(P) + copyOf(2*P) + copyOf(P) + 2*(2*copyOf(P)+copyOf(P/2))},
		{0.5, 0, 2 * copyOf(P/2)}, // half a pass: one kernel over half of each gradient
	} {
		t.Run(fmt.Sprintf("pack=%g/unpack=%g", tc.pack, tc.unpack), func(t *testing.T) {
			g := bwdPair(P, bwd, 2)
			plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: 2,
				Collective: &engine.CollectiveModel{PackPasses: tc.pack, UnpackPasses: tc.unpack}}}
			r, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.Devices[0].Busy, 2*bwd+tc.want; !closeTo(got, want, modelTol) {
				t.Errorf("gpu0 busy %.9g s, want %.9g", got, want)
			}
		})
	}
}

// TestCollectiveModelInvalid: a model field out of range is an invalid
// plan naming the field.
func TestCollectiveModelInvalid(t *testing.T) {
	c := pairCluster(t, 2, [][2]int{{0, 1}}, 10e9, 0, "")
	for _, tc := range []struct {
		field string
		m     engine.CollectiveModel
	}{
		{"baseLatency", engine.CollectiveModel{BaseLatency: -1e-6}},
		{"stepLatency", engine.CollectiveModel{StepLatency: 2}},
		{"contention", engine.CollectiveModel{Contention: -0.1}},
		{"packPasses", engine.CollectiveModel{PackPasses: -1}},
		{"unpackPasses", engine.CollectiveModel{UnpackPasses: 17}},
		{"packPasses", engine.CollectiveModel{PackPasses: math.NaN()}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			m := tc.m
			g := gradGraph("w", 1<<20)
			_, err := engine.Simulate(g, c, &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: 2, Collective: &m}}, engine.Options{})
			if !errors.Is(err, engine.ErrInvalidPlan) {
				t.Fatalf("err %v, want ErrInvalidPlan", err)
			}
			if want := "dataParallel.collective." + tc.field; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
		})
	}
}

// TestCollectiveModelContentionSerial: NCCL runs one all-reduce at a time,
// so a bucket's window opens when the previous one closes. Backward ops
// b2, b1, b0 of 10 ms each make one bucket each; a bucket's all-reduce
// alone takes 15 ms. Bucket 2's window is [10, 25] ms, bucket 1's [25, 40]
// (not [20, 35]), and the backward ends at 30: 10 ms of b1 and 10 ms of b0
// are overlapped, 20 ms in all (25 ms if the windows were not serial).
func TestCollectiveModelContentionSerial(t *testing.T) {
	const (
		bw  = 10e9
		P   = int64(150e6) // P/bw = 15 ms
		bwd = 10e-3
		s   = 0.5
	)
	c := pairCluster(t, 2, [][2]int{{0, 1}}, bw, 0, "")
	g := workloads.NewGraph("three", 2)
	zero := map[string]float64{workloads.MeasuredAny: 0}
	bt := map[string]float64{workloads.MeasuredAny: 2 * bwd}
	prev := -1
	for i := 0; i < 3; i++ {
		f := g.AddOp(workloads.Op{Name: fmt.Sprintf("f%d", i), Role: workloads.Forward, ParamBytes: P, Measured: zero})
		if prev >= 0 {
			g.AddEdge(prev, f, 0)
		}
		prev = f
	}
	for i := 2; i >= 0; i-- {
		b := g.AddOp(workloads.Op{Name: fmt.Sprintf("b%d", i), Role: workloads.Backward, Measured: bt})
		g.AddEdge(prev, b, 0)
		prev = b
		u := g.AddOp(workloads.Op{Name: fmt.Sprintf("u%d", i), Role: workloads.Update, GradBytes: P, Measured: zero})
		g.AddEdge(b, u, 0)
	}
	plan := &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: 2, BucketBytes: P, Overlap: true,
		Collective: &engine.CollectiveModel{Contention: s}}}
	r, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.DataParallel.AllReduces); n != 3 {
		t.Fatalf("%d all-reduces, want 3", n)
	}
	if got, want := r.Devices[0].Busy, 3*bwd+s*20e-3; !closeTo(got, want, modelTol) {
		t.Errorf("gpu0 busy %.9g s, want 3 x backward + s x 20 ms = %.9g", got, want)
	}
}

// TestCollectiveByName: each built-in model carries its name; link is the
// ideal collective (no latency, copy or contention); an unknown name is an
// ErrInvalidPlan listing the valid ones.
func TestCollectiveByName(t *testing.T) {
	for _, name := range engine.CollectiveNames() {
		t.Run(name, func(t *testing.T) {
			m, err := engine.CollectiveByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != name {
				t.Fatalf("name %q", m.Name)
			}
			ideal := m.BaseLatency == 0 && m.StepLatency == 0 && m.PackPasses == 0 && m.UnpackPasses == 0 && m.Contention == 0
			if ideal != (name == engine.CollectiveLink) {
				t.Fatalf("model %+v: ideal %v", m, ideal)
			}
		})
	}
	_, err := engine.CollectiveByName("gloo")
	if !errors.Is(err, engine.ErrInvalidPlan) || !strings.Contains(err.Error(), "valid: link, nccl, pytorch-ddp") {
		t.Fatalf("error %v", err)
	}
}

// TestDataParallelWireBytes: an all-reduce of FP16 copies of FP32
// gradients (WireBytes 2) carries half their bytes, so on a link with no
// latency it takes half as long; WireBytes 4 is the gradients' own; wider
// than the gradients, or out of range, is an invalid plan naming the
// field.
func TestDataParallelWireBytes(t *testing.T) {
	const P = int64(64 << 20)
	c := pairCluster(t, 2, [][2]int{{0, 1}}, 10e9, 0, "")
	run := func(wire int) (*engine.DataParallelStats, error) {
		t.Helper()
		g := gradGraph("w", P)
		r, err := engine.Simulate(g, c, &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: 2, WireBytes: wire}}, engine.Options{})
		if err != nil {
			return nil, err
		}
		if r.DataParallel == nil || len(r.DataParallel.AllReduces) != 1 {
			t.Fatalf("data-parallel stats %+v, want one all-reduce", r.DataParallel)
		}
		return r.DataParallel, nil
	}
	must := func(wire int) *engine.DataParallelStats {
		t.Helper()
		s, err := run(wire)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	full, half, same := must(0), must(2), must(4)
	if full.GradientBytes != P || half.GradientBytes != P/2 || same.GradientBytes != P {
		t.Errorf("all-reduced %d, %d and %d bytes, want %d, %d and %d", full.GradientBytes, half.GradientBytes, same.GradientBytes, P, P/2, P)
	}
	span := func(s *engine.DataParallelStats) float64 { return s.AllReduces[0].End - s.AllReduces[0].Start }
	if got, want := span(half), span(full)/2; !closeTo(got, want, 1e-9) {
		t.Errorf("FP16 all-reduce took %.9g s, want half of %.9g s", got, span(full))
	}
	for _, wire := range []int{8, -1, 9} {
		_, err := run(wire)
		if !errors.Is(err, engine.ErrInvalidPlan) || !strings.Contains(err.Error(), "dataParallel.wireBytes") {
			t.Errorf("wireBytes %d on FP32 gradients: err %v, want an invalid plan naming dataParallel.wireBytes", wire, err)
		}
	}
}
