package baechi_test

import (
	"testing"

	"placesim/placers"
	"placesim/placers/baechi"
	"placesim/placers/placertest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// BenchmarkPlaceTransformer21k is the placement time of Celeritas' Table 4
// for Baechi's placers (the paper: m-SCT 129 s on a 36,352-op Transformer).
// m-SCT solves its LP with CBC in windows (tens of seconds): run it with
// -bench PlaceTransformer21k/m-sct -benchtime 1x.
func BenchmarkPlaceTransformer21k(b *testing.B) {
	g, err := zoo.Build(placertest.TransformerTF1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("m-topo", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(baechi.NewMTopo), g) })
	b.Run("m-etf", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(baechi.NewMETF), g) })
	b.Run("m-sct", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(baechi.NewMSCT), g) })
}

// BenchmarkPlaceRandom36k places a random layered graph of 36,000 ops, the
// size of the paper's Transformer.
func BenchmarkPlaceRandom36k(b *testing.B) {
	g := workloads.RandomLayered(36000, 60, 1)
	b.Run("m-etf", func(b *testing.B) { placertest.BenchPlace(b, placers.Typed(baechi.NewMETF), g) })
}
