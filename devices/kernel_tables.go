package devices

import "placesim/workloads"

// Kernel tables of the built-in kinds: one row per kernel class (see
// KernelCost for the model). Peaks and bandwidths are the datasheets' (in
// kinds.go); the rows say which fraction of them kernels attain and where
// each number comes from. The whole stack is checked against measured
// training throughputs by `placesim validate validation/published.tsv`
// (see README "Fidelity"); numbers marked "fitted" were chosen on those
// rows, as few and as physically bounded as possible (one memory
// efficiency per memory technology, one GEMM and one convolution
// efficiency per architecture), so that figures outside the set are not
// overfitted.

// Sources cited by the rows.
const (
	srcStream = "sustained bandwidth of a streaming kernel: STREAM/BabelStream triad reaches 85-90 % of HBM peak on V100/A100/H100 and about 85 % of GDDR6 peak"
	srcLaunch = "kernel launch gap and wave ramp of a few microseconds per kernel on an asynchronous CUDA stream (NVIDIA, \"Getting Started with CUDA Graphs\", 2019: launch overheads of several us per kernel)"
	srcGEMM   = "cuBLAS large-GEMM efficiency: 85-90 % of the FP32 peak, 70-80 % of the tensor-core peak (FP32 and FP16 fitted on the FP32 and AMP BERT and Transformer rows of validation/published.tsv)"
	srcConv   = "cuDNN convolutions of the ImageNet CNNs reach less of the peak than a square GEMM (small channel counts, 1x1 and strided filters, NHWC transposes): fitted on the ResNet-50 rows of validation/published.tsv"
	srcPoint  = "pointwise kernels are memory bound: bandwidth as srcStream; FP32 FMA throughput half of peak (no dual issue)"
	srcReduce = "reductions read their input once at streaming bandwidth (srcStream), with a second pass for the tail"
	srcNorm   = "cuDNN batch norm / apex and PyTorch layer norm: two passes (statistics, normalisation) over the input where the op's bytes count one; bandwidth as srcStream"
	srcGather = "row gathers of 1-4 KiB rows: about 3/4 of streaming bandwidth"
	srcOptim  = "multi-tensor apply optimizers (apex / torch._foreach): streaming bandwidth over parameters, gradients and state"
	srcComm   = "NCCL reduction kernels run at streaming bandwidth on a few SMs; the link time is the engine's"
	srcCPU    = "oneDNN on a Xeon: about half the AVX-512 FMA peak for GEMM/convolution, 70 % of DRAM bandwidth, 2 us dispatch per op (TensorFlow's thread pool)"
)

// gpuTable builds a GPU table from the architecture's GEMM and
// convolution efficiencies (vector FP32, FP16/BF16 tensor, TF32 tensor),
// memory efficiency and per-kernel overhead.
func gpuTable(gemm, conv [3]float64, memEff, overhead float64) KernelTable {
	point := KernelCost{Eff: 0.5, TensorEff: 0.5, TF32Eff: 0.5, MemEff: memEff, Overhead: overhead, Source: srcPoint}
	var t KernelTable
	t[workloads.KernelNone] = KernelCost{Eff: 1, TensorEff: 1, TF32Eff: 1, MemEff: 1, Source: "no kernel runs"}
	t[workloads.KernelGEMM] = KernelCost{Eff: gemm[0], TensorEff: gemm[1], TF32Eff: gemm[2], MemEff: memEff, Overhead: overhead, Source: srcGEMM + "; " + srcTF32GEMM + "; " + srcLaunch}
	t[workloads.KernelConv] = KernelCost{Eff: conv[0], TensorEff: conv[1], TF32Eff: conv[2], MemEff: memEff, Overhead: overhead, Source: srcConv + "; " + srcLaunch}
	t[workloads.KernelElementwise] = point
	r := point
	r.MemEff, r.Source = 0.9*memEff, srcReduce
	t[workloads.KernelReduction] = r
	n := point
	n.MemEff, n.Source = normPasses*memEff, srcNorm
	t[workloads.KernelNormalization] = n
	s := point
	s.Source = srcPoint + " (softmax: one read, one write per element)"
	t[workloads.KernelSoftmax] = s
	g := point
	g.MemEff, g.Source = 0.75*memEff, srcGather
	t[workloads.KernelGather] = g
	o := point
	o.Source = srcOptim
	t[workloads.KernelOptimizer] = o
	c := point
	c.Source = srcComm
	t[workloads.KernelComm] = c
	return t
}

