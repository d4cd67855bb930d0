package celeritas_test

import (
	"testing"

	"placesim/placers"
	"placesim/placers/celeritas"
	"placesim/placers/placertest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// BenchmarkPlaceTransformer21k is the placement time of Table 4 (the paper:
// Celeritas 95 s, Order-Place 93 s on a 36,352-op Transformer).
func BenchmarkPlaceTransformer21k(b *testing.B) {
	g, err := zoo.Build(placertest.TransformerTF1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("celeritas", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(celeritas.NewCeleritas), g) })
	b.Run("order-place", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(celeritas.NewOrderPlace), g) })
}

// BenchmarkPlaceRandom36k places a random layered graph of 36,000 ops, the
// size of the paper's Transformer.
func BenchmarkPlaceRandom36k(b *testing.B) {
	g := workloads.RandomLayered(36000, 60, 1)
	b.Run("celeritas", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(celeritas.NewCeleritas), g) })
}
