package baseline_test

import (
	"testing"

	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/placers/placertest"
)

// BenchmarkScaleLocalSearch: local-search on 12k to 96k ops (placertest.BenchmarkScale).
func BenchmarkScaleLocalSearch(b *testing.B) {
	placertest.BenchmarkScale(b, placers.Typed(baseline.NewLocalSearch))
}
