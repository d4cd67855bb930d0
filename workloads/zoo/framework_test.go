package zoo_test

import (
	"strings"
	"testing"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// TestFrameworkProfiles: the fused profiles launch fewer kernels than
// TensorFlow 1.x's op-by-op graph, for the same FLOPs (within the few
// percent the bias and fused pointwise ops move) and parameters, and the
// profile simulated is in the name and the stats.
func TestFrameworkProfiles(t *testing.T) {
	const base = "zoo:bert?layers=2&seq=16&batch=4&training=true"
	kernels := map[string]int{}
	var params int64
	var flops float64
	for _, fw := range zoo.Frameworks() {
		t.Run(fw, func(t *testing.T) {
			g := build(t, base+"&framework="+fw)
			s := workloads.ComputeStats(g)
			if s.Framework != fw || !strings.Contains(g.Name, "framework="+fw) {
				t.Fatalf("framework %q, name %q", s.Framework, g.Name)
			}
			kernels[fw] = s.Kernels
			if params == 0 {
				params, flops = s.TrainableBytes, s.FLOPs
			}
			if s.TrainableBytes != params || s.FLOPs < 0.95*flops || s.FLOPs > 1.05*flops {
				t.Fatalf("trainable %d bytes, %g FLOPs; want %d and about %g", s.TrainableBytes, s.FLOPs, params, flops)
			}
		})
	}
	tf1 := kernels[zoo.FrameworkTF1Graph]
	for _, fw := range []string{zoo.FrameworkPyTorch, zoo.FrameworkXLA, zoo.FrameworkMXNet, zoo.FrameworkTensorFlow} {
		if !(kernels[fw] < tf1) {
			t.Errorf("%s launches %d kernels, tf1-graph %d: want fewer", fw, kernels[fw], tf1)
		}
	}
	if !(kernels[zoo.FrameworkXLA] < kernels[zoo.FrameworkPyTorch]) {
		t.Errorf("xla %d kernels, pytorch %d: want fewer", kernels[zoo.FrameworkXLA], kernels[zoo.FrameworkPyTorch])
	}
	// the default is PyTorch, named as such
	if g := build(t, base); !strings.HasSuffix(g.Name, "&framework=pytorch") || g.Framework != zoo.FrameworkPyTorch {
		t.Fatalf("default profile: name %q, framework %q", g.Name, g.Framework)
	}
	if _, err := zoo.Build(base + "&framework=caffe"); err == nil || !strings.Contains(err.Error(), "tf1-graph") {
		t.Fatalf("unknown framework: %v", err)
	}
}

// TestPrecisionSizes: mixed precision halves activations but keeps FP32
// parameters, gradients and optimizer state; pure FP16 halves them too;
// matrix products run in the compute type, updates in FP32 under AMP.
func TestPrecisionSizes(t *testing.T) {
	const base = "zoo:resnet50?image=64&batch=4&training=true"
	fp32 := workloads.ComputeStats(build(t, base))
	for _, tc := range []struct {
		prec            string
		act, par        float64 // ratio to FP32
		matmul, updates workloads.DType
	}{
		{"tf32", 1, 1, workloads.TF32, workloads.FP32},
		{"amp-fp16", 0.5, 1, workloads.FP16, workloads.FP32},
		{"amp-bf16", 0.5, 1, workloads.BF16, workloads.FP32},
		{"fp16", 0.5, 0.5, workloads.FP16, workloads.FP16},
	} {
		t.Run(tc.prec, func(t *testing.T) {
			g := build(t, base+"&precision="+tc.prec)
			s := workloads.ComputeStats(g)
			// the loss and softmax stay FP32 under autocast: a few bytes more
			if r := float64(s.ActivationBytes) / float64(fp32.ActivationBytes); r < tc.act || r > tc.act*1.01 {
				t.Fatalf("activations %.3fx FP32's, want %g", r, tc.act)
			}
			if r := float64(s.ResidentBytes) / float64(fp32.ResidentBytes); r != tc.par {
				t.Fatalf("resident %.3fx FP32's, want %g", r, tc.par)
			}
			var grads, trainable int64
			for i := range g.Ops {
				op := &g.Ops[i]
				switch {
				case op.Type == "conv2d" && op.Precision != tc.matmul:
					t.Fatalf("conv %q in %s, want %s", op.Name, op.Precision, tc.matmul)
				case op.Role == workloads.Update && op.Precision != tc.updates:
					t.Fatalf("update %q in %s, want %s", op.Name, op.Precision, tc.updates)
				}
				grads += op.GradBytes
			}
			trainable = s.TrainableBytes
			if grads != trainable {
				t.Fatalf("all-reduce carries %d bytes, trainable parameters are %d", grads, trainable)
			}
		})
	}
}
