package workloads_test

import (
	"testing"

	"placesim/workloads"
)

func TestPrecision(t *testing.T) {
	tests := []struct {
		in                string
		compute, elem, up workloads.DType
		act, par          int64
	}{
		{"", workloads.FP32, workloads.FP32, workloads.FP32, 4, 4},
		{"fp32", workloads.FP32, workloads.FP32, workloads.FP32, 4, 4},
		{"TF32", workloads.TF32, workloads.FP32, workloads.FP32, 4, 4},
		{"fp16", workloads.FP16, workloads.FP16, workloads.FP16, 2, 2},
		{"bf16", workloads.BF16, workloads.BF16, workloads.BF16, 2, 2},
		{"amp-fp16", workloads.FP16, workloads.FP16, workloads.FP32, 2, 4},
		{"amp-bf16", workloads.BF16, workloads.BF16, workloads.FP32, 2, 4},
		{"fp8", workloads.FP8, workloads.BF16, workloads.FP32, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, err := workloads.ParsePrecision(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Compute() != tc.compute || p.Elementwise() != tc.elem || p.Update() != tc.up {
				t.Fatalf("%s: compute %s elementwise %s update %s", p, p.Compute(), p.Elementwise(), p.Update())
			}
			if p.ActivationBytes() != tc.act || p.ParamBytes() != tc.par {
				t.Fatalf("%s: activation %d bytes, parameter %d", p, p.ActivationBytes(), p.ParamBytes())
			}
		})
	}
	if _, err := workloads.ParsePrecision("fp6"); err == nil {
		t.Fatal("fp6 accepted")
	}
}
