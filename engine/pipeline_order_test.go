package engine_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/workloads"
)

// stageSequence lists the compute nodes device d ran, in start order, as
// "F3", "B0", "R1" (recompute), "U" (once) or "U2".
func stageSequence(g *workloads.Graph, r *engine.Result, ops map[int]bool) []string {
	in := r.Instances
	var xs []int
	for x, op := range in.Op {
		if op >= 0 && ops[int(op)] {
			xs = append(xs, x)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool { return in.Start[xs[i]] < in.Start[xs[j]] })
	var seq []string
	for _, x := range xs {
		op := g.Ops[in.Op[x]]
		var s string
		switch {
		case in.Kind[x] == engine.NodeRecompute:
			s = "R"
		case op.Role == workloads.Forward:
			s = "F"
		case op.Role == workloads.Backward:
			s = "B"
		default:
			s = "U"
		}
		if in.MicroBatch[x] >= 0 {
			s += fmt.Sprint(in.MicroBatch[x])
		}
		seq = append(seq, s)
	}
	return seq
}

// TestScheduleOrder: each device runs its stage's work in the schedule's
// order (one forward and one backward op per stage here, no update ops
// but the last case's).
func TestScheduleOrder(t *testing.T) {
	c := freeCluster(t, 4)
	cases := []struct {
		sched     engine.Schedule
		recompute bool
		update    float64
		stage     int
		want      string
	}{
		{engine.GPipe, false, 0, 0, "F0 F1 F2 F3 F4 F5 B5 B4 B3 B2 B1 B0"},
		{engine.GPipe, true, 0, 1, "F0 F1 F2 F3 F4 F5 R5 B5 R4 B4 R3 B3 R2 B2 R1 B1 R0 B0"},
		{engine.OneFOneB, false, 0, 0, "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5"},
		{engine.OneFOneB, false, 0, 1, "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5"},
		{engine.OneFOneB, false, 0, 2, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5"},
		{engine.OneFOneB, true, 0, 2, "F0 R0 B0 F1 R1 B1 F2 R2 B2 F3 R3 B3 F4 R4 B4 F5 R5 B5"},
		{engine.OneFOneB, false, 1e-4, 2, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 U"},
		{engine.PipeDream, false, 1e-4, 1, "F0 F1 B0 U0 F2 B1 U1 F3 B2 U2 F4 B3 U3 F5 B4 U4 B5 U5"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/recompute=%v/update=%v/stage%d", tc.sched, tc.recompute, tc.update > 0, tc.stage), func(t *testing.T) {
			u := uniformSpec{p: 3, m: 6, f: 1e-3, b: 2e-3, act: 1 << 10, boundary: 1 << 10, update: tc.update}
			g, _ := u.build()
			r := runPipeline(t, u, tc.sched, tc.recompute, c)
			ops := map[int]bool{}
			for i, op := range g.Ops {
				if op.Name == fmt.Sprintf("F%d", tc.stage) || op.Name == fmt.Sprintf("B%d", tc.stage) || op.Name == fmt.Sprintf("U%d", tc.stage) {
					ops[i] = true
				}
			}
			if got := strings.Join(stageSequence(g, r, ops), " "); got != tc.want {
				t.Errorf("stage %d ran\n  %s\nwant\n  %s", tc.stage, got, tc.want)
			}
		})
	}
}

// TestPipelineTransfers: every micro-batch sends its activation forward
// and its gradient backward across each of the p-1 boundaries, with the
// per-micro-batch bytes.
func TestPipelineTransfers(t *testing.T) {
	c := freeCluster(t, 8)
	for _, p := range []int{2, 4, 8} {
		for _, m := range []int{1, 4, 32} {
			t.Run(fmt.Sprintf("p=%d/m=%d", p, m), func(t *testing.T) {
				const boundary = 1000
				u := uniformSpec{p: p, m: m, f: 1e-3, b: 2e-3, boundary: boundary}
				g, plan := u.build()
				plan.Pipeline = &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: m}
				r, err := engine.Simulate(g, c, plan, engine.Options{Trace: true})
				if err != nil {
					t.Fatal(err)
				}
				// each (producer, micro-batch) crosses its boundary once
				seen := map[string]bool{}
				for _, x := range r.Trace.Transfers {
					key := fmt.Sprintf("%s/%d", g.Ops[x.Producer].Name, x.MicroBatch)
					if seen[key] || x.MicroBatch < 0 || x.MicroBatch >= m {
						t.Errorf("transfer of %s: repeated or micro-batch out of range", key)
					}
					seen[key] = true
				}
				if want := 2 * (p - 1) * m; r.TransferCount != want {
					t.Errorf("%d transfers, want 2(p-1)m = %d", r.TransferCount, want)
				}
				if want := int64(2*(p-1)*m) * boundary; r.BytesMoved != want {
					t.Errorf("%d bytes moved, want 2(p-1)m·boundary = %d", r.BytesMoved, want)
				}
			})
		}
	}
}

// TestPipelineDegenerate: one stage and one micro-batch is the plain step
// (its op times add up on the device); a data-parallel plan with one
// replica is the plain step too.
func TestPipelineDegenerate(t *testing.T) {
	c := freeCluster(t, 2)
	fwd := workloads.MLP(64, []int{256, 512, 128})
	g, err := workloads.DeriveTraining(fwd)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	dev := make([]int, len(g.Ops))
	plain, err := engine.Simulate(g, c, &engine.Plan{Device: dev}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		plan *engine.Plan
	}{
		{"1f1b p=1 m=1", &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 1}}},
		{"gpipe p=1 m=1", &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: engine.GPipe, MicroBatches: 1}}},
		{"one replica", &engine.Plan{Device: dev, DataParallel: &engine.DataParallel{Replicas: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := engine.Simulate(g, c, tc.plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(r.StepTime, plain.StepTime, closedTol) {
				t.Errorf("step %.12g, want the plain step's %.12g", r.StepTime, plain.StepTime)
			}
			if r.Devices[0].ParamBytes != plain.Devices[0].ParamBytes || r.Devices[0].Ops != plain.Devices[0].Ops {
				t.Errorf("device 0 has %d ops, %d param bytes; want %d, %d", r.Devices[0].Ops, r.Devices[0].ParamBytes,
					plain.Devices[0].Ops, plain.Devices[0].ParamBytes)
			}
		})
	}
}

