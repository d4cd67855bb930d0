package tarnawski_test

import (
	"testing"

	"placesim/placers"
	"placesim/placers/placertest"
	"placesim/placers/tarnawski"
)

// BenchmarkScalePipeDream: pipedream on 12k to 96k ops (placertest.BenchmarkScale).
func BenchmarkScalePipeDream(b *testing.B) {
	placertest.BenchmarkScale(b, placers.Typed(tarnawski.NewPipeDream))
}