// Attention kernels (issue 29 audit): the framework profiles of the
// measured programs run attention as batched GEMMs (scores and context,
// memory bound at BERT's and the Transformer's head size of 64) with a
// separate softmax and dropout; none of them used a fused multi-head
// attention kernel. NVIDIA's PyTorch BERT (DeepLearningExamples
// pytorch:21.11, modeling.py BertSelfAttention: matmul, softmax, dropout,
// matmul; run_pretraining.py has no fused-MHA switch) and fairseq's
// Transformer (multihead_attention.py: bmm, softmax, dropout, bmm) run
// them op by op; NVIDIA's TensorFlow BERT (20.06) leaves the fusion of
// the pointwise ops to XLA (the tensorflow-xla profile). NVIDIA's fused
// MHA kernels appear in its MLPerf BERT submissions (--fused_mha,
// --unpad_fmha), which no shipped row measures. So the rows below hold at
// every sequence length for these profiles; at 512 tokens the scores'
// [batch x heads, 512, 512] softmax and dropout are memory-bound kernels
// of their own (the pointwise row).

// Efficiencies of large kernels, one set for every NVIDIA architecture
// (fitted on validation/published.tsv with one value per class and
// arithmetic, not per device or model): GEMM and convolution on the FP32
// vector units, on FP16/BF16 tensor cores and on TF32 tensor cores. The
// TF32 GEMM is not fitted: it is the FP16 one times tf32VsFP16.
const (
	gemmFP32, gemmTensor           = 0.88, 0.66
	gemmTF32                       = gemmTensor * tf32VsFP16
	convFP32, convTensor, convTF32 = 0.85, 0.55, 0.27
	// convTensorAmpere: Ampere's tensor cores are 2.5x Volta's per SM
	// clock while the implicit-GEMM address generation and the small
	// channel counts of CNN layers are not, so cuDNN convolutions reach a
	// smaller fraction of the A100 (and H100) peak (fitted on the A100
	// ResNet-50 AMP row)
	convTensorAmpere = 0.45
	// normPasses: a normalisation kernel reads its input twice (the
	// statistics, then the normalisation) forward and its input and
	// gradient twice backward, where the op's bytes count each once: 2/3
	// of the bandwidth is left for the bytes counted.
	normPasses = 2.0 / 3
)

var (
	// v100Kernels: Volta (V100 SXM2, HBM2).
	v100Kernels = gpuTable([3]float64{gemmFP32, gemmTensor, gemmTF32}, [3]float64{convFP32, convTensor, convTF32}, 0.87, 3e-6)
	// a100Kernels: Ampere (A100 SXM4, HBM2/HBM2e).
	a100Kernels = ampereTable()
	// h100Kernels: Hopper (H100 SXM5, HBM3): convolutions as Ampere; its
	// GEMMs reach a smaller share of its tensor-core peak than Ampere's
	// (hopperTable).
	h100Kernels = hopperTable()
	// rtx2080TiKernels: Turing (GeForce RTX 2080 Ti, GDDR6): as Volta,
	// GDDR6 streaming at about 85 % of its peak.
	rtx2080TiKernels = gpuTable([3]float64{gemmFP32, gemmTensor, gemmTF32}, [3]float64{convFP32, convTensor, convTF32}, 0.85, 3e-6)
	// cpuKernels: a Xeon socket.
	cpuKernels = cpuTable()
)

func cpuTable() KernelTable {
	var t KernelTable
	for c := range t {
		t[c] = KernelCost{Eff: 0.5, TensorEff: 0.5, TF32Eff: 0.5, MemEff: 0.7, Overhead: cpuLaunch, Source: srcCPU}
	}
	t[workloads.KernelNone] = KernelCost{Eff: 1, TensorEff: 1, TF32Eff: 1, MemEff: 1, Source: "no kernel runs"}
	return t
}

