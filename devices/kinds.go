package devices

import (
	"fmt"
	"sort"
	"strings"
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
	// PeakFLOPS is the FP32 peak in FLOP/s (training in the papers is FP32).
	PeakFLOPS float64
	// TensorFLOPS is the FP16/BF16 dense tensor-core peak in FLOP/s (0 if none).
	TensorFLOPS float64
	// MemBandwidth is the device-memory bandwidth in bytes/s.
	MemBandwidth float64
	// Memory is the capacity in bytes.
	Memory int64
	// ComputeEfficiency and MemEfficiency are the fractions of the peaks an
	// op attains in the roofline model.
	ComputeEfficiency, MemEfficiency float64
	// LaunchOverhead is the fixed per-op cost in seconds (kernel launch and
	// framework dispatch).
	LaunchOverhead float64
	// MeasuredScale multiplies an op's measured times on this kind (0
	// means 1): what-if studies that make a device f times faster set it
	// to 1/f, so measured and modelled costs change alike.
	MeasuredScale float64
}

const gib = int64(1) << 30

// The efficiency factors are the ones DeepBench-style measurements give for
// large dense kernels in FP32 (about 70 % of peak compute, 80 % of peak
// memory bandwidth); launch overhead is TensorFlow's per-op dispatch cost on
// a GPU (about 5 us) or a CPU thread pool (about 2 us).
const (
	gpuComputeEff = 0.7
	gpuMemEff     = 0.8
	gpuLaunch     = 5e-6
	cpuLaunch     = 2e-6
)

// Device kinds from the vendors' datasheets (SXM parts unless noted).
var (
	// V100_16GB: 15.7 TFLOPS FP32, 125 TFLOPS tensor, 900 GB/s HBM2, 16 GB.
	V100_16GB = Kind{"V100-16GB", Accelerator, 15.7e12, 125e12, 900e9, 16 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// V100_32GB: as V100_16GB with 32 GB.
	V100_32GB = Kind{"V100-32GB", Accelerator, 15.7e12, 125e12, 900e9, 32 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// A100_40GB: 19.5 TFLOPS FP32, 312 TFLOPS BF16, 1555 GB/s, 40 GB.
	A100_40GB = Kind{"A100-40GB", Accelerator, 19.5e12, 312e12, 1555e9, 40 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// A100_80GB: 19.5 TFLOPS FP32, 312 TFLOPS BF16, 2039 GB/s, 80 GB.
	A100_80GB = Kind{"A100-80GB", Accelerator, 19.5e12, 312e12, 2039e9, 80 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// H100_80GB: 67 TFLOPS FP32, 989 TFLOPS BF16 dense, 3.35 TB/s, 80 GB.
	H100_80GB = Kind{"H100-80GB", Accelerator, 67e12, 989e12, 3350e9, 80 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// RTX2080Ti: 13.4 TFLOPS FP32, 107 TFLOPS FP16 tensor, 616 GB/s GDDR6, 11 GB.
	RTX2080Ti = Kind{"RTX2080Ti", Accelerator, 13.4e12, 107e12, 616e9, 11 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
	// XeonSocket: a 20-core Xeon Gold 6148 at 2.4 GHz with AVX-512 (2 FMA
	// units: 20 x 2.4e9 x 32 = 1.54 TFLOPS FP32), 6 channels of DDR4-2666
	// (128 GB/s), 192 GB of memory.
	XeonSocket = Kind{"CPU", CPU, 1.54e12, 0, 128e9, 192 * gib, 0.5, 0.7, cpuLaunch, 0}
	// GenericAcc is the accelerator of the Tarnawski et al. workloads, whose
	// costs are all measured: V100-like figures, 16 GiB.
	GenericAcc = Kind{"acc", Accelerator, 15.7e12, 125e12, 900e9, 16 * gib, gpuComputeEff, gpuMemEff, gpuLaunch, 0}
)

var builtinKinds = map[string]Kind{}

func init() {
	for _, k := range []Kind{V100_16GB, V100_32GB, A100_40GB, A100_80GB, H100_80GB, RTX2080Ti, XeonSocket, GenericAcc} {
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
	case !(k.ComputeEfficiency > 0 && k.ComputeEfficiency <= 1):
		return fmt.Errorf("device kind %q: field computeEfficiency = %g (valid range: (0, 1])", k.Name, k.ComputeEfficiency)
	case !(k.MemEfficiency > 0 && k.MemEfficiency <= 1):
		return fmt.Errorf("device kind %q: field memEfficiency = %g (valid range: (0, 1])", k.Name, k.MemEfficiency)
	case !(k.LaunchOverhead >= 0):
		return fmt.Errorf("device kind %q: field launchOverhead = %g (valid range: >= 0 s)", k.Name, k.LaunchOverhead)
	}
	return nil
}
