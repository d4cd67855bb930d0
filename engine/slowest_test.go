package engine_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/workloads"
)

// TestExpectedMaxNormal: closed forms of the expected largest of n
// standard normals: 0 for n = 1, 1/sqrt(pi) for 2, 3/(2 sqrt(pi)) for 3,
// and the tabulated 1.42360 for 8 (Harter 1961).
func TestExpectedMaxNormal(t *testing.T) {
	const tol = 1e-5
	for n, want := range map[int]float64{1: 0, 2: 1 / math.Sqrt(math.Pi), 3: 1.5 / math.Sqrt(math.Pi), 8: 1.42360} {
		if got := engine.ExpectedMaxNormal(n); !scalar.EqualWithinAbs(got, want, tol) {
			t.Errorf("ExpectedMaxNormal(%d) = %.6f, want %.6f", n, got, want)
		}
	}
}

// TestSlowestReplicaSetsThePace: with SpeedSpread s, a data-parallel step
// of n replicas whose all-reduce costs nothing takes the compute of one
// replica times 1 + s E[max of n normals]: the slowest GPU's pace. The
// statistics name the replica and its slowdown; without a spread the
// step is the compute alone.
func TestSlowestReplicaSetsThePace(t *testing.T) {
	const tol = 1e-9
	const n, fwd, bwd = 4, 3e-3, 5e-3
	c := meshCluster(t, n, 1e15, 0)
	g := workloads.NewGraph("w", 8)
	f := g.AddOp(workloads.Op{Name: "w", Role: workloads.Forward, ParamBytes: 1 << 10, Colocation: "w", Measured: map[string]float64{workloads.MeasuredAny: fwd * n}})
	b := g.AddOp(workloads.Op{Name: "w/grad", Role: workloads.Backward, Colocation: "w", Measured: map[string]float64{workloads.MeasuredAny: bwd * n}})
	g.AddEdge(f, b, 0)
	for _, spread := range []float64{0, 0.05} {
		m := &engine.CollectiveModel{Name: "test", SpeedSpread: spread}
		plan := &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: n, Collective: m}}
		r, err := engine.Simulate(g, c, plan, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		slow := spread * engine.ExpectedMaxNormal(n)
		if want := (fwd + bwd) * (1 + slow); !scalar.EqualWithinAbsOrRel(r.StepTime, want, 0, tol) {
			t.Errorf("spread %g: step %.9g s, want %.9g s", spread, r.StepTime, want)
		}
		dp := r.DataParallel
		if got := dp.Slowdown; !scalar.EqualWithinAbsOrRel(got, slow, 0, tol) || (spread > 0 && dp.SlowestReplica != n-1) {
			t.Errorf("spread %g: slowest replica %d slowed by %g, want %d by %g", spread, dp.SlowestReplica, got, n-1, slow)
		}
		in := r.Instances
		for x := range in.Op {
			if in.Op[x] < 0 {
				continue
			}
			extra := in.End[x] - in.Start[x] - in.Base[x]
			want := 0.0
			if int(in.Replica[x]) == n-1 {
				want = in.Base[x] * slow
			}
			if !scalar.EqualWithinAbs(extra, want, 1e-15) {
				t.Errorf("spread %g: op %d replica %d ran %g s beyond its base, want %g", spread, in.Op[x], in.Replica[x], extra, want)
			}
		}
	}
	bad := &engine.CollectiveModel{SpeedSpread: 2}
	plan := &engine.Plan{Device: []int{0, 0}, DataParallel: &engine.DataParallel{Replicas: n, Collective: bad}}
	if _, err := engine.Simulate(g, c, plan, engine.Options{}); err == nil {
		t.Error("speedSpread 2 accepted (valid range [0, 1])")
	}
}
