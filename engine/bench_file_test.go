package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/native"
)

// BenchmarkSimulateFile plays each native graph of the directory named by
// PLACESIM_BENCH_GRAPHS (skipped when unset) as one step cut into four
// contiguous parts in topological order on 4xV100-pcie, as
// BenchmarkSimulateTransformer does. scripts/bench-engine-ratio.sh writes
// the Transformer steps there (engine/internal/benchgraphs) and copies
// this file into an older tree, so that both engines play the same step;
// it uses only API that commit 64f744f has.
func BenchmarkSimulateFile(b *testing.B) {
	dir := os.Getenv("PLACESIM_BENCH_GRAPHS")
	if dir == "" {
		b.Skip("PLACESIM_BENCH_GRAPHS is not set")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		b.Fatalf("PLACESIM_BENCH_GRAPHS=%q: no *.json graph (%v)", dir, err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		g, plan, err := fileStep(f)
		if err != nil {
			b.Fatal(err)
		}
		name := filepath.Base(f)
		b.Run(fmt.Sprintf("%s/ops=%d", name[:len(name)-len(filepath.Ext(name))], len(g.Ops)), func(b *testing.B) {
			b.ReportAllocs()
			var r *engine.Result
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if r, err = engine.Simulate(g, c, plan, engine.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			n := float64(len(g.Ops)) * float64(b.N)
			b.ReportMetric(n/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/simop")
			b.ReportMetric(float64(r.TransferCount), "transfers")
			b.ReportMetric(r.StepTime, "step-s")
		})
	}
}

// The steps the engine's benchmarks play live here, in the file that
// scripts/bench-engine-ratio.sh copies into the older tree it compares
// with, so that both trees play the same ones.

// fileStep reads a native graph and cuts it into quarters.
func fileStep(path string) (*workloads.Graph, *engine.Plan, error) {
	g, err := native.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	plan, err := quarters(g)
	return g, plan, err
}

// quarters places g on 4 devices in four contiguous parts in topological
// order.
func quarters(g *workloads.Graph) (*engine.Plan, error) {
	topo, err := g.TopoOrder()
	if err != nil {
		return nil, err
	}
	plan := &engine.Plan{Device: make([]int, len(g.Ops))}
	for i, v := range topo {
		plan.Device[v] = i * 4 / len(topo)
	}
	return plan, nil
}

// randomStep is BenchmarkSimulate's step: a random layered DAG of n ops,
// 64 wide, dealt round robin to 4 devices.
func randomStep(n int) (*workloads.Graph, *engine.Plan) {
	g := workloads.RandomLayered(n, 64, 1)
	plan := &engine.Plan{Device: make([]int, n)}
	for i := range plan.Device {
		plan.Device[i] = i % 4
	}
	return g, plan
}

// TestSimulateRepeat simulates one step PLACESIM_SIM_REPEAT times (skipped
// when unset): the graph file PLACESIM_SIM_FILE as BenchmarkSimulateFile
// plays it, or else BenchmarkSimulate's random layered DAG of
// PLACESIM_SIM_OPS ops. scripts/bench-engine-ratio.sh runs it under
// callgrind, collecting inside engine.Simulate only, to count the
// instructions per simulated op.
func TestSimulateRepeat(t *testing.T) {
	repeat, err := strconv.Atoi(os.Getenv("PLACESIM_SIM_REPEAT"))
	if err != nil || repeat < 1 {
		t.Skip("PLACESIM_SIM_REPEAT is not a count")
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	var g *workloads.Graph
	var plan *engine.Plan
	if f := os.Getenv("PLACESIM_SIM_FILE"); f != "" {
		if g, plan, err = fileStep(f); err != nil {
			t.Fatal(err)
		}
	} else {
		n, err := strconv.Atoi(os.Getenv("PLACESIM_SIM_OPS"))
		if err != nil || n < 1 {
			t.Fatalf("PLACESIM_SIM_OPS=%q: want a count of ops", os.Getenv("PLACESIM_SIM_OPS"))
		}
		g, plan = randomStep(n)
	}
	t.Logf("ops=%d", len(g.Ops))
	for range repeat {
		if _, err := engine.Simulate(g, c, plan, engine.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
