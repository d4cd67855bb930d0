package study

import (
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
