package devices

import (
	"fmt"
	"math"

	"placesim/workloads"
)

// OpTime is the true compute time of op on a device of kind k. A measured
// time wins, looked up by the kind's name, then its class
// ("accelerator"/"cpu"), then "*". Otherwise, with the kind's kernel table
// (Kind.Kernels), the row of the op's kernel class (workloads.KernelClassOf):
//
//	t = max(FLOPs / (peak * eff), BytesAccessed / (MemBandwidth * MemEff)) + Overhead
//
// where peak is k.Peak(op.Precision, tensor) with tensor true for GEMM and
// convolution (then eff = TensorEff, or TF32Eff for TF32, if the precision
// runs on tensor cores, FP8Eff for FP8/FP4 on FP8 tensor cores when the row sets it, else Eff); an op of class workloads.KernelNone costs nothing. Without a table, the
// plain roofline:
//
//	t = max(FLOPs / (peak*ComputeEfficiency),
//	        BytesAccessed / (MemBandwidth*MemEfficiency)) + LaunchOverhead
//
// An FP8 matrix product on a device with FP8 tensor cores adds the cast
// of its inputs (fp8CastTime). Measured times are multiplied by
// k.MeasuredScale when it is set.
// A CPU-only op on an accelerator is an error wrapping ErrUnsupported.
func OpTime(op *workloads.Op, k *Kind) (float64, error) {
	if op.CPUOnly && k.Class != CPU {
		return 0, fmt.Errorf("%w: op %q is CPU-only, device kind %s is an accelerator", ErrUnsupported, op.Name, k.Name)
	}
	if t, ok := MeasuredTime(op, k); ok {
		return t, nil
	}
	class := workloads.KernelClassOf(op)
	if k.Kernels == nil {
		c, mem := rooflineTerms(op, k, class)
		cast := 0.0
		if class.UsesTensorCores() {
			cast = fp8CastTime(op, k, k.MemEfficiency)
		}
		return math.Max(c, mem) + cast + k.LaunchOverhead, nil
	}
	if class == workloads.KernelNone {
		return 0, nil
	}
	r := k.Kernels[class]
	c, mem := tableTerms(op, k, class)
	cast := 0.0
	if class.UsesTensorCores() {
		cast = fp8CastTime(op, k, r.MemEff)
	}
	return math.Max(c, mem) + cast + r.Overhead, nil
}

// rooflineTerms are OpTime's two roofline terms for op of class on kind
// k: with a kernel table its row's (tableTerms), else the kind's single
// compute and memory efficiencies.
func rooflineTerms(op *workloads.Op, k *Kind, class workloads.KernelClass) (compute, mem float64) {
	if k.Kernels != nil {
		return tableTerms(op, k, class)
	}
	return op.FLOPs / (k.Peak(op.Precision, class.UsesTensorCores()) * k.ComputeEfficiency),
		float64(op.BytesAccessed) / (k.MemBandwidth * k.MemEfficiency)
}

// tableTerms are OpTime's two roofline terms for op of class on kind k
// with a kernel table: its FLOPs at the row's efficiency for the
// precision (tensor-core, TF32 or FP8 where they apply) and its bytes at
// the row's share of the memory bandwidth.
func tableTerms(op *workloads.Op, k *Kind, class workloads.KernelClass) (compute, mem float64) {
	r := k.Kernels[class]
	tensor := class.UsesTensorCores()
	peak := k.Peak(op.Precision, tensor)
	eff := r.Eff
	if tensor && peak != k.Peak(op.Precision, false) {
		eff = r.TensorEff
		switch {
		case op.Precision == workloads.TF32:
			eff = r.TF32Eff
		case (op.Precision == workloads.FP8 || op.Precision == workloads.FP4) && r.FP8Eff > 0 && peak != k.Peak(workloads.BF16, true):
			eff = r.FP8Eff
		}
	}
	return op.FLOPs / (peak * eff), float64(op.BytesAccessed) / (k.MemBandwidth * r.MemEff)
}

// MeasuredTime is op's measured time on kind k, if it has one: the entry of
// op.Measured for the kind's name, else its class, else
// workloads.MeasuredAny, multiplied by k.MeasuredScale when that is set.
// It does not check that the op may run on k (see OpTime).
func MeasuredTime(op *workloads.Op, k *Kind) (float64, bool) {
	m := op.Measured
	var t float64
	var ok bool
	switch len(m) {
	case 0:
		return 0, false
	case 1:
		// one entry matches at most one of the three keys, so the order
		// of the lookups does not matter: the common one first (profiles
		// and generated graphs give one time for any device)
		if t, ok = m[workloads.MeasuredAny]; !ok {
			if t, ok = m[k.Name]; !ok {
				t, ok = m[string(k.Class)]
			}
		}
	default:
		if t, ok = m[k.Name]; !ok {
			if t, ok = m[string(k.Class)]; !ok {
				t, ok = m[workloads.MeasuredAny]
			}
		}
	}
	if ok && k.MeasuredScale > 0 {
		t *= k.MeasuredScale
	}
	return t, ok
}

// MemoryBound reports whether op's kernel on kind k is bound by memory
// bandwidth rather than by arithmetic: OpTime's roofline term for its
// bytes is at least its term for its FLOPs (a batched GEMM of attention's
// scores can be; a pointwise kernel always is). An op with a measured
// time, or of no kernel class, has no roofline: every class but matrix
// products and convolutions counts as memory-bound then.
func MemoryBound(op *workloads.Op, k *Kind) bool {
	class := workloads.KernelClassOf(op)
	if _, ok := MeasuredTime(op, k); ok || class == workloads.KernelNone {
		return !class.UsesTensorCores()
	}
	c, mem := rooflineTerms(op, k, class)
	if math.IsNaN(c) || math.IsNaN(mem) {
		return !class.UsesTensorCores()
	}
	return mem >= c
}
