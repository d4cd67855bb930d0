package devices

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"placesim/workloads"
)

// Class of a device: an accelerator or a CPU.
type Class string

// Device classes.
const (
	Accelerator Class = "accelerator"
	CPU         Class = "cpu"
)

// Kind is a type of device with its vendor figures.
type Kind struct {
	// Name, e.g. "V100-32GB".
	Name string
	// Class is Accelerator or CPU.
	Class Class
	// PeakFLOPS is the FP32 peak of the vector units (CUDA cores, SIMD)
	// in FLOP/s.
	PeakFLOPS float64
	// TensorFLOPS is the dense FP16 tensor-core peak with FP32
	// accumulation, in FLOP/s (0 if none).
	TensorFLOPS float64
	// VectorFP16 and VectorBF16 are the vector units' FP16 and BF16
	// peaks; TensorTF32 and TensorBF16 the dense tensor-core peaks for
	// TF32 and BF16 (FP32 accumulation). 0 means the device has no such
	// unit: see Peak for what runs instead.
	VectorFP16, VectorBF16, TensorTF32, TensorBF16 float64
	// TensorFP8 and TensorFP4 are the dense FP8 and FP4 tensor-core peaks
	// (FP32 accumulation); 0 means none (see Peak).
	TensorFP8, TensorFP4 float64
	// Arch is the architecture generation ("volta", "turing", "ampere",
	// "hopper", "blackwell", "cdna3", "cpu"): NCCL's tuning constants
	// depend on it (package collectives). Empty for custom kinds, which
	// are then treated by their figures alone.
	Arch string
	// MemBandwidth is the device-memory bandwidth in bytes/s.
	MemBandwidth float64
	// Memory is the capacity in bytes.
	Memory int64
	// ComputeEfficiency and MemEfficiency are the fractions of the peaks an
	// op attains in the plain roofline model, used when Kernels is nil.
	ComputeEfficiency, MemEfficiency float64
	// LaunchOverhead is the fixed per-op cost in seconds (kernel launch and
	// framework dispatch) of the plain roofline model.
	LaunchOverhead float64
	// MeasuredScale multiplies an op's measured times on this kind (0
	// means 1): what-if studies that make a device f times faster set it
	// to 1/f, so measured and modelled costs change alike.
	MeasuredScale float64
	// Kernels, when set, is the kind's kernel cost table (efficiency and
	// overhead per op class, see OpTime); nil: the plain roofline with
	// ComputeEfficiency, MemEfficiency and LaunchOverhead. Read-only.
	Kernels *KernelTable
}

// Peak is the rate in FLOP/s of arithmetic d on the tensor cores (tensor:
// matrix products and convolutions) or on the vector units. A precision
// the device lacks runs as the hardware does it: TF32 without tensor cores
// is FP32 (V100); FP16 or BF16 without a matching unit runs at the FP32
// rate (converted to FP32, as BF16 on V100 or half precision on a CPU).
func (k *Kind) Peak(d workloads.DType, tensor bool) float64 {
	pick := func(vals ...float64) float64 {
		for _, v := range vals {
			if v > 0 {
				return v
			}
		}
		return k.PeakFLOPS
	}
	switch d {
	case workloads.TF32:
		if tensor {
			return pick(k.TensorTF32)
		}
	case workloads.FP16:
		if tensor {
			return pick(k.TensorFLOPS, k.VectorFP16)
		}
		return pick(k.VectorFP16)
	case workloads.BF16:
		if tensor {
			return pick(k.TensorBF16, k.VectorBF16)
		}
		return pick(k.VectorBF16)
	case workloads.FP8, workloads.FP4:
		// FP8 and FP4 exist only on tensor cores; without them the
		// hardware runs the product in the next wider format it has
		// (Transformer Engine falls back to BF16 on GPUs older than
		// Hopper), and elementwise work in BF16.
		if !tensor {
			return pick(k.VectorBF16)
		}
		if d == workloads.FP4 && k.TensorFP4 > 0 {
			return k.TensorFP4
		}
		return pick(k.TensorFP8, k.TensorBF16, k.TensorFLOPS, k.VectorBF16)
	}
	return k.PeakFLOPS
}

// ScaleCompute multiplies every compute peak by f (a what-if on FLOP/s).
func (k *Kind) ScaleCompute(f float64) {
	for _, p := range []*float64{&k.PeakFLOPS, &k.TensorFLOPS, &k.VectorFP16, &k.VectorBF16, &k.TensorTF32, &k.TensorBF16, &k.TensorFP8, &k.TensorFP4} {
		*p *= f
	}
}

const gib = int64(1) << 30

