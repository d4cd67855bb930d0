package devices

import (
	"testing"

	"placesim/workloads"
)

// TestMemoryBound: a kernel is memory-bound where OpTime's bytes term is
// the larger: a pointwise op always, a square FP16 GEMM never, a GEMM
// with few FLOPs per byte (attention's batched scores at a short
// sequence) yes; a measured op has no roofline and goes by its class.
func TestMemoryBound(t *testing.T) {
	k := A100_40GB
	n := 4096.0
	for _, tc := range []struct {
		name string
		op   workloads.Op
		want bool
	}{
		{"pointwise", workloads.Op{Type: "add", FLOPs: n * n, BytesAccessed: int64(3 * 2 * n * n), Precision: workloads.FP16}, true},
		{"square gemm", workloads.Op{Type: "matmul", FLOPs: 2 * n * n * n, BytesAccessed: int64(3 * 2 * n * n), Precision: workloads.FP16}, false},
		{"thin gemm", workloads.Op{Type: "matmul", FLOPs: 2 * n * n * 8, BytesAccessed: int64(2 * (2*n*8 + n*n)), Precision: workloads.FP16}, true},
		{"measured gemm", workloads.Op{Type: "matmul", BytesAccessed: 1 << 40, Measured: map[string]float64{workloads.MeasuredAny: 1e-3}}, false},
		{"measured pointwise", workloads.Op{Type: "add", Measured: map[string]float64{workloads.MeasuredAny: 1e-3}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MemoryBound(&tc.op, &k); got != tc.want {
				c, mem := tableTerms(&tc.op, &k, workloads.KernelClassOf(&tc.op))
				t.Errorf("MemoryBound = %v, want %v (compute %g s, memory %g s)", got, tc.want, c, mem)
			}
		})
	}
}
