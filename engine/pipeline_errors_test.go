package engine_test

import (
	"errors"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/workloads"
)

// TestPipelinePlanErrors: bad pipeline and data-parallel plans are errors
// wrapping ErrInvalidPlan that name the field and the valid values.
func TestPipelinePlanErrors(t *testing.T) {
	c := freeCluster(t, 4)
	u := uniformSpec{p: 2, m: 4, f: 1e-3, b: 2e-3, update: 1e-4}
	g, base := u.build()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	// ops: x F0 F1 B1 B0 U0 U1; stage 0 = {x, F0, B0, U0} on device 0
	stage0, stage1 := []int{0, 1, 4, 5}, []int{2, 3, 6}
	pipe := func(mod func(*engine.Pipeline)) func(*engine.Plan) {
		return func(p *engine.Plan) {
			p.Pipeline = &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 4}
			mod(p.Pipeline)
		}
	}
	cases := []struct {
		name string
		mod  func(*engine.Plan)
		want []string
	}{
		{"zero micro-batches", pipe(func(p *engine.Pipeline) { p.MicroBatches = 0 }),
			[]string{"pipeline.microBatches = 0", "valid range: >= 1"}},
		{"negative micro-batches", pipe(func(p *engine.Pipeline) { p.MicroBatches = -3 }),
			[]string{"pipeline.microBatches = -3", "valid range: >= 1"}},
		{"unknown schedule", pipe(func(p *engine.Pipeline) { p.Schedule = "zigzag" }),
			[]string{`pipeline.schedule = "zigzag"`, "valid: gpipe, 1f1b, pipedream"}},
		{"empty schedule", pipe(func(p *engine.Pipeline) { p.Schedule = "" }),
			[]string{`pipeline.schedule = ""`, "valid: gpipe, 1f1b, pipedream"}},
		{"stages miss an op", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{stage0, stage1[:2]} }),
			[]string{`op "U1" is in no stage`, "must cover the graph"}},
		{"stages overlap", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{stage0, append([]int{1}, stage1...)} }),
			[]string{`op "F0" is in pipeline.stages[0] and pipeline.stages[1]`, "must not overlap"}},
		{"stage names no op", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{stage0, append([]int{9}, stage1...)} }),
			[]string{"pipeline.stages[1] names op 9", "valid range: 0..6"}},
		{"empty stage", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{stage0, stage1, {}} }),
			[]string{"pipeline.stages[2] is empty"}},
		{"no stages", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{} }),
			[]string{"pipeline.stages is empty"}},
		{"stage on two devices", pipe(func(p *engine.Pipeline) { p.Stages = [][]int{append(append([]int{}, stage0...), stage1...)} }),
			[]string{"pipeline.stages[0] has op", "a stage runs on one device"}},
		{"order with a pipeline", func(p *engine.Plan) {
			pipe(func(*engine.Pipeline) {})(p)
			p.Order = [][]int{stage0, stage1, nil, nil}
		}, []string{"field order is set with a pipeline"}},
		{"priority with a pipeline", func(p *engine.Plan) {
			pipe(func(*engine.Pipeline) {})(p)
			p.Priority = make([]float64, len(p.Device))
		}, []string{"field priority is set with a pipeline"}},
		{"more micro-batches than samples", pipe(func(p *engine.Pipeline) { p.MicroBatches = 5 }),
			[]string{"pipeline.microBatches = 5", "batch (valid range: 1..4)"}},
		{"micro-batches x replicas above the batch", func(p *engine.Plan) {
			pipe(func(*engine.Pipeline) {})(p)
			p.DataParallel = &engine.DataParallel{Replicas: 2}
		}, []string{"pipeline.microBatches x dataParallel.replicas = 4 x 2", "micro-batches in 1..2"}},
		{"zero replicas", func(p *engine.Plan) { p.DataParallel = &engine.DataParallel{Replicas: 0} },
			[]string{"dataParallel.replicas = 0", "valid range: >= 1"}},
		{"too many replicas", func(p *engine.Plan) { p.DataParallel = &engine.DataParallel{Replicas: 3} },
			[]string{"dataParallel.replicas = 3", "no free device"}},
		{"negative bucket", func(p *engine.Plan) { p.DataParallel = &engine.DataParallel{Replicas: 2, BucketBytes: -1} },
			[]string{"dataParallel.bucketBytes = -1", "valid range: >= 0"}},
		{"replica reuses a device", func(p *engine.Plan) {
			p.DataParallel = &engine.DataParallel{Replicas: 2, Devices: [][]int{{0, 1}, {2, 1}}}
		}, []string{"dataParallel.devices[1][1]", "used twice"}},
		{"replica devices not the plan's", func(p *engine.Plan) {
			p.DataParallel = &engine.DataParallel{Replicas: 2, Devices: [][]int{{0, 2}, {1, 3}}}
		}, []string{"dataParallel.devices[0]", "the devices the plan uses"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := &engine.Plan{Device: append([]int(nil), base.Device...)}
			tc.mod(plan)
			_, err := engine.Simulate(g, c, plan, engine.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, engine.ErrInvalidPlan) {
				t.Errorf("error %v does not wrap ErrInvalidPlan", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestParseSchedule accepts the three names and nothing else.
func TestParseSchedule(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{{"gpipe", true}, {"1f1b", true}, {"pipedream", true}, {"GPipe", false}, {"", false}, {"1F1B", false}} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := engine.ParseSchedule(tc.in)
			if tc.ok != (err == nil) || (tc.ok && string(s) != tc.in) {
				t.Errorf("ParseSchedule(%q) = %q, %v", tc.in, s, err)
			}
			if err != nil && !strings.Contains(err.Error(), "valid: gpipe, 1f1b, pipedream") {
				t.Errorf("error %q does not list the schedules", err)
			}
		})
	}
}

// TestSizeLimit: a plan whose unrolled step would need more memory than
// Options.MaxMemory is refused before anything is allocated, naming the
// micro-batches, the replicas and the memory; counts that overflow are
// refused too; a negative limit is an error.
func TestSizeLimit(t *testing.T) {
	c := freeCluster(t, 4)
	g := workloads.NewGraph("big-batch", 1<<62)
	a := g.AddOp(workloads.Op{Name: "a", Role: workloads.Forward, OutputBytes: 8})
	b := g.AddOp(workloads.Op{Name: "b", Role: workloads.Forward})
	g.AddEdge(a, b, 8)
	pipe := func(m int) *engine.Plan {
		return &engine.Plan{Device: []int{0, 1}, Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: m}}
	}
	for _, tc := range []struct {
		name string
		plan *engine.Plan
		opt  engine.Options
		want []string
	}{
		{"1e9 micro-batches", pipe(1_000_000_000), engine.Options{}, []string{"1000000000 micro-batches x 1 replicas x 2 ops", "instances", "lower pipeline.microBatches"}},
		{"above the memory limit", pipe(1_000_000), engine.Options{MaxMemory: 64 << 20}, []string{"1000000 micro-batches", "to simulate, above the limit of 64.00 MiB"}},
		{"overflow", pipe(1 << 62), engine.Options{}, []string{"overflows 64 bits"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Simulate(g, c, tc.plan, tc.opt)
			if !errors.Is(err, engine.ErrTooLarge) {
				t.Fatalf("error %v, want ErrTooLarge", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if _, err := engine.Simulate(g, c, pipe(4), engine.Options{MaxMemory: -1}); !errors.Is(err, engine.ErrInvalidPlan) {
		t.Errorf("negative MaxMemory: %v, want ErrInvalidPlan", err)
	}
	if _, err := engine.Simulate(g, c, pipe(1000), engine.Options{MaxMemory: 64 << 20}); err != nil {
		t.Errorf("1000 micro-batches within 64 MiB: %v", err)
	}
}
