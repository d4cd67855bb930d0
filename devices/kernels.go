package devices

import (
	"fmt"

	"placesim/workloads"
)

// KernelCost is one row of a kernel table: how close a class's kernels
// come to the device's peaks, and what each launch costs on top.
//
//	t = max(FLOPs / (peak * Eff), bytes / (MemBandwidth * MemEff)) + Overhead
//
// peak is the tensor-core peak of the op's precision for GEMM and
// convolution (TensorEff, or TF32Eff for TF32, instead of Eff), the vector
// peak otherwise. The
// achieved throughput FLOPs/t is thus a curve that rises with the kernel's
// size towards peak*Eff (or the bandwidth roofline), reaching half of it
// when the ideal time equals Overhead.
type KernelCost struct {
	// Eff is the fraction of the vector peak a large kernel attains.
	Eff float64
	// TensorEff is the fraction of the FP16/BF16 tensor-core peak a large
	// GEMM or convolution attains (unused by the other classes).
	TensorEff float64
	// TF32Eff is the fraction of the TF32 tensor-core peak a large GEMM or
	// convolution attains: TF32 operands are 4 bytes, so each tensor-core
	// FLOP needs twice the register and shared-memory traffic of FP16.
	TF32Eff float64
	// FP8Eff, when set, is the fraction of the FP8 (and FP4) tensor-core
	// peak a large GEMM or convolution attains; 0 means TensorEff. A
	// kind's FP8 peak is twice its BF16 one, but the operands' loads, the
	// epilogue and the scaling do not halve with it, so an FP8 product
	// reaches a smaller fraction of its peak.
	FP8Eff float64
	// MemEff is the fraction of the memory bandwidth a large kernel
	// attains.
	MemEff float64
	// Overhead is the time in seconds each kernel adds: the launch gap
	// between kernels plus the ramp-up and tail of a wave of thread
	// blocks.
	Overhead float64
	// Source says where the numbers come from.
	Source string
}

// KernelTable is a device kind's kernel cost per class.
type KernelTable [workloads.NumKernelClasses]KernelCost

// Row returns the table's row for class c.
func (t *KernelTable) Row(c workloads.KernelClass) KernelCost { return t[c] }

// validate checks every row's figures.
func (t *KernelTable) validate(kind string) error {
	for c, r := range t {
		if workloads.KernelClass(c) == workloads.KernelNone {
			continue
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"eff", r.Eff}, {"tensorEff", r.TensorEff}, {"tf32Eff", r.TF32Eff}, {"memEff", r.MemEff}} {
			if !(f.v >= MinEfficiency && f.v <= 1) {
				return fmt.Errorf("device kind %q: kernel class %s: field %s = %g (valid range: [%g, 1])", kind, workloads.KernelClass(c), f.name, f.v, MinEfficiency)
			}
		}
		if !(r.FP8Eff == 0 || r.FP8Eff >= MinEfficiency && r.FP8Eff <= 1) {
			return fmt.Errorf("device kind %q: kernel class %s: field fp8Eff = %g (valid range: 0 for tensorEff, or [%g, 1])", kind, workloads.KernelClass(c), r.FP8Eff, MinEfficiency)
		}
		if !(r.Overhead >= 0 && r.Overhead < 1) {
			return fmt.Errorf("device kind %q: kernel class %s: field overhead = %g s (valid range: [0, 1))", kind, workloads.KernelClass(c), r.Overhead)
		}
	}
	return nil
}
