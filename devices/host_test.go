package devices

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
)

// TestHostIssuedLoop: kernels shorter than the host's issue time run at
// the host's pace (n x issue + the last kernel), longer ones at the
// GPU's (the first issue + their sum); a long kernel's backlog absorbs
// the host time of the short ones after it.
func TestHostIssuedLoop(t *testing.T) {
	t.Parallel()
	const tol = 1e-15
	for _, tc := range []struct {
		name  string
		gpu   []float64
		issue float64
		want  float64
	}{
		{"host-bound", []float64{1, 2, 3}, 10, 3*10 + 3},
		{"gpu-bound", []float64{20, 30, 40}, 10, 10 + 20 + 30 + 40},
		{"backlog absorbs", []float64{50, 1, 1, 1}, 10, 10 + 50 + 1 + 1 + 1},
		{"empty", nil, 10, 0},
	} {
		if got := HostIssuedLoop(tc.gpu, tc.issue); !scalar.EqualWithinAbsOrRel(got, tc.want, 0, tol) {
			t.Errorf("%s: %g, want %g", tc.name, got, tc.want)
		}
	}
}

// TestGradientPassTime: an in-place pass reads and writes the gradient at
// the kind's elementwise memory rate, plus its launch overhead; a
// negative size is an error.
func TestGradientPassTime(t *testing.T) {
	t.Parallel()
	k, err := KindByName("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	const bytes = 1 << 30
	got, err := GradientPassTime(bytes, &k)
	if err != nil {
		t.Fatal(err)
	}
	r := k.Kernels.Row(workloads.KernelElementwise)
	want := 2*bytes/(k.MemBandwidth*r.MemEff) + r.Overhead
	if !scalar.EqualWithinAbsOrRel(got, want, 0, 1e-9) {
		t.Errorf("1 GiB pass on A100: %g s, want %g s", got, want)
	}
	if _, err := GradientPassTime(-1, &k); err == nil {
		t.Error("negative bytes: no error")
	}
}
