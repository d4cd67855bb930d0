package collectives_test

import (
	"testing"

	"placesim/collectives"
)

// BenchmarkTime times one estimate of a 16-rank all-reduce on two DGX
// H100 nodes (what a simulation asks per collective).
func BenchmarkTime(b *testing.B) {
	c := system(b, "dgx-h100:nodes=2")
	g := c.Accelerators()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := collectives.Time(c, g, collectives.AllReduce, 1<<28); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "estimates/s")
}

// BenchmarkConcurrent times the 128 data-parallel groups of a 1,024-GPU
// system (stride 8) all-reducing together.
func BenchmarkConcurrent(b *testing.B) {
	c := system(b, "dgx-h100:nodes=128")
	var groups [][]int
	for r := 0; r < 8; r++ {
		for blk := 0; blk < 1024; blk += 128 {
			var g []int
			for d := blk + r; d < blk+128; d += 8 {
				g = append(g, d)
			}
			groups = append(groups, g)
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := collectives.Concurrent(c, groups, collectives.AllReduce, 1<<28); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(groups))/b.Elapsed().Seconds(), "groups/s")
}