// The plain roofline's efficiency factors (kinds without a kernel table:
// custom kinds in cluster files, the Tarnawski accelerator whose costs are
// all measured): about 70 % of peak compute and 80 % of peak memory
// bandwidth, and 5 us of dispatch per op on a GPU, 2 us on a CPU.
const (
	gpuComputeEff = 0.7
	gpuMemEff     = 0.8
	gpuLaunch     = 5e-6
	cpuLaunch     = 2e-6
)

// Device kinds from the vendors' datasheets (SXM parts unless noted); the
// kernel tables are in kernels.go.
var (
	// V100_16GB: NVIDIA Tesla V100 SXM2 datasheet and "NVIDIA Tesla V100
	// GPU Architecture" whitepaper (2017), Table 1: 15.7 TFLOPS FP32,
	// 31.4 TFLOPS FP16, 125 TFLOPS tensor (FP16 with FP32 accumulate), no
	// TF32 or BF16 unit; 900 GB/s HBM2; 16 GB.
	V100_16GB = Kind{Name: "V100-16GB", Class: Accelerator, PeakFLOPS: 15.7e12, TensorFLOPS: 125e12,
		VectorFP16: 31.4e12, MemBandwidth: 900e9, Memory: 16 * gib, Arch: "volta",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &v100Kernels}
	// V100_32GB: as V100_16GB with 32 GB.
	V100_32GB = withMemory(V100_16GB, "V100-32GB", 32*gib)
	// A100_40GB: NVIDIA A100 Tensor Core GPU datasheet (SXM4) and "NVIDIA
	// A100 Tensor Core GPU Architecture" whitepaper (2020), Table 1:
	// 19.5 TFLOPS FP32, 78 TFLOPS FP16 and 39 TFLOPS BF16 on the vector
	// units, 156 TFLOPS TF32 and 312 TFLOPS FP16/BF16 dense tensor;
	// 1555 GB/s HBM2; 40 GB.
	A100_40GB = Kind{Name: "A100-40GB", Class: Accelerator, PeakFLOPS: 19.5e12, TensorFLOPS: 312e12,
		VectorFP16: 78e12, VectorBF16: 39e12, TensorTF32: 156e12, TensorBF16: 312e12,
		MemBandwidth: 1555e9, Memory: 40 * gib, Arch: "ampere",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &a100Kernels}
	// A100_80GB: as A100_40GB with 80 GB of HBM2e at 2039 GB/s (A100 80GB
	// SXM datasheet).
	A100_80GB = withBandwidth(withMemory(A100_40GB, "A100-80GB", 80*gib), 2039e9)
	// H100_80GB: NVIDIA H100 Tensor Core GPU datasheet (SXM5) and "NVIDIA
	// H100 Tensor Core GPU Architecture" whitepaper (2022), Table 3:
	// 67 TFLOPS FP32, 133.8 TFLOPS FP16/BF16 vector, 494.7 TFLOPS TF32 and
	// 989.4 TFLOPS FP16/BF16 and 1978.9 TFLOPS FP8 dense tensor (the
	// datasheet's 3,958 TFLOPS FP8 is with sparsity); 3.35 TB/s HBM3;
	// 80 GB.
	H100_80GB = Kind{Name: "H100-80GB", Class: Accelerator, PeakFLOPS: 67e12, TensorFLOPS: 989.4e12,
		VectorFP16: 133.8e12, VectorBF16: 133.8e12, TensorTF32: 494.7e12, TensorBF16: 989.4e12,
		TensorFP8: 1978.9e12, MemBandwidth: 3350e9, Memory: 80 * gib, Arch: "hopper",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &h100Kernels}
	// RTX2080Ti: "NVIDIA Turing GPU Architecture" whitepaper (2018),
	// Appendix A, GeForce RTX 2080 Ti reference (1545 MHz boost):
	// 13.4 TFLOPS FP32, 26.9 TFLOPS FP16, 53.8 TFLOPS FP16 tensor with
	// FP32 accumulate (107.6 with FP16 accumulate, which training does not
	// use), no TF32 or BF16; 616 GB/s GDDR6; 11 GB.
	RTX2080Ti = Kind{Name: "RTX2080Ti", Class: Accelerator, PeakFLOPS: 13.4e12, TensorFLOPS: 53.8e12,
		VectorFP16: 26.9e12, MemBandwidth: 616e9, Memory: 11 * gib, Arch: "turing",
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch, Kernels: &rtx2080TiKernels}
	// XeonSocket: a 20-core Xeon Gold 6148 at 2.4 GHz with AVX-512 (2 FMA
	// units: 20 x 2.4e9 x 32 = 1.54 TFLOPS FP32; half precision is
	// converted and runs at that rate), 6 channels of DDR4-2666
	// (128 GB/s), 192 GB of memory (Intel ARK).
	XeonSocket = Kind{Name: "CPU", Class: CPU, PeakFLOPS: 1.54e12, MemBandwidth: 128e9, Memory: 192 * gib, Arch: "cpu",
		ComputeEfficiency: 0.5, MemEfficiency: 0.7, LaunchOverhead: cpuLaunch, Kernels: &cpuKernels}
	// GenericAcc is the accelerator of the Tarnawski et al. workloads, whose
	// costs are all measured: V100-like figures, 16 GiB, plain roofline.
	GenericAcc = Kind{Name: "acc", Class: Accelerator, PeakFLOPS: 15.7e12, TensorFLOPS: 125e12,
		VectorFP16: 31.4e12, MemBandwidth: 900e9, Memory: 16 * gib,
		ComputeEfficiency: gpuComputeEff, MemEfficiency: gpuMemEff, LaunchOverhead: gpuLaunch}
)

