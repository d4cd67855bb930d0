package workloads

import (
	"fmt"
	"strings"
)

// DType is the arithmetic an op's kernel runs in; the device's peak for
// it decides the op's compute time. The zero value is FP32.
type DType uint8

// Arithmetic types.
const (
	// FP32 is IEEE single precision on the vector units (CUDA cores).
	FP32 DType = iota
	// TF32 is FP32 data multiplied on tensor cores with a 10-bit mantissa
	// (A100 and later; on older devices it runs as FP32).
	TF32
	// FP16 is IEEE half precision (tensor cores for matrix products).
	FP16
	// BF16 is bfloat16 (tensor cores on A100 and later).
	BF16
	// FP8 is an 8-bit float (E4M3 forward, E5M2 gradients) multiplied on
	// tensor cores with FP32 accumulation (H100 and later; a device
	// without FP8 tensor cores runs it as BF16, see devices.Kind.Peak).
	FP8
	// FP4 is a 4-bit float (NVFP4/MXFP4) on Blackwell tensor cores; a
	// device without them runs it as FP8, then as BF16.
	FP4
)

func (d DType) String() string {
	switch d {
	case FP32:
		return "fp32"
	case TF32:
		return "tf32"
	case FP16:
		return "fp16"
	case BF16:
		return "bf16"
	case FP8:
		return "fp8"
	case FP4:
		return "fp4"
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Precision is a training or inference precision setting: the arithmetic
// of matrix products and convolutions, the storage of activations and of
// parameters, gradients and optimizer state.
type Precision string

// Precision settings.
const (
	// PrecisionFP32: everything FP32 (the zero value means this).
	PrecisionFP32 Precision = "fp32"
	// PrecisionTF32: FP32 storage, matrix products and convolutions on
	// TF32 tensor cores (PyTorch's allow_tf32, the A100 default of the
	// NGC containers); other ops FP32.
	PrecisionTF32 Precision = "tf32"
	// PrecisionFP16: everything in FP16, parameters and optimizer state
	// included (pure half-precision training or inference).
	PrecisionFP16 Precision = "fp16"
	// PrecisionBF16: everything in BF16.
	PrecisionBF16 Precision = "bf16"
	// PrecisionAMPFP16 is automatic mixed precision (Micikevicius et al.
	// 2018, "Mixed Precision Training"; torch.cuda.amp autocast):
	// FP16 compute and activations (and activation gradients); FP32
	// master weights, parameter gradients and optimizer state. Under
	// autocast the parameters stay FP32 leaf tensors, so their .grad is
	// FP32 and DDP all-reduces FP32 gradients unless an fp16 compression
	// hook is registered (PyTorch docs, "Automatic Mixed Precision
	// package - torch.amp" and "DDP Communication Hooks"); GradBytes is
	// therefore 4 bytes per parameter.
	PrecisionAMPFP16 Precision = "amp-fp16"
	// PrecisionAMPBF16 is PrecisionAMPFP16 with BF16 instead of FP16.
	PrecisionAMPBF16 Precision = "amp-bf16"
	// PrecisionFP8 is FP8 training as NVIDIA Transformer Engine runs it
	// (Transformer Engine documentation, "Using FP8 with Transformer
	// Engine"; Micikevicius et al. 2022, "FP8 Formats for Deep
	// Learning"): matrix products in FP8 with per-tensor scaling (the
	// cast of their inputs is charged by devices.OpTime), everything else
	// as PrecisionAMPBF16 (BF16 activations, FP32 master weights,
	// gradients and optimizer state).
	PrecisionFP8 Precision = "fp8"
)

// Precisions lists the valid settings.
func Precisions() []Precision {
	return []Precision{PrecisionFP32, PrecisionTF32, PrecisionFP16, PrecisionBF16, PrecisionAMPFP16, PrecisionAMPBF16, PrecisionFP8}
}

// ParsePrecision reads a precision setting ("" is FP32).
func ParsePrecision(s string) (Precision, error) {
	if s == "" {
		return PrecisionFP32, nil
	}
	for _, p := range Precisions() {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	names := make([]string, 0, 6)
	for _, p := range Precisions() {
		names = append(names, string(p))
	}
	return "", fmt.Errorf("precision %q (valid: %s)", s, strings.Join(names, ", "))
}

// Compute is the arithmetic of matrix products and convolutions (and, for
// the half-precision settings, of the other forward and backward ops).
func (p Precision) Compute() DType {
	switch p {
	case PrecisionTF32:
		return TF32
	case PrecisionFP16, PrecisionAMPFP16:
		return FP16
	case PrecisionBF16, PrecisionAMPBF16:
		return BF16
	case PrecisionFP8:
		return FP8
	}
	return FP32
}

// Elementwise is the arithmetic of the forward and backward ops that are
// not matrix products (TF32 exists only on tensor cores).
func (p Precision) Elementwise() DType {
	if p == PrecisionFP8 {
		return BF16
	}
	if c := p.Compute(); c != TF32 {
		return c
	}
	return FP32
}

// Update is the arithmetic of optimizer updates: FP32 on the master
// weights under mixed precision.
func (p Precision) Update() DType {
	switch p {
	case PrecisionFP16, PrecisionBF16:
		return p.Compute()
	}
	return FP32
}

// ActivationBytes is the size of one activation (or activation gradient)
// element.
func (p Precision) ActivationBytes() int64 {
	if c := p.Compute(); c == FP16 || c == BF16 || c == FP8 {
		return 2
	}
	return 4
}

// ParamBytes is the size of one parameter, parameter gradient or
// optimizer-state element: 4 except for pure FP16/BF16.
func (p Precision) ParamBytes() int64 {
	if p == PrecisionFP16 || p == PrecisionBF16 {
		return 2
	}
	return 4
}

// Mixed reports whether p is an AMP setting.
func (p Precision) Mixed() bool {
	return p == PrecisionAMPFP16 || p == PrecisionAMPBF16 || p == PrecisionFP8
}
