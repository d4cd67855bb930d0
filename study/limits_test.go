package study

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"placesim/placers"
	"placesim/placers/builtin"
	"placesim/workloads"
)

// TestInputCachePanicFailsOnce: a workload loader that panics fails every
// point of that workload with the one error; no point gets a nil graph
// (issue 31: a panicking ONNX import left nil for the workload's other
// points, which then failed with nil-pointer panics).
func TestInputCachePanicFailsOnce(t *testing.T) {
	t.Parallel()
	c := newInputCache()
	calls := 0
	c.workloadF = func(spec string) (*workloads.Graph, error) {
		calls++
		var s []int
		_ = s[len(spec)] // index out of range, as the 1-D MatMul did
		return nil, nil
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := c.workload("bad.onnx")
			if g != nil {
				t.Errorf("point %d: a graph from a panicking loader", i)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("loader called %d times, want once", calls)
	}
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), `reading "bad.onnx" failed`) || !strings.Contains(err.Error(), "index out of range") {
			t.Errorf("point %d: error %v, want the one panic named with its input", i, err)
		}
	}
}

// TestRunScenarioWorkersBound: --workers beyond MaxWorkers is refused
// before any goroutine starts, naming the limit.
func TestRunScenarioWorkersBound(t *testing.T) {
	t.Parallel()
	s := &Scenario{Name: "w", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"}, Placers: []string{"single"}}
	for _, w := range []int{-1, MaxWorkers + 1, 1 << 31} {
		_, _, err := RunScenario(t.Context(), s, RunOptions{Dir: t.TempDir(), Workers: w})
		if err == nil || !strings.Contains(err.Error(), "valid range: 0 for the number of cores, up to 1024") {
			t.Errorf("workers %d: error %v, want the range named", w, err)
		}
	}
}

// TestJournalLocked: a journal is written by one run at a time; a second
// open of it (another run into the same folder or shard) is refused until
// the first closes it (issue 31: two runs on one --out interleaved it).
func TestJournalLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	f1, _, _, err := openJournal(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f2, _, _, err := openJournal(path, nil, nil); err == nil || !strings.Contains(err.Error(), "journal is locked") {
		if f2 != nil {
			f2.Close()
		}
		t.Fatalf("second open: %v, want refused as locked", err)
	}
	f1.Close()
	f3, _, _, err := openJournal(path, nil, nil)
	if err != nil {
		t.Fatalf("open after the first closed: %v", err)
	}
	f3.Close()
}

// TestResumeKeysOnOptionFiles: a resume re-simulates the point whose
// placer option names a file that changed since it ran (the journal keys
// on the file's contents, not its path), and keeps the other points.
func TestResumeKeysOnOptionFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"default": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Name: "ex", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"}, Placers: []string{"expert", "single"},
		PlacerOptions: map[string]map[string]string{"expert": {"file": plan}}}
	run := func() []string {
		var notes []string
		o := RunOptions{Registry: reg, Dir: filepath.Join(dir, "out"), Notice: func(m string) { notes = append(notes, m) }}
		if _, _, err := RunScenario(t.Context(), s, o); err != nil {
			t.Fatal(err)
		}
		return notes
	}
	run()
	if notes := run(); len(notes) != 0 {
		t.Fatalf("nothing changed, yet: %q", notes)
	}
	if err := os.WriteFile(plan, []byte(`{"default": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := run()
	if len(notes) != 1 || !strings.Contains(notes[0], "1 journaled points") || !strings.Contains(notes[0], "expert") {
		t.Fatalf("after the plan changed: notes %q, want the expert point re-simulated", notes)
	}
}

// TestPointInputsKeyOnOptionDefaults: a point run with a placer's
// declared defaults hashes differently once a default changes (a new
// build with a larger search budget), so that a resume re-runs it even
// when the two builds carry the same version string.
func TestPointInputsKeyOnOptionDefaults(t *testing.T) {
	t.Parallel()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Entry("pesto")
	if err != nil {
		t.Fatal(err)
	}
	k := slices.IndexFunc(e.Options, func(o placers.Option) bool { return o.Name == "rangesearch" })
	if k < 0 {
		t.Fatal("pesto declares no rangesearch option")
	}
	changed := e
	changed.Options = slices.Clone(e.Options)
	changed.Options[k].Default += "1" // 400 -> 4001 simulations
	reg2 := placers.NewRegistry()
	if err := reg2.Add(changed); err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Name: "ex", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"}, Placers: []string{"pesto"}}
	p := Point{Placer: "pesto", Workload: s.Workloads[0], Cluster: s.Clusters[0]}
	in := func(r *placers.Registry) PointInputs {
		c := newInputCache()
		return c.pointInputs(r, s, p, placers.Options{}, 0, "v")
	}
	if a, b := in(reg), in(reg); a != b {
		t.Fatalf("the same registry hashes differently: %+v, %+v", a, b)
	}
	a, b := in(reg), in(reg2)
	if a.Settings == b.Settings {
		t.Fatalf("option %s's default %q -> %q left the settings hash unchanged", e.Options[k].Name, e.Options[k].Default, changed.Options[k].Default)
	}
	if d := b.diff(a); !strings.Contains(d, "settings or placer options") {
		t.Fatalf("diff %q does not name the settings", d)
	}
}
