package study

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
