package engine_test

import (
	"fmt"
	"math"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/workloads"
)

// arTol is the tolerance of the all-reduce closed forms (the issue asks
// for 1 %; the simulation is exact up to rounding).
const arTol = 1e-9

// meshCluster has n GPUs, every pair joined directly by identical links,
// so that each ring step uses one link of its own.
func meshCluster(t *testing.T, n int, bw, lat float64) *devices.Cluster {
	t.Helper()
	var pairs [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return pairCluster(t, n, pairs, bw, lat, "")
}

// ringCluster has n GPUs joined in a cycle, each to the next by
// identical links (both directions), and every GPU to a PCIe switch at a
// tenth of their bandwidth (so that every pair has a route): the ring
// all-reduce runs on the cycle both ways at once (ringChannels: the
// reverse ring crosses the other direction of every link; a ring through
// the switch is slower than half the first), one ring for n = 2.
func ringCluster(t *testing.T, n int, bw, lat float64) *devices.Cluster {
	t.Helper()
	topo := links.NewTopology()
	var devs []devices.Device
	for i := 0; i < n; i++ {
		id := topo.MustEndpoint(fmt.Sprintf("gpu%d", i), links.GPU)
		devs = append(devs, devices.Device{Name: topo.Endpoints[id].Name, Kind: customKind(32 << 30), Endpoint: id})
	}
	sw := topo.MustEndpoint("sw", links.PCIeSwitch)
	for i := 0; i < n; i++ {
		if err := topo.ConnectCustom(links.EndpointID(i), sw, "test-slow", "test", bw/10, lat); err != nil {
			t.Fatal(err)
		}
		if j := (i + 1) % n; n > 2 || i == 0 {
			if err := topo.ConnectCustom(links.EndpointID(i), links.EndpointID(j), "test", "test", bw, lat); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := devices.NewCluster("test", topo, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ringsOf is how many rings the ring all-reduce runs on a ringCluster
// of n GPUs.
func ringsOf(n int) int {
	if n > 2 {
		return 2
	}
	return 1
}

// gradGraph is a forward op with params bytes of parameters and its
// gradient op, both instantaneous: a step is just the all-reduce.
func gradGraph(name string, params int64) *workloads.Graph {
	g := workloads.NewGraph(name, 8)
	zero := map[string]float64{workloads.MeasuredAny: 0}
	f := g.AddOp(workloads.Op{Name: name, Role: workloads.Forward, ParamBytes: params, Colocation: name, Measured: zero})
	b := g.AddOp(workloads.Op{Name: name + "/grad", Role: workloads.Backward, Colocation: name, Measured: zero})
	g.AddEdge(f, b, 0)
	return g
}

// TestRingAllReduceClosedForm: a ring all-reduce of S bytes over n devices
// joined in a cycle of identical links (bandwidth bw, latency a) runs
// on k rings at once (both ways round for n > 2), S/k bytes each, and
// takes 2(n-1)/n · S/(k bw) + 2(n-1)·a.
func TestRingAllReduceClosedForm(t *testing.T) {
	const (
		bw  = 25e9
		lat = 5e-6
	)
	for _, n := range []int{2, 3, 4, 8} {
		for _, S := range []int64{8 << 20, 1 << 30} {
			t.Run(fmt.Sprintf("n=%d/S=%d", n, S), func(t *testing.T) {
				c := ringCluster(t, n, bw, lat)
				g := gradGraph("w", S)
				plan := &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: n}}
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				k := ringsOf(n)
				want := 2*float64(n-1)/float64(n)*float64(S)/(float64(k)*bw) + 2*float64(n-1)*lat
				ars := r.DataParallel.AllReduces
				if len(ars) != 1 || ars[0].Bytes != S {
					t.Fatalf("all-reduces %+v, want one of %d bytes", ars, S)
				}
				if got := ars[0].End - ars[0].Start; !closeTo(got, want, arTol) {
					t.Errorf("all-reduce took %.9g s, want 2(n-1)/n·S/(k bw) + 2(n-1)·latency = %.9g (k = %d)", got, want, k)
				}
				if !closeTo(r.StepTime, want, arTol) {
					t.Errorf("step %.9g, want the all-reduce's %.9g", r.StepTime, want)
				}
				// every replica sent 2(n-1) chunks of S/(k n) to its
				// neighbour on each ring
				if wantX := k * n * 2 * (n - 1); r.TransferCount != wantX {
					t.Errorf("%d transfers, want k·n·2(n-1) = %d", r.TransferCount, wantX)
				}
			})
		}
	}
}

// TestRingsShareLink: two 2-device rings whose routes cross the same
// switch-to-switch link (one directed link each way) queue on it FCFS.
// Alone a ring takes 2τ (τ = (S/2)/bw per step); together the first ring's
// chunks go first in each step, so it ends at 3τ and the second at 4τ.
func TestRingsShareLink(t *testing.T) {
	const (
		S  = int64(256 << 20)
		bw = 10e9
	)
	topo := links.NewTopology()
	x := topo.MustEndpoint("swX", links.PCIeSwitch)
	y := topo.MustEndpoint("swY", links.PCIeSwitch)
	var devs []devices.Device
	for i, name := range []string{"a0", "b0", "a1", "b1"} {
		id := topo.MustEndpoint(name, links.GPU)
		sw := x
		if i >= 2 {
			sw = y
		}
		if err := topo.ConnectCustom(id, sw, "fast", "test", 1e300, 0); err != nil {
			t.Fatal(err)
		}
		devs = append(devs, devices.Device{Name: name, Kind: customKind(1 << 40), Endpoint: id})
	}
	if err := topo.ConnectCustom(x, y, "shared", "test", bw, 0); err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewCluster("two-rings", topo, devs)
	if err != nil {
		t.Fatal(err)
	}
	tau := float64(S/2) / bw

	// ring a alone: one part on a0, replicated on a1; rings a and b: two
	// independent parts on a0 and b0, replicated on a1 and b1
	alone := gradGraph("wa", S)
	both := gradGraph("wa", S)
	zero := map[string]float64{workloads.MeasuredAny: 0}
	fb := both.AddOp(workloads.Op{Name: "wb", Role: workloads.Forward, ParamBytes: S, Colocation: "wb", Measured: zero})
	bb := both.AddOp(workloads.Op{Name: "wb/grad", Role: workloads.Backward, Colocation: "wb", Measured: zero})
	both.AddEdge(fb, bb, 0)
	cases := []struct {
		name string
		g    *workloads.Graph
		plan *engine.Plan
		ends []float64
	}{
		{"ring a alone", alone, &engine.Plan{Device: []int{0, 0},
			DataParallel: &engine.DataParallel{Replicas: 2, Devices: [][]int{{0}, {2}}}}, []float64{2 * tau}},
		{"rings a and b", both, &engine.Plan{Device: []int{0, 0, 1, 1},
			DataParallel: &engine.DataParallel{Replicas: 2, Devices: [][]int{{0, 1}, {2, 3}}}}, []float64{3 * tau, 4 * tau}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := engine.Simulate(tc.g, c, tc.plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ars := r.DataParallel.AllReduces
			if len(ars) != len(tc.ends) {
				t.Fatalf("%d all-reduces, want %d", len(ars), len(tc.ends))
			}
			for i, a := range ars {
				if !closeTo(a.End, tc.ends[i], arTol) {
					t.Errorf("all-reduce %d ends at %.9g = %.4gτ, want %.4gτ", i, a.End, a.End/tau, tc.ends[i]/tau)
				}
			}
			var delay float64
			for _, l := range r.Links {
				if l.Kind == "shared" {
					delay += l.QueueDelay
				}
			}
			if len(tc.ends) == 2 && !(delay > 0) {
				t.Errorf("no queueing on the shared link")
			}
		})
	}
}

// TestHybridPipelineDataParallel: two 1F1B pipelines of p stages, each
// with half the batch; each stage all-reduces its gradients with its
// replica once its backward pass is done, and its update waits for that.
// With no pipeline communication the step is the half-batch pipeline,
// then stage 0's all-reduce (it finishes its backward last), then its
// update.
func TestHybridPipelineDataParallel(t *testing.T) {
	const (
		bw = 20e9
		P  = int64(64 << 20)
	)
	for _, p := range []int{2, 4} {
		for _, m := range []int{4, 16} {
			t.Run(fmt.Sprintf("p=%d/m=%d", p, m), func(t *testing.T) {
				c := pairCluster(t, 2*p, nil, bw, 0, links.NVSwitch)
				u := uniformSpec{p: p, m: m, reps: 2, f: 1e-3, b: 2e-3, params: P, update: 0.25e-3}
				g, plan := u.build()
				if err := g.Validate(); err != nil {
					t.Fatal(err)
				}
				plan.Pipeline = &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: m}
				plan.DataParallel = &engine.DataParallel{Replicas: 2}
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				pipe := float64(m+p-1) * (u.f + u.b) / 2
				ar := float64(P) / bw // 2(n-1)/n · P/bw with n = 2
				if want := pipe + ar + u.update; !closeTo(r.StepTime, want, arTol) {
					t.Errorf("step %.9g, want pipeline/2 + all-reduce + update = %.9g", r.StepTime, want)
				}
				if got := len(r.DataParallel.AllReduces); got != p {
					t.Errorf("%d all-reduces, want one per stage = %d", got, p)
				}
				for s, st := range r.Pipeline.Stages {
					if want := []string{fmt.Sprintf("gpu%d", s), fmt.Sprintf("gpu%d", p+s)}; fmt.Sprint(st.Devices) != fmt.Sprint(want) {
						t.Errorf("stage %d on %v, want %v", s, st.Devices, want)
					}
				}
				if want := float64(g.Batch) / r.StepTime; !closeTo(r.Throughput, want, arTol) {
					t.Errorf("throughput %g, want batch/step %g", r.Throughput, want)
				}
			})
		}
	}
}

// TestBucketOverlap: bucketed all-reduces that start as soon as their
// gradients are ready overlap the rest of the backward pass and shorten
// the step; one bucket per layer gives one all-reduce per layer.
func TestBucketOverlap(t *testing.T) {
	const (
		layers = 4
		P      = int64(32 << 20)
		bw     = 10e9
	)
	fwd := workloads.Chain(layers, []float64{2e-3}, 1<<20)
	for i := range fwd.Ops {
		fwd.Ops[i].ParamBytes = P
	}
	g, err := workloads.DeriveTraining(fwd)
	if err != nil {
		t.Fatal(err)
	}
	c := pairCluster(t, 2, [][2]int{{0, 1}}, bw, 0, "")
	run := func(dp *engine.DataParallel) *engine.Result {
		r, err := engine.Simulate(g, c, &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: dp}, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	whole := run(&engine.DataParallel{Replicas: 2})
	bucketed := run(&engine.DataParallel{Replicas: 2, BucketBytes: P, Overlap: true})
	if n := len(bucketed.DataParallel.AllReduces); n != layers {
		t.Errorf("%d all-reduces with a bucket per layer, want %d", n, layers)
	}
	if n := len(whole.DataParallel.AllReduces); n != 1 {
		t.Errorf("%d all-reduces without buckets, want 1", n)
	}
	if !(bucketed.StepTime < whole.StepTime) {
		t.Errorf("overlapped buckets: step %g, not shorter than one all-reduce after the backward: %g", bucketed.StepTime, whole.StepTime)
	}
	// the first bucket's all-reduce starts before the backward pass ends
	var lastGrad float64
	for i, op := range g.Ops {
		if op.Role == workloads.Backward {
			lastGrad = max(lastGrad, bucketed.OpEnd[i])
		}
	}
	if first := bucketed.DataParallel.AllReduces[0]; !(first.Start < lastGrad) {
		t.Errorf("first bucket starts at %g, after the backward pass ends at %g", first.Start, lastGrad)
	}
}

// TestFixedBytesNotDivided: a data-parallel replica runs an op on 1/n of
// the batch, so the op's bytes shrink n-fold, except its FixedBytes
// (whole tensors, such as a table's dense gradient, that are the same
// size at any batch): a memory-bound op of B bytes of which F are fixed
// takes the roofline of F + (B - F)/n bytes on each of n replicas.
func TestFixedBytesNotDivided(t *testing.T) {
	const (
		n = 4
		B = int64(1 << 30)
		F = int64(3 << 28)
	)
	g := workloads.NewGraph("fixed", 8)
	g.AddOp(workloads.Op{Name: "table/grad", Type: "add", Role: workloads.Backward, BytesAccessed: B, FixedBytes: F})
	c := meshCluster(t, n, 10e9, 0)
	r, err := engine.Simulate(g, c, &engine.Plan{Device: make([]int, len(g.Ops)), DataParallel: &engine.DataParallel{Replicas: n}}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := &c.Devices[0].Kind
	want, err := devices.OpTime(&workloads.Op{Type: "add", Role: workloads.Backward, BytesAccessed: F + (B-F)/n}, k)
	if err != nil {
		t.Fatal(err)
	}
	got := r.OpEnd[0] - r.OpStart[0]
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("op of %d bytes, %d fixed, on %d replicas: %g s, want %g s (the roofline of F + (B-F)/n bytes)", B, F, n, got, want)
	}
	divided, _ := devices.OpTime(&workloads.Op{Type: "add", Role: workloads.Backward, BytesAccessed: B / n}, k)
	if !(want > 2*divided) {
		t.Fatalf("test is weak: fixed %g s against all divided %g s", want, divided)
	}
}
