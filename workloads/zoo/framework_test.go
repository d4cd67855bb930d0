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

// TestLossKernels: the cross-entropy's memory traffic per logit element
// follows the framework's kernels. PyTorch (log_softmax + nll_loss): FP32
// reads and writes the logits' size 8 bytes forward (log_softmax) and 16
// backward (nll_loss_backward's dense gradient, then log_softmax_backward
// reading it and the saved output, writing the logits' gradient); AMP
// adds the FP16->FP32 cast and its backward (6 each way) and keeps the
// log-probabilities in FP32: 36. TensorFlow's fused kernel: input and
// saved gradient forward, both again backward (8 FP32, 4 FP16).
func TestLossKernels(t *testing.T) {
	const spec = "zoo:transformer?layers=1&hidden=64&heads=2&ff=128&vocab=1000&seq=8&batch=4&training=true"
	const logits = 1000 * 8 * 4
	for _, tc := range []struct {
		fw, prec string
		perElem  float64
		ops      int
	}{
		{zoo.FrameworkPyTorch, "fp32", 24, 4},
		{zoo.FrameworkPyTorch, "amp-fp16", 36, 6},
		{zoo.FrameworkTensorFlow, "fp32", 16, 2},
		{zoo.FrameworkTensorFlow, "amp-fp16", 8, 2},
	} {
		t.Run(tc.fw+"/"+tc.prec, func(t *testing.T) {
			// impl=vaswani: the PyTorch profile's own cross-entropy (the
			// fairseq program's criterion is TestFairseqLoss's)
			g := build(t, spec+"&framework="+tc.fw+"&precision="+tc.prec+"&impl=vaswani")
			var bytes int64
			n := 0
			for _, op := range g.Ops {
				if strings.Contains(op.Name, "/loss/xent") {
					bytes += op.BytesAccessed
					n++
				}
			}
			// the per-row terms (losses, labels, their gradients) are
			// under 1 % of the logits' terms at 1000 classes
			const tol = 0.01
			if got := float64(bytes) / logits; n != tc.ops || got < tc.perElem*(1-tol) || got > tc.perElem*(1+tol) {
				t.Fatalf("%d loss ops, %.3f bytes per logit; want %d and %g", n, got, tc.ops, tc.perElem)
			}
		})
	}
}

// TestAMPUpdateTraffic: under mixed precision each parameter's update op
// also carries the FP16 weight copy, its backward and the loss scaler's
// unscale (5 FP32 words per element) besides Adam's 7 (read p, g, m, v;
// write p, m, v); FP32 training only Adam's.
func TestAMPUpdateTraffic(t *testing.T) {
	const spec = "zoo:mlp?training=true&optimizer=adam"
	for _, tc := range []struct {
		prec  string
		words float64
	}{{"fp32", 7}, {"tf32", 7}, {"amp-fp16", 12}, {"amp-bf16", 12}} {
		t.Run(tc.prec, func(t *testing.T) {
			g := build(t, spec+"&precision="+tc.prec)
			n := 0
			for _, op := range g.Ops {
				if op.Role != workloads.Update {
					continue
				}
				n++
				if want := int64(tc.words * float64(op.GradBytes)); op.BytesAccessed != want {
					t.Fatalf("%s: %d bytes for %d bytes of gradients, want %d", op.Name, op.BytesAccessed, op.GradBytes, want)
				}
			}
			if n == 0 {
				t.Fatal("no update ops")
			}
		})
	}
}
