package devices

// Today's data-centre GPUs. Tensor-core figures are dense: NVIDIA's
// datasheets quote FP4/FP8/FP16/BF16/TF32 "with sparsity" and say that
// the dense figure is one half of it; AMD's quote both. Memory is the
// datasheet's capacity in GB (10^9 bytes) per GPU.
var (
	// H200: NVIDIA H200 Tensor Core GPU datasheet (SXM, 2024): FP32
	// 67 TFLOPS; TF32 989, BF16/FP16 1,979 and FP8 3,958 TFLOPS tensor
	// with sparsity (dense: 494.7, 989.4, 1,978.9); 141 GB HBM3e at
	// 4.8 TB/s; NVLink 900 GB/s. It is the GH100 die of the H100 at the
	// same clocks, so its vector FP16/BF16 rate is the H100's (H100
	// whitepaper, Table 3) and its kernels behave as the H100's.
	H200 = Kind{Name: "H200", Class: Accelerator, PeakFLOPS: 67e12, TensorFLOPS: 989.4e12,
		VectorFP16: 133.8e12, VectorBF16: 133.8e12, TensorTF32: 494.7e12, TensorBF16: 989.4e12,
		TensorFP8: 1978.9e12, MemBandwidth: 4.8e12, Memory: 141e9, Arch: "hopper",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &h100Kernels}
	// B200: NVIDIA HGX B200 datasheet (2024/2025), per GPU (one eighth
	// of the 8-GPU board): FP32 75 TFLOPS; TF32 2.2, FP16/BF16 4.5, FP8
	// 9 and FP4 18 PFLOPS tensor with sparsity (dense: 1.1, 2.25, 4.5,
	// 9 PFLOPS); 180 GB HBM3e at 8 TB/s (DGX B200 datasheet: 1,440 GB and
	// 64 TB/s for 8 GPUs); NVLink 5 at 1.8 TB/s. No Blackwell kernel
	// measurements are in ../shared/fidelity, so its kernels take the
	// H100's efficiencies (an assumption, not a calibration).
	B200 = Kind{Name: "B200", Class: Accelerator, PeakFLOPS: 75e12, TensorFLOPS: 2.25e15,
		TensorTF32: 1.1e15, TensorBF16: 2.25e15, TensorFP8: 4.5e15, TensorFP4: 9e15,
		MemBandwidth: 8e12, Memory: 180e9, Arch: "blackwell",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &h100Kernels}
	// GB200: the Blackwell GPU of a GB200 Grace Blackwell superchip, from
	// the NVIDIA GB200 NVL72 datasheet (72 GPUs a rack; per GPU = rack /
	// 72): FP32 5,760 TFLOPS (80); TF32 180, FP16/BF16 360, FP8 720 and
	// FP4 1,440 PFLOPS tensor with sparsity (dense per GPU: 1.25, 2.5, 5,
	// 10 PFLOPS); 13.4 TB HBM3e (186 GB) at 576 TB/s (8 TB/s); NVLink
	// 130 TB/s (1.8 TB/s). Kernels as B200.
	GB200 = Kind{Name: "GB200", Class: Accelerator, PeakFLOPS: 80e12, TensorFLOPS: 2.5e15,
		TensorTF32: 1.25e15, TensorBF16: 2.5e15, TensorFP8: 5e15, TensorFP4: 10e15,
		MemBandwidth: 8e12, Memory: 186e9, Arch: "blackwell",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &h100Kernels}
	// MI300X: AMD Instinct MI300X data sheet (2023): FP32 vector
	// 163.4 TFLOPS; dense matrix TF32 653.7, FP16/BF16 1,307.4, FP8
	// 2,614.9 TFLOPS (twice that with sparsity); 192 GB HBM3 at
	// 5.3 TB/s; 7 Infinity Fabric links of 128 GB/s (bidirectional) each.
	// No vector FP16/BF16 figure is on the data sheet, so elementwise
	// half precision runs at the FP32 vector rate; no kernel table (the
	// plain roofline).
	MI300X = Kind{Name: "MI300X", Class: Accelerator, PeakFLOPS: 163.4e12, TensorFLOPS: 1307.4e12,
		TensorTF32: 653.7e12, TensorBF16: 1307.4e12, TensorFP8: 2614.9e12,
		MemBandwidth: 5.3e12, Memory: 192e9, Arch: "cdna3",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch}
)
