package zoo

import (
	"fmt"
	"strings"
)

// Framework profiles: which ops a framework runs as one kernel. The graph
// a zoo model generates follows the profile named by the framework=
// parameter; the default is DefaultFramework, what most users run today.
const (
	// FrameworkTF1Graph is TensorFlow 1.x's op-by-op graph as the seeds'
	// papers placed it (Celeritas, FastT, Pesto, Tarnawski et al.): batch
	// norm of 9 to 15 ops, layer norm of 9, dropout of 5, bias add and
	// activation separate, one op chain per attention head, every reshape
	// and transpose a copy.
	FrameworkTF1Graph = "tf1-graph"
	// FrameworkTensorFlow is TensorFlow with its fused kernels as the
	// NGC/tf.keras models use them: cuDNN fused batch norm, batched
	// attention heads; layer norm and dropout still op by op, bias add a
	// separate kernel, transposes copies.
	FrameworkTensorFlow = "tensorflow"
	// FrameworkPyTorch is PyTorch eager with cuDNN/cuBLAS (the default):
	// batch norm and layer norm one kernel each way, dropout one kernel
	// (output and a 1-byte mask), the bias in the GEMM (addmm, cuBLASLt
	// epilogue), batched attention heads whose reshapes and head
	// transposes are strided views (one copy when the heads are merged),
	// the cross-entropy as log_softmax + nll_loss.
	FrameworkPyTorch = "pytorch"
	// FrameworkXLA is TensorFlow compiled by XLA's auto-clustering
	// (global_jit_level ON_1, tf.config.optimizer.set_jit): as PyTorch,
	// and pointwise chains fused into one kernel: batch norm with its
	// ReLU, the residual add with its ReLU, dropout with the residual add
	// and layer norm, the attention mask with the softmax. Dropout's
	// random numbers stay outside the clusters (xlaDropout); layer norm
	// is TensorFlow's moments and normalisation in three kernels
	// (momentsPasses); the attention heads' transposes are copies.
	FrameworkXLA = "xla"
	// FrameworkMXNet is MXNet with NVIDIA's fused NHWC kernels: as
	// PyTorch, with batch norm + ReLU and batch norm + add + ReLU fused
	// (cuDNN BatchNormAddRelu).
	FrameworkMXNet = "mxnet"
	// DefaultFramework is the profile of a spec without framework=.
	DefaultFramework = FrameworkPyTorch
)

// Frameworks lists the profiles.
func Frameworks() []string {
	return []string{FrameworkPyTorch, FrameworkTensorFlow, FrameworkXLA, FrameworkMXNet, FrameworkTF1Graph}
}

// profile is what a framework fuses.
type profile struct {
	name string
	// fusedBN: batch norm is one op (cuDNN); else TensorFlow's op chain.
	fusedBN bool
	// fusedLN: layer norm is one op; else the 9-op chain.
	fusedLN bool
	// fusedDropout: dropout is one op writing its output and a mask.
	fusedDropout bool
	// batchedHeads: attention heads as one batched GEMM (the attention=
	// parameter overrides it).
	batchedHeads bool
	// views: reshapes and head splits are strided views (no copy).
	views bool
	// biasInGEMM: a dense layer's bias is added by the GEMM.
	biasInGEMM bool
	// fuseBNAct: batch norm and a following ReLU are one op; fuseAddAct:
	// a residual add and its ReLU are one op.
	fuseBNAct, fuseAddAct bool
	// fuseResidualNorm: dropout, residual add and layer norm are one op;
	// fuseMaskSoftmax: the attention mask add is part of the softmax.
	fuseResidualNorm, fuseMaskSoftmax bool
	// rngOutsideXLA: dropout's random numbers are drawn by TensorFlow's
	// own RandomUniform kernel outside the XLA clusters and written to
	// memory as FP32 (xlaDropout); else a fused dropout writes a 1-byte
	// mask.
	rngOutsideXLA bool
	// momentsLN: layer norm is TensorFlow's tf.nn.moments (two dependent
	// row reductions) and batch_normalization, three XLA kernels each
	// reading the layer norm's input (net.momentsPasses); else one
	// normalisation kernel.
	momentsLN bool
	// xlaHeads: the heads' split is one transpose copy per projection
	// (the reshape a free bitcast) and the scores' 1/sqrt(d) scale is
	// fused into the softmax (net.attention); else views or copies by
	// views, and the scale a kernel of its own.
	xlaHeads bool
	// torchLoss: the cross-entropy is PyTorch's log_softmax + nll_loss
	// (two kernels, the log-probabilities saved); else TensorFlow's fused
	// SparseSoftmaxCrossEntropyWithLogits (MXNet's SoftmaxOutput and XLA
	// likewise compute the loss and its gradient in one forward kernel).
	torchLoss bool
	// fairseqTransformer: zoo:transformer is NVIDIA's fairseq program
	// (DeepLearningExamples PyTorch/Translation/Transformer), the PyTorch
	// reference of the validation rows (transformer_fairseq.go).
	fairseqTransformer bool
}

// profileFor returns a framework's profile.
func profileFor(name string) (profile, error) {
	switch name {
	case FrameworkTF1Graph:
		return profile{name: name}, nil
	case FrameworkTensorFlow:
		return profile{name: name, fusedBN: true, batchedHeads: true}, nil
	case FrameworkPyTorch:
		return profile{name: name, fusedBN: true, fusedLN: true, fusedDropout: true, batchedHeads: true, views: true, biasInGEMM: true, torchLoss: true, fairseqTransformer: true}, nil
	case FrameworkMXNet:
		return profile{name: name, fusedBN: true, fusedLN: true, fusedDropout: true, batchedHeads: true, views: true, biasInGEMM: true,
			fuseBNAct: true, fuseAddAct: true}, nil
	case FrameworkXLA:
		return profile{name: name, fusedBN: true, fusedLN: true, fusedDropout: true, batchedHeads: true, views: true, biasInGEMM: true,
			fuseBNAct: true, fuseAddAct: true, fuseResidualNorm: true, fuseMaskSoftmax: true, rngOutsideXLA: true, momentsLN: true, xlaHeads: true}, nil
	}
	return profile{}, fmt.Errorf("parameter framework=%q (valid: %s)", name, strings.Join(Frameworks(), ", "))
}
