package study

import (
	"math"
	"testing"
)

// TestGainOfOutOfRange: a paper claim's gain of two figures whose ratio
// leaves float64 (a step time of 5e-324 s beside 1e12 s) is no figure,
// not +Inf %; infinite figures are no metric at all (issue 31).
func TestGainOfOutOfRange(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	if g, ok := gainOf(1, 2, true); !ok || math.Abs(g-1) > tol {
		t.Errorf("gainOf(1, 2, lower) = %g, %v; want 1 (twice as fast)", g, ok)
	}
	if g, ok := gainOf(3, 2, false); !ok || math.Abs(g-0.5) > tol {
		t.Errorf("gainOf(3, 2, higher) = %g, %v; want 0.5", g, ok)
	}
	for _, c := range [][2]float64{{5e-324, 1e12}, {1e300, 1e-300}, {0, 1}} {
		for _, lower := range []bool{true, false} {
			if g, ok := gainOf(c[0], c[1], lower); ok {
				t.Errorf("gainOf(%g, %g, %v) = %g, true; want no figure", c[0], c[1], lower, g)
			}
		}
	}
	r := &Record{StepTime: math.Inf(1), Throughput: math.Inf(1)}
	for _, m := range []string{MetricStepTime, MetricThroughput} {
		if _, ok := metric(r, m); ok {
			t.Errorf("metric %s of an infinite figure accepted", m)
		}
	}
}
