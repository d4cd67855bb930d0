package llm

import (
	"math"
	"strings"
	"testing"
)

// TestFlashHeadDimFactor: d = 128 is the calibrated reference, d = 64 the
// cuDNN benchmark's ratio, in between linear, and never above 1.
func TestFlashHeadDimFactor(t *testing.T) {
	const tol = 1e-12
	if f := flashHeadDimFactor(128, false); f != 1 {
		t.Errorf("d=128: %g", f)
	}
	if f := flashHeadDimFactor(64, true); math.Abs(f-289.0/474) > tol {
		t.Errorf("d=64 backward: %g", f)
	}
	mid := flashHeadDimFactor(96, false)
	if want := (336.0/591 + 1) / 2; math.Abs(mid-want) > tol {
		t.Errorf("d=96: %g, want %g", mid, want)
	}
	if f := flashHeadDimFactor(32, false); f != flashHeadDimFactor(64, false) {
		t.Errorf("d=32: %g", f)
	}
}

// TestMoEEagerOpsBoundByHost: GPT-OSS's expert bias runs as 2 eager
// kernels per local expert and the concatenation (4 per expert in the
// backward), so on 16 local experts it takes at least 33 (64) host
// issues; the sort by expert appears only with several local experts
// and expert parallelism.
func TestMoEEagerOpsBoundByHost(t *testing.T) {
	j := job(t, "zoo:gpt-oss-120b", "tp=1,pp=1,ep=8,dp=8,mbs=1,gbs=8", "dgx-h100")
	ops, err := OpCosts(j)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]OpCost{}
	for _, op := range ops {
		seen[op.Op] = op
	}
	b, ok := seen["expert-bias"]
	if !ok {
		t.Fatal("no expert-bias op")
	}
	if b.Forward < 33*hostIssue || b.Backward < 64*hostIssue {
		t.Errorf("expert-bias %g / %g s, below the host issue of 33 / 64 kernels", b.Forward, b.Backward)
	}
	if _, ok := seen["sort-chunks"]; !ok {
		t.Error("no sort-chunks with 16 local experts on EP 8")
	}
	one := job(t, "zoo:gpt-oss-120b", "tp=1,pp=1,ep=1,dp=8,mbs=1,gbs=8", "dgx-h100")
	ops, err = OpCosts(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Op == "sort-chunks" || op.Op == "unsort-chunks" {
			t.Errorf("%s without expert parallelism", op.Op)
		}
	}
}

// TestRecomputeModules: Megatron's layernorm and moe_act recompute
// modules add their ops' forward to the backward (the iteration gets
// longer by at least that on the slowest rank's stream, less than the
// whole layer's forward), and an unknown module is an error naming the
// valid ones.
func TestRecomputeModules(t *testing.T) {
	const layout = "tp=1,pp=1,ep=8,dp=8,mbs=1,gbs=16"
	plain := job(t, "zoo:gpt-oss-120b?layers=4", layout, "dgx-h100")
	rec := job(t, "zoo:gpt-oss-120b?layers=4", layout, "dgx-h100")
	rec.RecomputeModules = []string{"layernorm", "moe_act"}
	a, err := Simulate(plain)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Simulate(rec)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := OpCosts(rec)
	if err != nil {
		t.Fatal(err)
	}
	var extra, layer float64
	for _, op := range ops {
		if op.Part != "attention" && op.Part != "mlp" {
			continue
		}
		layer += op.Forward
		if op.Recomputed {
			extra += op.Forward
		}
	}
	mbs := float64(rec.Layout.MicroBatches())
	got := b.IterationTime - a.IterationTime
	const tol = 1e-9
	if got < 4*mbs*extra-tol || got > 4*mbs*layer {
		t.Errorf("recompute modules add %.4f s; their forwards %.4f s, the layers' %.4f s", got, 4*mbs*extra, 4*mbs*layer)
	}
	bad := job(t, "zoo:gpt-oss-120b?layers=4", layout, "dgx-h100")
	bad.RecomputeModules = []string{"attention"}
	if _, err := Simulate(bad); err == nil || !strings.Contains(err.Error(), "layernorm, moe_act") {
		t.Errorf("unknown module: %v", err)
	}
}
