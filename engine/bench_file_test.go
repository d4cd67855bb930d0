package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"placesim/devices"
	"placesim/engine"
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
		g, err := native.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		topo, err := g.TopoOrder()
		if err != nil {
			b.Fatal(err)
		}
		plan := &engine.Plan{Device: make([]int, len(g.Ops))}
		for i, v := range topo {
			plan.Device[v] = i * 4 / len(topo)
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
