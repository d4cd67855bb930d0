package reports

import "math"

// timeScale picks the unit for times up to max seconds: the factor to
// multiply seconds by and the unit's name.
func timeScale(max float64) (float64, string) {
	switch a := math.Abs(max); {
	case a >= 1:
		return 1, "s"
	case a >= 1e-3:
		return 1e3, "ms"
	case a >= 1e-6:
		return 1e6, "µs"
	}
	return 1e9, "ns"
}

// byteScale picks the unit for sizes up to max bytes: the divisor and the
// unit's name.
func byteScale(max int64) (float64, string) {
	switch {
	case max >= 1<<40:
		return 1 << 40, "TiB"
	case max >= 1<<30:
		return 1 << 30, "GiB"
	case max >= 1<<20:
		return 1 << 20, "MiB"
	case max >= 1<<10:
		return 1 << 10, "KiB"
	}
	return 1, "B"
}
