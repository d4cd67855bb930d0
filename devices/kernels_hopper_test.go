package devices

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
)

// TestHopperGEMMEfficiency: a large compute-bound GEMM attains the
// measured Hopper/Ampere share of its peak on an H100 (BF16 and FP8),
// while the A100 keeps the fitted efficiency; TF32 attains the FP16
// share times the measured TF32/FP16 ratio on both.
func TestHopperGEMMEfficiency(t *testing.T) {
	const tol = 1e-9
	achieved := func(k Kind, p workloads.DType) float64 {
		op := workloads.Op{Type: "matmul", FLOPs: 1e15, BytesAccessed: 1 << 20, Precision: p}
		tm, err := OpTime(&op, &k)
		if err != nil {
			t.Fatal(err)
		}
		tm -= k.Kernels[workloads.KernelGEMM].Overhead + fp8CastTime(&op, &k, k.Kernels[workloads.KernelGEMM].MemEff)
		return op.FLOPs / tm / k.Peak(p, true)
	}
	for _, c := range []struct {
		name string
		k    Kind
		p    workloads.DType
		want float64
	}{
		{"A100 bf16", A100_80GB, workloads.BF16, gemmTensor},
		{"H100 bf16", H100_80GB, workloads.BF16, gemmTensor * 794.5 / 989 / (271.2 / 312)},
		{"H100 fp8", H100_80GB, workloads.FP8, gemmTensor * 1402.6 / 1979 / (271.2 / 312)},
		// an A100 runs FP8 as BF16 at its BF16 efficiency
		{"A100 fp8", A100_80GB, workloads.FP8, gemmTensor},
		// TF32 reaches the FP16 share times the measured TF32/FP16 ratio
		// (116 of 156 against 230 of 312 TFLOPS on an A100 80 GB), on
		// Ampere and Hopper alike
		{"A100 tf32", A100_80GB, workloads.TF32, gemmTensor * (116.0 / 156) / (230.0 / 312)},
		{"A100-40GB tf32", A100_40GB, workloads.TF32, gemmTensor * (116.0 / 156) / (230.0 / 312)},
		{"H100 tf32", H100_80GB, workloads.TF32, gemmTensor * 794.5 / 989 / (271.2 / 312) * (116.0 / 156) / (230.0 / 312)},
	} {
		if got := achieved(c.k, c.p); !scalar.EqualWithinAbsOrRel(got, c.want, tol, tol) {
			t.Errorf("%s: GEMM attains %.4f of the peak, want %.4f", c.name, got, c.want)
		}
	}
	if h, a := achieved(H100_80GB, workloads.BF16), achieved(A100_80GB, workloads.BF16); !(h < a) {
		t.Errorf("H100 GEMM share %.3f not below A100's %.3f", h, a)
	}
}

func TestKernelTableFP8EffRange(t *testing.T) {
	tab := hopperTable()
	g := tab[workloads.KernelGEMM]
	g.FP8Eff = 1.5
	tab[workloads.KernelGEMM] = g
	err := tab.validate("x")
	if err == nil || !strings.Contains(err.Error(), "fp8Eff") {
		t.Fatalf("fp8Eff 1.5 accepted or error does not name the field: %v", err)
	}
}
