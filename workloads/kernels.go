package workloads

import (
	"fmt"
	"strings"
)

// KernelClass groups op types whose kernels reach their peaks alike.
type KernelClass uint8

// Kernel classes. An op's class comes from its Type (KernelClassOf); the
// gradient ops of a type ("conv2d-grad", "matmul-grad-weight") are in the
// class of the type.
const (
	// KernelNone: no kernel runs (inputs fed by the data loader,
	// variables, constants, views and markers): the op costs nothing.
	KernelNone KernelClass = iota
	// KernelGEMM: matrix products (matmul, batch-matmul) on tensor cores
	// where the precision has them.
	KernelGEMM
	// KernelConv: convolutions (cuDNN implicit GEMM) on tensor cores
	// where the precision has them.
	KernelConv
	// KernelElementwise: pointwise maps, activations, dropout, pooling,
	// copies (transpose, concat, slice), depthwise convolutions.
	KernelElementwise
	// KernelReduction: means, sums, global pooling, gradient sums.
	KernelReduction
	// KernelNormalization: batch norm and layer norm kernels.
	KernelNormalization
	// KernelSoftmax: softmax and softmax cross-entropy.
	KernelSoftmax
	// KernelGather: embedding lookups, gathers.
	KernelGather
	// KernelOptimizer: optimizer updates (multi-tensor apply).
	KernelOptimizer
	// KernelComm: communication kernels (NCCL send, receive, all-reduce
	// reductions) when a workload has them as ops.
	KernelComm
	// NumKernelClasses is the number of classes (the size of a table).
	NumKernelClasses
)

var kernelClassNames = [NumKernelClasses]string{"none", "gemm", "conv", "elementwise", "reduction",
	"normalization", "softmax", "gather", "optimizer", "comm"}

func (c KernelClass) String() string {
	if c < NumKernelClasses {
		return kernelClassNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// KernelClasses lists the classes in table order.
func KernelClasses() []KernelClass {
	cs := make([]KernelClass, NumKernelClasses)
	for i := range cs {
		cs[i] = KernelClass(i)
	}
	return cs
}

// UsesTensorCores reports whether the class runs on tensor cores when the
// op's precision has them.
func (c KernelClass) UsesTensorCores() bool { return c == KernelGEMM || c == KernelConv }

// kernelClassOf maps op types to classes; a type not listed is
// KernelElementwise (one pass over its bytes).
var kernelClassOf = map[string]KernelClass{
	"input": KernelNone, "labels": KernelNone, "constant": KernelNone, "variable": KernelNone,
	"stop-gradient": KernelNone, "squeeze": KernelNone, "identity": KernelNone,
	"accumulate-gradients": KernelNone, "view": KernelNone,

	"matmul": KernelGEMM, "batch-matmul": KernelGEMM,
	"conv2d": KernelConv,

	"mean": KernelReduction, "sum": KernelReduction, "global-avg-pool": KernelReduction,
	"add-n": KernelReduction,

	"batchnorm": KernelNormalization, "layernorm": KernelNormalization,

	"softmax": KernelSoftmax, "softmax-xent": KernelSoftmax, "sparse-softmax-xent": KernelSoftmax, "log-softmax": KernelSoftmax,

	"embedding": KernelGather, "gather": KernelGather,

	"send": KernelComm, "recv": KernelComm, "allreduce": KernelComm, "all-reduce": KernelComm,
}

// gemmIntensity is the arithmetic intensity (FLOP per byte accessed)
// above which an op is a matrix product whatever its type: pointwise,
// normalisation and reduction kernels do at most a few FLOPs per byte,
// while a GEMM or convolution of any useful size does tens to hundreds
// (a layer-granularity block, an imported op type the table lacks).
const gemmIntensity = 8

// TypeKernelClass is the kernel class of an op type (KernelElementwise
// for a type not in the table).
func TypeKernelClass(typ string) KernelClass {
	if strings.HasPrefix(typ, "apply-") {
		return KernelOptimizer
	}
	base := strings.TrimSuffix(strings.TrimSuffix(typ, "-grad-weight"), "-grad")
	if c, ok := kernelClassOf[base]; ok {
		return c
	}
	return KernelElementwise
}

// KernelClassOf is the kernel class of op: its type's class, except that
// an op of arithmetic intensity above 8 FLOP/byte is a matrix product
// (KernelGEMM) whatever its type, unless its type is a convolution.
func KernelClassOf(op *Op) KernelClass {
	c := TypeKernelClass(op.Type)
	if c == KernelGEMM || c == KernelConv {
		return c
	}
	if op.FLOPs > gemmIntensity*float64(op.BytesAccessed) && op.FLOPs > 0 {
		if strings.Contains(op.Type, "conv") {
			return KernelConv
		}
		return KernelGEMM
	}
	return c
}

// LaunchesKernel reports whether an op runs a kernel (its class is not
// KernelNone): the count of a step's kernel launches.
func LaunchesKernel(op *Op) bool { return KernelClassOf(op) != KernelNone }