// Hopper's GEMMs against Ampere's. The tensor-core GEMM efficiency
// gemmTensor was fitted on V100 and A100 rows; no H100 row is in
// validation/published.tsv. The largest share of the peak a BF16 matmul
// reaches over a search of shapes (the "maximum achievable matmul
// FLOPS", MAMF, of stas00/ml-engineering@b9e2972
// compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS
// comparison table", torch matmul, mean of 100 iterations) is 86.9 % on
// an A100 SXM (271.2 of 312 TFLOPS) and 80.3 % on an H100 SXM (794.5 of
// 989); the FP8 (e4m3) matmul of the H100 SXM reaches 70.9 % of its FP8
// peak (1402.6 of 1979). Hopper doubles the tensor-core rate per SM
// clock while the operand loads, the epilogue and the 700 W power limit
// do not scale with it. So an H100 GEMM attains gemmTensor times
// 80.3/86.9 of the BF16 peak and gemmTensor times 70.9/86.9 of the FP8
// peak: the measured ratios carried onto the fitted efficiency, no
// figure of llm.tsv used.
const (
	mamfA100BF16  = 271.2 / 312
	mamfH100BF16  = 794.5 / 989
	mamfH100FP8   = 1402.6 / 1979
	srcHopperGEMM = "Hopper against Ampere: maximum achievable matmul FLOPS, BF16 80.3 % of peak on H100 SXM against 86.9 % on A100 SXM, FP8 70.9 % on H100 SXM (stas00/ml-engineering@b9e2972 compute/accelerator/README.md)"
)

// TF32 GEMMs against FP16 ones. One measurement times both on the same
// GPU, shapes and method: torch matmul of square matrices (n = 128 to
// 8,192, the median of a 3 s blocked_autorange) reaches 116 TFLOPS in
// TF32 and 230 in FP16 on an A100 80 GB (mli/transformers-benchmarks@3370b2b
// README.md, "Micro-Benchmarking Summary", row "Matrix Multiplication
// FP32 / FP16", from micro_bench.ipynb; FP32 there is TF32, 116 being
// above the 19.5 TFLOPS of FP32 on the vector units): 74.4 % of the 156
// TFLOPS TF32 peak and 73.7 % of the 312 FP16 peak. A TF32 GEMM moves
// twice the bytes of an FP16 one for half the peak, so it reaches the same
// share of its peak, not more. That ratio carried onto the fitted FP16
// efficiency gives gemmTF32 (0.666), as the Hopper ratios below are
// carried; it replaced 0.72, fitted on the one TF32 BERT row of
// validation/published.tsv. (The same table's V100 FP32 matmul, 14 of
// 15.7 TFLOPS, 89 %, agrees with the fitted gemmFP32.) Convolutions keep
// their own fitted convTF32: the ratio is of matmuls, and NVIDIA's TF32
// ResNet-50 runs its convolutions in NCHW where its AMP one runs NHWC
// (PyTorch/Classification/ConvNets configs.yml: memory_format nhwc under
// AMP only), other cuDNN kernels.
const (
	tf32VsFP16  = (116.0 / 156) / (230.0 / 312)
	srcTF32GEMM = "TF32 GEMMs reach the FP16 ones' share of the peak: 116 of 156 TFLOPS against 230 of 312 on an A100 80 GB (mli/transformers-benchmarks@3370b2b README.md, Micro-Benchmarking Summary)"
)

// ampereTable is the Ampere kernel table (a100Kernels), which Hopper's
// starts from.
func ampereTable() KernelTable {
	return gpuTable([3]float64{gemmFP32, gemmTensor, gemmTF32}, [3]float64{convFP32, convTensorAmpere, convTF32}, 0.87, 3e-6)
}

// hopperTable is the Hopper kernel table: Ampere's, with the GEMM row's
// tensor-core efficiencies scaled by the measured Hopper/Ampere ratios.
func hopperTable() KernelTable {
	t := ampereTable()
	g := t[workloads.KernelGEMM]
	g.TensorEff = gemmTensor * mamfH100BF16 / mamfA100BF16
	g.FP8Eff = gemmTensor * mamfH100FP8 / mamfA100BF16
	g.TF32Eff = g.TensorEff * tf32VsFP16
	g.Source += "; " + srcHopperGEMM
	t[workloads.KernelGEMM] = g
	return t
}
