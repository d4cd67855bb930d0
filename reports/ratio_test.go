package reports

import (
	"math"
	"strings"
	"testing"
)

// TestRatio: a finite positive quotient prints as "1.23x"; a zero or
// infinite baseline, a NaN, a negative time or an overflowing quotient
// prints "n/a" with its reason, never "Inf", "NaN" or "0.00x".
func TestRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		num, den float64
		want     string
	}{
		{2, 1, "2.00x"},
		{1, 4, "0.25x"},
		{1, 0, "n/a (zero baseline)"},
		{0, 0, "n/a (zero baseline)"},
		{math.Inf(1), 1, "n/a (infinite time)"},
		{1, math.Inf(1), "n/a (infinite time)"},
		{math.NaN(), 1, "n/a (not a number)"},
		{-1, 1, "n/a (time not positive)"},
		{0, 1, "n/a (time not positive)"},
		{math.MaxFloat64, 1e-300, "n/a (1.7976931348623157e+308 / 1e-300 is beyond float64)"},
		{5e-324, 1e300, "n/a (5e-324 / 1e+300 is beyond float64)"},
	}
	for _, tc := range tests {
		got := Ratio(tc.num, tc.den)
		if got != tc.want {
			t.Errorf("Ratio(%g, %g) = %q, want %q", tc.num, tc.den, got, tc.want)
		}
		if strings.Contains(got, "Inf") || strings.Contains(got, "NaN") {
			t.Errorf("Ratio(%g, %g) = %q prints a non-finite number", tc.num, tc.den, got)
		}
	}
}
