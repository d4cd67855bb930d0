package reports_test

import (
	"bytes"
	"placesim/runresult"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/reports"
)

// regimeRows: two placers in two regimes; in step, a is fastest, in
// 1f1b:4 b is, and b's pipelined step beats every step row.
func regimeRows() []*runresult.Record {
	row := func(placer, regime string, step float64) *runresult.Record {
		o := &runresult.Record{Point: runresult.Point{Placer: placer, Regime: regime}, StepTime: step, Throughput: 64 / step,
			PeakMemory: []int64{1 << 30}, Capacity: []int64{16 << 30}}
		if regime != "step" {
			o.Result = &engine.Result{Pipeline: &engine.PipelineStats{Schedule: engine.OneFOneB, MicroBatches: 4}}
		}
		return o
	}
	return []*runresult.Record{
		row("a", "step", 2.0), row("b", "step", 3.0),
		row("a", "1f1b:4", 1.5), row("b", "1f1b:4", 1.0),
		{Point: runresult.Point{Placer: "dp", Regime: "step"}, NotComparable: "not comparable in regime step: replicates"},
		{Point: runresult.Point{Placer: "dp", Regime: "1f1b:4"}, NotComparable: "not comparable in regime 1f1b:4: replicates"},
	}
}

// TestRegimeMatrix: slowdowns are within a regime, each placer's best
// regime is its fastest fit, and a not-comparable placer has none.
func TestRegimeMatrix(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	m := reports.NewRegimeMatrix(regimeRows(), []string{"step", "1f1b:4"})
	if len(m.Placers) != 3 {
		t.Fatalf("%d placers, want 3", len(m.Placers))
	}
	want := map[string]struct {
		vs   [2]float64
		best string
	}{
		"a":  {[2]float64{1, 1.5}, "1f1b:4"},
		"b":  {[2]float64{1.5, 1}, "1f1b:4"},
		"dp": {[2]float64{0, 0}, ""},
	}
	for _, p := range m.Placers {
		w := want[p.Placer]
		for i, c := range p.Cells {
			if !scalar.EqualWithinAbsOrRel(c.VsBest, w.vs[i], tol, tol) {
				t.Errorf("%s in %s: vs best %g, want %g", p.Placer, c.Regime, c.VsBest, w.vs[i])
			}
		}
		if p.BestRegime != w.best {
			t.Errorf("%s: best regime %q, want %q", p.Placer, p.BestRegime, w.best)
		}
		if p.Placer == "dp" && p.Cells[0].Status != "not-comparable" {
			t.Errorf("dp status %q, want not-comparable", p.Cells[0].Status)
		}
	}
	if m.Placers[0].Placer != "b" || m.Placers[2].Placer != "dp" {
		t.Errorf("placers ordered %s, %s, %s; want b (1.0 s) first, dp (no fit) last", m.Placers[0].Placer, m.Placers[1].Placer, m.Placers[2].Placer)
	}
	var buf bytes.Buffer
	if err := m.Table(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "not-comparable") || !strings.Contains(buf.String(), "(1.50x)") {
		t.Errorf("matrix table lacks a status or a slowdown:\n%s", buf.String())
	}
}

// TestTableVsBestWithinRegime: "vs best" of a step row is against the best
// step row, never against a faster pipelined row; a not-comparable row
// says why under the table.
func TestTableVsBestWithinRegime(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := reports.Table(&buf, regimeRows()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	checked := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "│")
		if len(f) < 6 {
			continue
		}
		placer, exec, vs := strings.TrimSpace(f[2]), strings.TrimSpace(f[3]), strings.TrimSpace(f[5])
		want := map[string]string{"a step": "1.00x", "b step": "1.50x", "a 1f1b x4": "1.50x", "b 1f1b x4": "1.00x"}
		if w, ok := want[placer+" "+exec]; ok {
			checked++
			if vs != w {
				t.Errorf("%s in %s: vs best %q, want %s (against the best of its regime)", placer, exec, vs, w)
			}
		}
	}
	if checked != 4 {
		t.Errorf("checked %d of 4 rows:\n%s", checked, out)
	}
	if !strings.Contains(out, "dp: not comparable in regime step") {
		t.Errorf("no reason for the not-comparable row:\n%s", out)
	}
}

// TestRegimeNotes: one line per note in the order the notes first
// appear, its placers sorted and each named once (a run's records repeat
// a placer over its points).
func TestRegimeNotes(t *testing.T) {
	rec := func(placer, note string) *runresult.Record {
		return &runresult.Record{Point: runresult.Point{Placer: placer}, RegimeNote: note}
	}
	got := reports.RegimeNotes([]*runresult.Record{
		rec("pipedream", "split played as step"), rec("greedy", "split played as step"), rec("single", ""),
		rec("fastt", "replicas played once"), rec("greedy", "split played as step"),
	})
	want := []string{"split played as step: greedy, pipedream", "replicas played once: fastt"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("regime notes %q, want %q", got, want)
	}
}