func withMemory(k Kind, name string, mem int64) Kind {
	k.Name, k.Memory = name, mem
	return k
}

func withBandwidth(k Kind, bw float64) Kind {
	k.MemBandwidth = bw
	return k
}

var builtinKinds = map[string]Kind{}

func init() {
	for _, k := range []Kind{V100_16GB, V100_32GB, A100_40GB, A100_80GB, H100_80GB, RTX2080Ti, XeonSocket, GenericAcc,
		H200, B200, GB200, MI300X} {
		builtinKinds[strings.ToLower(k.Name)] = k
	}
}

// KindByName returns a built-in device kind (case-insensitive).
func KindByName(name string) (Kind, error) {
	k, ok := builtinKinds[strings.ToLower(name)]
	if !ok {
		return Kind{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownKind, name, strings.Join(KindNames(), ", "))
	}
	return k, nil
}

// KindNames lists the built-in device kinds.
func KindNames() []string {
	var n []string
	for _, k := range builtinKinds {
		n = append(n, k.Name)
	}
	sort.Strings(n)
	return n
}

// MinEfficiency is the smallest compute or memory efficiency a kind may
// declare: a device below a millionth of its peak is no accelerator, and a
// smaller (or subnormal, such as 1e-320) fraction only drives op times out
// of float64 range (+Inf step times).
const MinEfficiency = 1e-6

// Validate checks a kind's figures.
func (k Kind) Validate() error {
	switch {
	case k.Name == "":
		return fmt.Errorf("device kind: field name is empty")
	case k.Class != Accelerator && k.Class != CPU:
		return fmt.Errorf("device kind %q: field class = %q (valid: accelerator, cpu)", k.Name, k.Class)
	case !(k.PeakFLOPS > 0):
		return fmt.Errorf("device kind %q: field flops = %g (valid range: > 0 FLOP/s)", k.Name, k.PeakFLOPS)
	case !(k.MemBandwidth > 0):
		return fmt.Errorf("device kind %q: field memBandwidth = %g (valid range: > 0 bytes/s)", k.Name, k.MemBandwidth)
	case k.Memory <= 0:
		return fmt.Errorf("device kind %q: field memory = %d (valid range: > 0 bytes)", k.Name, k.Memory)
	case !(k.ComputeEfficiency >= MinEfficiency && k.ComputeEfficiency <= 1):
		return fmt.Errorf("device kind %q: field computeEfficiency = %g (valid range: [%g, 1])", k.Name, k.ComputeEfficiency, MinEfficiency)
	case !(k.MemEfficiency >= MinEfficiency && k.MemEfficiency <= 1):
		return fmt.Errorf("device kind %q: field memEfficiency = %g (valid range: [%g, 1])", k.Name, k.MemEfficiency, MinEfficiency)
	case !(k.LaunchOverhead >= 0):
		return fmt.Errorf("device kind %q: field launchOverhead = %g (valid range: >= 0 s)", k.Name, k.LaunchOverhead)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"tensorFlops", k.TensorFLOPS}, {"vectorFp16", k.VectorFP16}, {"vectorBf16", k.VectorBF16}, {"tensorTf32", k.TensorTF32}, {"tensorBf16", k.TensorBF16}, {"tensorFp8", k.TensorFP8}, {"tensorFp4", k.TensorFP4}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("device kind %q: field %s = %g (valid range: finite, >= 0 FLOP/s; 0 = no such unit)", k.Name, f.name, f.v)
		}
	}
	if k.Kernels != nil {
		return k.Kernels.validate(k.Name)
	}
	return nil
}
