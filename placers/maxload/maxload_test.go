package maxload_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/workloads"
	"placesim/workloads/fiddle"
)

const tol = 1e-9

// diamond: a -> b, a -> c, b -> d, c -> d; a's output costs 1 ms (both
// out-edges the same), b's 2 ms, c's 3 ms.
func diamond(t *testing.T) *maxload.Model {
	t.Helper()
	g := workloads.NewGraph("diamond", 1)
	for i, n := range []string{"a", "b", "c", "d"} {
		g.AddOp(workloads.Op{Name: n, ParamBytes: 10, Measured: map[string]float64{
			workloads.MeasuredAccelerator: float64(i+1) * 1e-3, workloads.MeasuredCPU: float64(i+1) * 10e-3}})
	}
	g.AddEdge(0, 1, fiddle.CostToBytes(1))
	g.AddEdge(0, 2, fiddle.CostToBytes(1))
	g.AddEdge(1, 3, fiddle.CostToBytes(2))
	g.AddEdge(2, 3, fiddle.CostToBytes(3))
	c, err := devices.AccCPU("t", 2, 1, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := maxload.New(&placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLoads checks the section 3 semantics by hand: a node's output cost
// is paid once by the accelerator holding it when some consumer is
// elsewhere, and once by each other accelerator holding a consumer; a CPU
// pays only compute.
func TestLoads(t *testing.T) {
	t.Parallel()
	m := diamond(t)
	tests := []struct {
		name   string
		assign []int
		want   []float64 // ms
	}{
		{"all on acc0", []int{0, 0, 0, 0}, []float64{10, 0, 0}},
		// acc0 {a, b, d}: compute 7, a out 1, c in 3 -> 11; acc1 {c}: 3 + a in 1 + c out 3 -> 7
		{"c alone", []int{0, 0, 1, 0}, []float64{11, 7, 0}},
		// acc0 {a}: 1 + out 1 -> 2; acc1 {b, c}: 5 + a in 1 + out 2 + 3 -> 11; cpu {d}: 40
		{"d on the CPU", []int{0, 1, 1, 2}, []float64{2, 11, 40}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loads, mem := m.Loads(tc.assign)
			for d, w := range tc.want {
				if !scalar.EqualWithinAbsOrRel(loads[d]*1e3, w, 1e-9, tol) {
					t.Errorf("device %d load %.9f ms, want %g", d, loads[d]*1e3, w)
				}
			}
			var total int64
			for _, b := range mem {
				total += b
			}
			if total != 40 {
				t.Errorf("memory %v, want 40 bytes in all", mem)
			}
		})
	}
}

// TestStateMatchesLoads moves random ops around and checks that the
// incremental loads equal a full evaluation.
func TestStateMatchesLoads(t *testing.T) {
	t.Parallel()
	m := diamond(t)
	r := rand.New(rand.NewPCG(1, 1))
	assign := []int{0, 1, 2, 0}
	s := m.NewState(assign)
	buf := make([]float64, 3)
	after := make([]float64, 3)
	for i := 0; i < 200; i++ {
		op, to := r.IntN(4), r.IntN(3)
		s.LoadsAfter(op, to, after)
		s.Move(op, to)
		s.Loads(buf)
		want, _ := m.Loads(s.Assign)
		for d := range want {
			if !scalar.EqualWithinAbsOrRel(buf[d], want[d], 1e-12, tol) || !scalar.EqualWithinAbsOrRel(after[d], want[d], 1e-12, tol) {
				t.Fatalf("step %d: state loads %v, predicted %v, full %v", i, buf, after, want)
			}
		}
	}
}

func TestNoAccelerator(t *testing.T) {
	t.Parallel()
	g := workloads.Chain(3, []float64{1e-3}, 1)
	c, _ := devices.AccCPU("cpus", 0, 2, 1<<30)
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if _, err := maxload.New(&placers.Request{Graph: g, Cluster: c, Estimates: est}); !errors.Is(err, maxload.ErrNoAccelerator) {
		t.Fatalf("err = %v, want ErrNoAccelerator", err)
	}
}
