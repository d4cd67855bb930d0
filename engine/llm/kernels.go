package llm

import "placesim/workloads/zoo"

// hostIssue is the host time PyTorch spends issuing one eager CUDA
// kernel: Python, the autograd record, the ATen dispatcher and
// cudaLaunchKernel, about 5 to 25 us an op (the per-layer costs of the
// PyTorch dispatch chain: Python ~1 us, binding ~1 us, autograd 1-3 us,
// dispatcher 1-2 us, backend 1-5 us, cudaLaunchKernel 1-3 us). 10 us is
// taken, within that range; an eager elementwise add on a CUDA tensor
// issued back to back took 14 us each on an H100 node (a check, not
// used to set it). A run of small eager kernels cannot finish faster
// than the host issues them (Megatron-LM's MoE guide, "CPU Overhead
// Bottleneck": gaps between kernels where the CPU cannot launch them
// fast enough, without CUDA graphs).
const hostIssue = 10e-6

// flashHeadDimFactor is the throughput of a flash-attention kernel with
// head dimension d relative to d = 128, which the GEMM efficiency of the
// kind is calibrated for (the Llama rows of llm.tsv). cuDNN's own SDPA
// training benchmark on Hopper (NVIDIA/cudnn-frontend@3929da2
// benchmark/sdpa_benchmark_training/results/h200_919_only_cudnn, cuDNN
// 9.19, H200, BF16, causal, sequence 4096): Llama 3.1's shape (64 heads,
// 8 KV heads, d = 128) reaches 591 TFLOP/s forward and 474 backward,
// GPT-OSS's (64 heads, 8 KV heads, d = 64) 336 and 289: 0.57 and 0.61 of
// d = 128 (with half the head dimension each score tile does half the
// work per softmax element and per load of Q, K, V). Linear in d between
// 64 and 128, 1 from 128 up, the 64 ratio below 64.
func flashHeadDimFactor(d int, backward bool) float64 {
	r := 336.0 / 591
	if backward {
		r = 289.0 / 474
	}
	switch {
	case d >= 128:
		return 1
	case d <= 64:
		return r
	}
	return r + (1-r)*float64(d-64)/64
}

// isFlash is whether op is the fused flash-attention kernel.
func isFlash(op zoo.LLMOp) bool { return op.Name == "flash-attention" }