// TestPipelineDeterministic: the same plan gives identical results.
func TestPipelineDeterministic(t *testing.T) {
	c := pairCluster(t, 8, nil, 10e9, 1e-6, "pcie-switch")
	u := uniformSpec{p: 4, m: 8, reps: 2, f: 1e-3, b: 2e-3, act: 1 << 20, boundary: 1 << 18, params: 1 << 20, update: 1e-4}
	run := func() *engine.Result {
		g, plan := u.build()
		plan.Pipeline = &engine.Pipeline{Schedule: engine.PipeDream, MicroBatches: u.m, Recompute: true}
		plan.DataParallel = &engine.DataParallel{Replicas: 2, BucketBytes: 1 << 19, Overlap: true}
		r, err := engine.Simulate(g, c, plan, engine.Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		r.Instances = nil // holds an unexported pointer; its slices are compared below
		return r
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of the same plan differ")
	}
}

// TestPipelineOOM: an out-of-memory names the op and its micro-batch.
func TestPipelineOOM(t *testing.T) {
	c := freeCluster(t, 2)
	u := uniformSpec{p: 2, m: 8, f: 1e-3, b: 2e-3, act: 1 << 38}
	r := runPipeline(t, u, engine.GPipe, false, c)
	if r.OOM == nil {
		t.Fatal("no OOM with 8 micro-batches of 256 GiB on 1 TiB devices")
	}
	if !strings.Contains(r.OOM.OpName, "micro-batch") || r.OOM.Device != 0 {
		t.Errorf("OOM %+v: want device 0 and the op's micro-batch named", r.OOM)
	}
}
