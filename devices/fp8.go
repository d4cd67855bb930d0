package devices

import "placesim/workloads"

// fp8CastTime is the time Transformer Engine adds to an FP8 (or FP4)
// matrix product on a device with FP8 tensor cores: before the GEMM its
// inputs are scaled and cast from BF16 to FP8 (Transformer Engine
// documentation, "Using FP8 with Transformer Engine": per-tensor scaling
// factors from the amax history, a quantize kernel per input). The cast
// reads each input element in BF16 (2 bytes) and writes it in FP8 (1
// byte): 1.5 times the inputs' BF16 bytes, which are the op's bytes
// accessed less its output (the workload sizes FP8 GEMM inputs as BF16
// activations, workloads.PrecisionFP8). The amax reduction rides on the
// same pass. A device without FP8 tensor cores runs the product in BF16
// and casts nothing.
func fp8CastTime(op *workloads.Op, k *Kind, memEff float64) float64 {
	if op.Precision != workloads.FP8 && op.Precision != workloads.FP4 {
		return 0
	}
	if k.TensorFP8 == 0 && k.TensorFP4 == 0 {
		return 0
	}
	in := op.BytesAccessed - op.OutputBytes
	if in <= 0 {
		return 0
	}
	return 1.5 * float64(in) / (k.MemBandwidth * memEff)
}
