package reports

import (
	"fmt"
	"math"
)

// Ratio formats num/den, a slow-down or speed-up, as "1.23x". A ratio
// that is no finite positive number (a zero or infinite baseline, an
// infinite or negative time, a quotient beyond float64) is "n/a" with the
// reason in brackets, never "+Infx", "NaNx" or "0.00x" (issue 31: a
// speed-up label printed "+Infx" for a zero baseline, and an error named
// it).
func Ratio(num, den float64) string {
	x, why := RatioOf(num, den)
	if why != "" {
		return "n/a (" + why + ")"
	}
	return fmt.Sprintf("%.2fx", x)
}

// RatioOf is num/den and "", or 0 and why the ratio means nothing: both
// must be finite and positive, and so must their quotient.
func RatioOf(num, den float64) (float64, string) {
	switch {
	case math.IsNaN(num) || math.IsNaN(den):
		return 0, "not a number"
	case math.IsInf(num, 0) || math.IsInf(den, 0):
		return 0, "infinite time"
	case den == 0:
		return 0, "zero baseline"
	case num <= 0 || den < 0:
		return 0, "time not positive"
	}
	x := num / den
	if math.IsInf(x, 0) || x == 0 {
		return 0, fmt.Sprintf("%g / %g is beyond float64", num, den)
	}
	return x, ""
}
