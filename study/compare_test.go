package study_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/study"
	"placesim/workloads"
)

// tol is the relative tolerance for simulated times compared across runs.
const tol = 1e-12

type stub struct {
	name  string
	place func(ctx context.Context, req *placers.Request) (*engine.Plan, error)
}

func (s stub) Name() string { return s.name }
func (s stub) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	return s.place(ctx, req)
}

// testRegistry has the baselines and placers that fail in every way a
// comparison must survive. ignored counts finished calls of "stubborn".
// fileArgs are the options of the test placer needs-opt: a required file.
type fileArgs struct{ File string }

func (a *fileArgs) Declare(d *placers.Decls) {
	d.Path(&a.File, "file", placers.InputFile, "", "a file the placer reads").Require()
}

func testRegistry(t *testing.T, ignored *atomic.Int32) *placers.Registry {
	t.Helper()
	reg := placers.NewRegistry()
	if err := baseline.Register(reg); err != nil {
		t.Fatal(err)
	}
	stubs := []stub{
		{"fails", func(context.Context, *placers.Request) (*engine.Plan, error) { return nil, errors.New("no plan") }},
		{"panics", func(context.Context, *placers.Request) (*engine.Plan, error) { panic("boom") }},
		{"polite", func(ctx context.Context, _ *placers.Request) (*engine.Plan, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{"stubborn", func(_ context.Context, req *placers.Request) (*engine.Plan, error) { // ignores its context
			time.Sleep(400 * time.Millisecond)
			ignored.Add(1)
			return placers.NewPlan(req.Graph), nil
		}},
		{"bad-plan", func(context.Context, *placers.Request) (*engine.Plan, error) {
			return &engine.Plan{Device: []int{0}}, nil
		}},
	}
	for _, s := range stubs {
		s := s
		if err := reg.Add(placers.Define(s.name, "test", func(placers.NoArgs) (placers.Placer, error) { return s, nil })); err != nil {
			t.Fatal(err)
		}
	}
	err := reg.Add(placers.Define("needs-opt", "test", func(a fileArgs) (placers.Placer, error) {
		if a.File == "" {
			return nil, fmt.Errorf("%w: file is required", placers.ErrBadOption)
		}
		return stubs[0], nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func testInputs(t *testing.T) (*workloads.Graph, *devices.Cluster) {
	t.Helper()
	g, err := workloads.DeriveTraining(workloads.MLP(16, []int{64, 128, 128, 10}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	return g, c
}

func TestCompareFailuresAreRows(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	g, c := testInputs(t)
	names := []string{"stubborn", "single", "fails", "polite", "panics", "round-robin", "bad-plan", "random"}
	var calls atomic.Int32
	start := time.Now()
	rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{
		Placers: names, Workers: 3, Timeout: 50 * time.Millisecond,
		Progress: func(p study.Progress) {
			if n := calls.Add(1); int(n) != p.Done || p.Total != len(names) || p.Record == nil {
				t.Errorf("progress call %d: %+v", n, p)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 350*time.Millisecond || ignored.Load() != 0 {
		t.Errorf("compare took %v (stubborn finished %d times): it waited for a placer that ignores its context", took, ignored.Load())
	}
	if int(calls.Load()) != len(names) || len(rows) != len(names) {
		t.Fatalf("%d rows, %d progress calls for %d placers", len(rows), calls.Load(), len(names))
	}
	wantErr := map[string]string{
		"fails":    "place: no plan",
		"panics":   "panic: boom",
		"polite":   "timed out after 50ms",
		"stubborn": "timed out after 50ms",
		"bad-plan": "simulate: invalid plan",
	}
	for _, o := range rows {
		want := wantErr[o.Placer]
		if want == "" && o.Error != "" || !strings.HasPrefix(o.Error, want) {
			t.Errorf("%s: error %q, want prefix %q", o.Placer, o.Error, want)
		}
		if o.Workload != g.Name || o.Cluster != c.Name {
			t.Errorf("%s: row names workload %q cluster %q", o.Placer, o.Workload, o.Cluster)
		}
		if strings.HasPrefix(want, "timed out") && (o.PlaceTime == nil || *o.PlaceTime < 0.05) {
			t.Errorf("%s timed out but its placeTime is %v", o.Placer, o.PlaceTime)
		}
	}
	// failed rows come after every simulated one, by name
	var order []string
	for _, o := range rows {
		order = append(order, o.Placer)
	}
	if got, want := order[3:], []string{"bad-plan", "fails", "panics", "polite", "stubborn"}; !slices.Equal(got, want) {
		t.Errorf("failed rows in order %v, want %v", got, want)
	}
	for i := 1; i < 3; i++ {
		if rows[i].StepTime < rows[i-1].StepTime {
			t.Errorf("rows not sorted by step time: %v", order)
		}
	}
}

func TestCompareDeterministicAcrossWorkers(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	g, c := testInputs(t)
	names := []string{"random", "fails", "single", "round-robin", "panics"}
	var ref []*study.Record
	for _, w := range []int{1, 2, 5, 0} {
		t.Run(fmt.Sprintf("workers=%d", w), func(t *testing.T) {
			rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{
				Placers: names, Workers: w, Base: study.Spec{Seed: 7, Reproducible: true}})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = rows
				return
			}
			for i, o := range rows {
				r := ref[i]
				if o.Placer != r.Placer || o.Error != r.Error || o.PlaceTime != nil ||
					!scalar.EqualWithinAbsOrRel(o.StepTime, r.StepTime, tol, tol) || !slices.Equal(o.PeakMemory, r.PeakMemory) {
					t.Fatalf("row %d: %s %g %v differs from %s %g %v with one worker", i, o.Placer, o.StepTime, o.PeakMemory, r.Placer, r.StepTime, r.PeakMemory)
				}
			}
		})
	}
}

func TestCompareSpecErrors(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	g, c := testInputs(t)
	tests := []struct {
		name string
		cs   study.CompareSpec
		want []string
	}{
		{"unknown placer", study.CompareSpec{Placers: []string{"single", "magic"}}, []string{`unknown placer "magic"`, "valid:", "round-robin"}},
		{"repeated placer", study.CompareSpec{Placers: []string{"single", "single"}}, []string{`"single" is listed twice`}},
		{"negative timeout", study.CompareSpec{Placers: []string{"single"}, Timeout: -time.Second}, []string{"negative"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := study.Compare(context.Background(), reg, g, c, tc.cs)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("error %v, want one containing %q", err, w)
				}
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := study.Compare(ctx, reg, g, c, study.CompareSpec{Placers: []string{"single"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestDefaultPlacers(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	names, err := study.DefaultPlacers(reg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, "needs-opt") || slices.Contains(names, "expert") || !slices.Contains(names, "single") || !slices.IsSorted(names) {
		t.Fatalf("default placers %v: want every placer but those that need options, sorted", names)
	}
	broken := placers.NewRegistry()
	_ = broken.Add(placers.Define("broken", "test", func(placers.NoArgs) (placers.Placer, error) { return nil, errors.New("factory bug") }))
	if _, err := study.DefaultPlacers(broken); err == nil || !strings.Contains(err.Error(), "factory bug") {
		t.Fatalf("a factory that fails for another reason: %v", err)
	}
}

func TestBestAndRetrace(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	g, c := testInputs(t)
	rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{
		Placers: []string{"fails", "round-robin", "single"}, Base: study.Spec{Reproducible: true}})
	if err != nil {
		t.Fatal(err)
	}
	best := study.Best(rows)
	if best == nil || best != rows[0] || best.Failed() {
		t.Fatalf("best %v, want the first row %s", best, rows[0].Placer)
	}
	before := *best.Result
	if err := study.Retrace(best, c); err != nil {
		t.Fatal(err)
	}
	after := best.Result
	if after.Trace == nil || len(after.Trace.Memory) != len(c.Devices) {
		t.Fatal("retrace recorded no trace")
	}
	if !scalar.EqualWithinAbsOrRel(after.StepTime, before.StepTime, tol, tol) || after.BytesMoved != before.BytesMoved {
		t.Fatalf("retraced step %g, moved %d; first run %g, %d", after.StepTime, after.BytesMoved, before.StepTime, before.BytesMoved)
	}
	if study.Best(rows[2:]) != nil {
		t.Fatal("best of failed rows is not nil")
	}
}

// TestTimeoutAlwaysReported checks that a placer giving up at its deadline
// is reported as timed out, whichever of its return and the deadline the
// comparison sees first.
func TestTimeoutAlwaysReported(t *testing.T) {
	var ignored atomic.Int32
	reg := testRegistry(t, &ignored)
	g, c := testInputs(t)
	for i := 0; i < 50; i++ {
		rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{
			Placers: []string{"polite"}, Timeout: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Error != "timed out after 1ms" {
			t.Fatalf("run %d: error %q, want a timeout", i, rows[0].Error)
		}
	}
}
