package devices_test

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/workloads"
)

// relTol is the tolerance of times computed two ways.
const relTol = 1e-12

// TestPeaks: every built-in kind's peaks per precision, as its datasheet
// gives them, and the fallbacks of the units a device lacks.
func TestPeaks(t *testing.T) {
	tests := []struct {
		kind   devices.Kind
		d      workloads.DType
		tensor bool
		want   float64
	}{
		{devices.V100_16GB, workloads.FP32, true, 15.7e12},
		{devices.V100_16GB, workloads.TF32, true, 15.7e12}, // no TF32 unit: FP32
		{devices.V100_16GB, workloads.FP16, true, 125e12},
		{devices.V100_16GB, workloads.FP16, false, 31.4e12},
		{devices.V100_16GB, workloads.BF16, true, 15.7e12}, // no BF16: FP32 rate
		{devices.A100_40GB, workloads.TF32, true, 156e12},
		{devices.A100_40GB, workloads.TF32, false, 19.5e12},
		{devices.A100_80GB, workloads.BF16, true, 312e12},
		{devices.A100_80GB, workloads.BF16, false, 39e12},
		{devices.H100_80GB, workloads.FP16, true, 989.4e12},
		{devices.H100_80GB, workloads.TF32, true, 494.7e12},
		{devices.RTX2080Ti, workloads.FP16, true, 53.8e12},
		{devices.XeonSocket, workloads.FP16, true, 1.54e12},
	}
	for _, tc := range tests {
		t.Run(tc.kind.Name+"/"+tc.d.String(), func(t *testing.T) {
			if got := tc.kind.Peak(tc.d, tc.tensor); got != tc.want {
				t.Fatalf("peak %g, want %g", got, tc.want)
			}
		})
	}
	for _, k := range []devices.Kind{devices.V100_16GB, devices.V100_32GB, devices.A100_40GB, devices.A100_80GB, devices.H100_80GB, devices.RTX2080Ti, devices.XeonSocket} {
		if err := k.Validate(); err != nil {
			t.Fatal(err)
		}
		if k.Kernels == nil {
			t.Fatalf("%s has no kernel table", k.Name)
		}
		for _, c := range workloads.KernelClasses() {
			if k.Kernels.Row(c).Source == "" {
				t.Fatalf("%s: kernel class %s has no source", k.Name, c)
			}
		}
	}
}

// TestKernelCost: the table's roofline per class, tensor cores for GEMM
// and convolution only, nothing for ops that launch no kernel.
func TestKernelCost(t *testing.T) {
	k := devices.A100_40GB
	tests := []struct {
		name string
		op   workloads.Op
		want func(devices.KernelCost) float64
	}{
		{"fp16 matmul on tensor cores", workloads.Op{Type: "matmul", FLOPs: 1e12, BytesAccessed: 1 << 20, Precision: workloads.FP16},
			func(r devices.KernelCost) float64 { return 1e12/(312e12*r.TensorEff) + r.Overhead }},
		{"tf32 conv gradient", workloads.Op{Type: "conv2d-grad-weight", FLOPs: 1e12, BytesAccessed: 1 << 20, Precision: workloads.TF32},
			func(r devices.KernelCost) float64 { return 1e12/(156e12*r.TF32Eff) + r.Overhead }},
		{"fp32 matmul on the vector units", workloads.Op{Type: "matmul", FLOPs: 1e12, BytesAccessed: 1 << 20},
			func(r devices.KernelCost) float64 { return 1e12/(19.5e12*r.Eff) + r.Overhead }},
		{"fp16 relu is memory bound", workloads.Op{Type: "relu", FLOPs: 1 << 28, BytesAccessed: 1 << 30, Precision: workloads.FP16},
			func(r devices.KernelCost) float64 { return float64(1<<30)/(1555e9*r.MemEff) + r.Overhead }},
		{"input launches nothing", workloads.Op{Type: "input", BytesAccessed: 1 << 30},
			func(devices.KernelCost) float64 { return 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := devices.OpTime(&tc.op, &k)
			want := tc.want(k.Kernels.Row(workloads.KernelClassOf(&tc.op)))
			if err != nil || !scalar.EqualWithinAbsOrRel(got, want, 0, relTol) {
				t.Fatalf("time %g, want %g (%v)", got, want, err)
			}
		})
	}
	// a measured time still wins over the table
	op := workloads.Op{Type: "matmul", FLOPs: 1e12, Measured: map[string]float64{"*": 0.5}}
	if got, _ := devices.OpTime(&op, &k); got != 0.5 {
		t.Fatalf("measured op: %g, want 0.5", got)
	}
	// a layer block of GEMM intensity is a GEMM whatever its type
	blk := workloads.Op{Type: "ffn", FLOPs: 1e12, BytesAccessed: 1 << 20, Precision: workloads.FP16}
	if c := workloads.KernelClassOf(&blk); c != workloads.KernelGEMM {
		t.Fatalf("ffn block: class %s, want gemm", c)
	}
}
