package devices

import (
	"math"
	"testing"

	"placesim/workloads"
)

// A grouped GEMM of GPT-OSS 120B's experts at EP 8 (16 local experts of
// 1024 tokens each, hidden 2880, gate and up projections 5760) on an
// H100: each expert's 1024 x 5760 output is 8 x 45 = 360 tiles of
// 128 x 128, three waves of 132 SMs (396 slots), so each product runs at
// 360/396 of the dense rate and pays its own launch; the down projection
// (1024 x 2880: 8 x 23 = 184 tiles, two waves, of which the last column
// is half padding: 180 tile-equivalents of output) at 180/264.
func TestGroupedGEMMWaves(t *testing.T) {
	const tol = 1e-9
	k := H100_80GB
	r := k.Kernels[workloads.KernelGEMM]
	for _, c := range []struct {
		name       string
		g          GroupedGEMM
		backward   bool
		waveShares []float64 // wave efficiency of each product of a group
	}{
		{"fc13 forward", GroupedGEMM{Groups: 16, M: 1024, N: 5760, K: 2880}, false, []float64{360.0 / 396}},
		{"fc2 forward", GroupedGEMM{Groups: 16, M: 1024, N: 2880, K: 2880}, false, []float64{180.0 / 264}},
		// backward: data gradient 1024 x 2880 (184 tiles, 180 of
		// output), weight gradient 2880 x 5760 (23 x 45 = 1035 tiles,
		// 8 waves, 22.5 x 45 = 1012.5 of output)
		{"fc13 backward", GroupedGEMM{Groups: 16, M: 1024, N: 5760, K: 2880}, true, []float64{180.0 / 264, 1012.5 / 1056}},
	} {
		t.Run(c.name, func(t *testing.T) {
			perProduct := 2 * c.g.M * c.g.N * c.g.K
			flops := perProduct * float64(c.g.Groups) * float64(len(c.waveShares))
			op := workloads.Op{Name: "experts", Type: "matmul", FLOPs: flops, BytesAccessed: 1 << 20, Precision: workloads.BF16}
			got, quantized, err := GroupedGEMMTime(&op, &k, c.g, c.backward)
			if err != nil || !quantized {
				t.Fatalf("quantized %v, err %v", quantized, err)
			}
			var want float64
			for _, w := range c.waveShares {
				want += float64(c.g.Groups) * (perProduct/(k.TensorFLOPS*r.TensorEff*w) + r.Overhead)
			}
			if math.Abs(got-want) > tol*want {
				t.Errorf("time %g s, want %g s", got, want)
			}
			dense, _ := OpTime(&op, &k)
			if got <= dense {
				t.Errorf("grouped %g s is not slower than one dense product %g s", got, dense)
			}
		})
	}
	// a kind without a known SM count is priced as one product, and says so
	custom := H100_80GB
	custom.Name = "my-gpu"
	op := workloads.Op{Name: "experts", Type: "matmul", FLOPs: 1e12, BytesAccessed: 1 << 20, Precision: workloads.BF16}
	got, quantized, err := GroupedGEMMTime(&op, &custom, GroupedGEMM{Groups: 16, M: 1024, N: 2880, K: 2880}, false)
	dense, _ := OpTime(&op, &custom)
	if err != nil || quantized || got != dense {
		t.Errorf("custom kind: %g s quantized %v err %v, want the dense %g s", got, quantized, err, dense)
	}
	if _, _, err := GroupedGEMMTime(&op, &k, GroupedGEMM{Groups: 0, M: 1, N: 1, K: 1}, false); err == nil {
		t.Error("zero groups accepted")
	}
}
