package devices_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/workloads"
)

// mlpBuilder builds a wide MLP training step at any batch size.
func mlpBuilder(widths []int) func(int) (*workloads.Graph, error) {
	return func(b int) (*workloads.Graph, error) {
		return workloads.DeriveTraining(workloads.MLP(b, widths))
	}
}

func TestStandardEvaluation(t *testing.T) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	// an MLP at batch 4096 whose forward outputs (about 64 MiB each) do
	// not fit a 512 MiB device: small batches are profiled
	widths := []int{4096, 4096, 4096, 4096}
	build := mlpBuilder(widths)
	g, err := build(4096)
	if err != nil {
		t.Fatal(err)
	}
	small := c.Clone()
	for i := range small.Devices {
		small.Devices[i].Memory = 512 << 20
	}
	const tol = 1e-9
	tests := []struct {
		name     string
		o        devices.StandardEvalOptions
		exactMem bool
	}{
		// without noise, memory (linear in the batch) is extrapolated
		// exactly; times are not (a roofline is not linear in the batch
		// across its memory-bound and compute-bound regimes)
		{"no noise", devices.StandardEvalOptions{TimeSigma: 1e-300, MemSigma: 1e-300, Seed: 1}, true},
		{"noise", devices.StandardEvalOptions{Seed: 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, rep, err := devices.StandardEvaluation(g, small, build, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Batches) < 2 || rep.Batches[0] >= g.Batch {
				t.Fatalf("profiled batches %v for target %d", rep.Batches, g.Batch)
			}
			if got := scalar.EqualWithinAbsOrRel(rep.MemDev, 0, tol, tol); got != tc.exactMem {
				t.Fatalf("memory deviation %g: exact %v, want %v", rep.MemDev, got, tc.exactMem)
			}
			// the first step's regression is rough; the second profiles the
			// target batch on a sequential placement over the four devices
			if !(rep.RoughTimeDev > 0 && rep.RoughTimeDev < 1) || !rep.Profiled || !(rep.TimeDev < rep.RoughTimeDev) {
				t.Fatalf("time deviation %g after the first step, %g after the second (profiled %v)", rep.RoughTimeDev, rep.TimeDev, rep.Profiled)
			}
			ro := tc.o
			ro.RoughOnly = true
			_, rough, err := devices.StandardEvaluation(g, small, build, ro)
			if err != nil || rough.Profiled || !scalar.EqualWithinAbsOrRel(rough.TimeDev, rep.RoughTimeDev, tol, tol) {
				t.Fatalf("first step only: %+v, %v; want time deviation %g, not profiled", rough, err, rep.RoughTimeDev)
			}
			for op := range g.Ops {
				if x := est.OpTime(op, 0); math.IsInf(x, 0) || !(x > 0 || !workloads.LaunchesKernel(&g.Ops[op])) {
					t.Fatalf("op %q: estimated time %g", g.Ops[op].Name, x)
				}
			}
			t.Logf("batches %v: time deviation %.2f %%, memory %.2f %%", rep.Batches, 100*rep.TimeDev, 100*rep.MemDev)
		})
	}
	// the same seed gives the same estimates, another seed others
	a, _, _ := devices.StandardEvaluation(g, small, build, devices.StandardEvalOptions{Seed: 3})
	b, _, _ := devices.StandardEvaluation(g, small, build, devices.StandardEvalOptions{Seed: 3})
	d, _, _ := devices.StandardEvaluation(g, small, build, devices.StandardEvalOptions{Seed: 4})
	same, diff := true, false
	for op := range g.Ops {
		same = same && a.OpTime(op, 0) == b.OpTime(op, 0)
		diff = diff || a.OpTime(op, 0) != d.OpTime(op, 0)
	}
	if !same || !diff {
		t.Fatalf("seeded estimates: same seed equal %v, other seed differs %v", same, diff)
	}
}

func TestStandardEvaluationFits(t *testing.T) {
	// a model that fits one device is measured at its own batch
	c, _ := devices.NewPreset("4xV100-pcie")
	build := mlpBuilder([]int{64, 128, 10})
	g, _ := build(32)
	_, rep, err := devices.StandardEvaluation(g, c, build, devices.StandardEvalOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Batches) != 1 || rep.Batches[0] != 32 {
		t.Fatalf("batches %v, want [32]", rep.Batches)
	}
}

func TestStandardEvaluationErrors(t *testing.T) {
	c, _ := devices.NewPreset("4xV100-pcie")
	build := mlpBuilder([]int{64, 128, 10})
	g, _ := build(64)
	renamed := func(b int) (*workloads.Graph, error) {
		h, err := build(b)
		if err == nil {
			h.Ops[1].Name = "renamed"
		}
		return h, err
	}
	failing := func(int) (*workloads.Graph, error) { return nil, fmt.Errorf("no such model") }
	tests := []struct {
		name  string
		build func(int) (*workloads.Graph, error)
		o     devices.StandardEvalOptions
		want  string
	}{
		{"no builder", nil, devices.StandardEvalOptions{}, "no builder"},
		{"op missing", renamed, devices.StandardEvalOptions{Batches: []int{8, 16}}, `op "fc1/matmul" is missing from the graph at batch 8`},
		{"builder fails", failing, devices.StandardEvalOptions{Batches: []int{8, 16}}, "no such model"},
		{"batch above target", build, devices.StandardEvalOptions{Batches: []int{8, 128}}, "batch 128 (valid range: [1, 64)"},
		{"one batch", build, devices.StandardEvalOptions{Batches: []int{8, 8}}, "at least two distinct"},
		{"bad sigma", build, devices.StandardEvalOptions{TimeSigma: 2}, "time sigma = 2 (valid range: [0, 1])"},
		{"bad iterations", build, devices.StandardEvalOptions{Iterations: -1}, "iterations = -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := devices.StandardEvaluation(g, c, tc.build, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
