package fastt

import (
	"testing"

	"placesim/placers"
	"placesim/placers/placertest"
)

// BenchmarkScaleDPOS: fastt-dpos on 12k to 96k ops (placertest.BenchmarkScale).
func BenchmarkScaleDPOS(b *testing.B) { placertest.BenchmarkScale(b, placers.Typed(NewDPOS)) }
