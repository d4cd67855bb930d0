package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers/builtin"
	"placesim/reports"
	"placesim/study"
	"placesim/workloads"
)

// traceEvent is what the test reads back, with pointers to tell a missing
// field from a zero one.
type traceEvent struct {
	Name *string        `json:"name"`
	Ph   *string        `json:"ph"`
	TS   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	PID  *int           `json:"pid"`
	TID  *int           `json:"tid"`
	Cat  *string        `json:"cat"`
	Args map[string]any `json:"args"`
}

// TestChromeTraceFormat validates trace.json against the Trace Event
// Format: the object form with traceEvents; every event has name, ph, ts,
// pid and tid; complete events ("X") have dur >= 0 and timestamps never
// decrease within a thread; counters ("C") carry numeric args; metadata
// ("M") names every thread that has events. It also checks that every op
// and every transfer hop of the run is there.
func TestChromeTraceFormat(t *testing.T) {
	t.Parallel()
	rows, c := fixture(t, true)
	o := tracedBest(t, rows, c)
	g := o.Graph
	if o.Plan.Graph != nil {
		g = o.Plan.Graph
	}
	checkChromeTrace(t, o, c, len(g.Ops))
}

// TestChromeTracePipelined: a pipelined, data-parallel run has one complete
// event per op instance (per micro-batch, per replica).
func TestChromeTracePipelined(t *testing.T) {
	t.Parallel()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	g := workloads.MLP(64, []int{256, 512, 512, 10})
	g, err = workloads.DeriveTraining(g)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := devices.NewPreset("8xV100-nvlink")
	const m, reps = 4, 2
	o, err := study.Run(context.Background(), reg, g, c, study.Spec{Placer: "round-robin", Trace: true, Reproducible: true,
		Regime: study.Regime{Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: m},
			DataParallel: &engine.DataParallel{Replicas: reps}}})
	if err != nil || o.Error != "" || o.Result.Instances == nil {
		t.Fatalf("pipelined run: %v %s", err, o.Error)
	}
	want := 0
	for i := range g.Ops {
		if g.Ops[i].Role == workloads.Update {
			want += reps
		} else {
			want += m * reps
		}
	}
	checkChromeTrace(t, o, c, want)
	if _, err := reports.Gantt(o, c); err != nil {
		t.Fatal(err)
	}
}

// checkChromeTrace validates o's trace against the trace event format and
// counts wantOps op executions plus one event per transfer hop.
func checkChromeTrace(t *testing.T, o *study.Record, c *devices.Cluster, wantOps int) {
	t.Helper()
	var buf bytes.Buffer
	if err := reports.ChromeTrace(&buf, o, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents     []traceEvent   `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}
	dec := json.NewDecoder(&buf)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("trace is not a JSON object in the trace event format: %v", err)
	}
	if doc.DisplayTimeUnit != "ms" && doc.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit %q (valid: ms, ns)", doc.DisplayTimeUnit)
	}
	type thread struct{ pid, tid int }
	named := map[thread]bool{}
	lastTS := map[thread]float64{}
	counts := map[string]int{}
	hops := 0
	for _, tr := range o.Result.Trace.Transfers {
		hops += len(tr.Hops)
	}
	for i, e := range doc.TraceEvents {
		where := fmt.Sprintf("event %d", i)
		if e.Name == nil || e.Ph == nil || e.TS == nil || e.PID == nil || e.TID == nil {
			t.Fatalf("%s lacks a required field (name, ph, ts, pid, tid): %+v", where, e)
		}
		th := thread{*e.PID, *e.TID}
		counts[*e.Ph]++
		switch *e.Ph {
		case "M":
			if e.Args["name"] == nil && e.Args["sort_index"] == nil {
				t.Errorf("%s: metadata %s without name or sort_index", where, *e.Name)
			}
			if *e.Name == "thread_name" {
				named[th] = true
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				t.Fatalf("%s (%s): complete event with dur %v", where, *e.Name, e.Dur)
			}
			if prev, ok := lastTS[th]; ok && *e.TS < prev {
				t.Fatalf("%s (%s): ts %g before the thread's previous %g", where, *e.Name, *e.TS, prev)
			}
			lastTS[th] = *e.TS
			if !named[th] {
				t.Errorf("%s: thread %v has no thread_name metadata before its events", where, th)
			}
			if *e.TS+*e.Dur > o.Result.StepTime*1e6*(1+1e-9) {
				t.Errorf("%s (%s): ends at %g us, after the step (%g us)", where, *e.Name, *e.TS+*e.Dur, o.Result.StepTime*1e6)
			}
		case "C":
			if len(e.Args) == 0 {
				t.Fatalf("%s: counter without values", where)
			}
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					t.Fatalf("%s: counter series %q is %T, want a number", where, k, v)
				}
			}
		default:
			t.Fatalf("%s: phase %q (this trace uses X, C and M)", where, *e.Ph)
		}
	}
	if want := wantOps + hops; counts["X"] != want {
		t.Errorf("%d complete events, want %d op executions + %d hops", counts["X"], wantOps, hops)
	}
	samples := 0
	for _, m := range o.Result.Trace.Memory {
		samples += len(m)
	}
	if counts["C"] != samples || samples == 0 {
		t.Errorf("%d counter events, want one per memory sample (%d)", counts["C"], samples)
	}
}

// TestChromeTraceNeedsTrace checks the error for a run without a trace.
func TestChromeTraceNeedsTrace(t *testing.T) {
	t.Parallel()
	rows, c := fixture(t, true)
	var buf bytes.Buffer
	for _, o := range rows {
		if o.Result != nil && o.Result.Trace != nil {
			t.Fatalf("%s: compare recorded a trace it did not need", o.Placer)
		}
		if err := reports.ChromeTrace(&buf, o, c); err == nil {
			t.Errorf("%s: no error for a run without trace", o.Placer)
		}
	}
}
