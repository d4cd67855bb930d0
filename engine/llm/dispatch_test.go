package llm

import (
	"testing"

	"placesim/workloads/zoo"
)

// TestUnfusedYaRNRotary: GPT-OSS's YaRN-scaled rotary runs as eager
// kernels (24 forward, 14 backward), costing more than the fused kernel a
// plain-RoPE model of the same shape runs, and --explain names the
// difference; Llama's rotary stays fused.
func TestUnfusedYaRNRotary(t *testing.T) {
	j := job(t, "zoo:gpt-oss-120b", "tp=1,pp=1,ep=8,dp=8,mbs=1,gbs=8", "dgx-h100")
	ops, err := OpCosts(j)
	if err != nil {
		t.Fatal(err)
	}
	var rot *OpCost
	for i := range ops {
		if ops[i].Op == "rotary" {
			rot = &ops[i]
		}
	}
	if rot == nil || rot.Mechanism != "unfused YaRN rotary" || !(rot.Extra > 0) {
		t.Fatalf("gpt-oss rotary: %+v", rot)
	}
	if rot.Forward < 24*hostIssue {
		t.Errorf("unfused rotary forward %.1f us below its 24 host issues", rot.Forward*1e6)
	}
	plain := j.Model
	plain.YaRNFactor = 0
	for _, op := range plain.Ops(zoo.PartAttention, zoo.Shard{TP: 1, CP: 1, EP: 8, MicroBatch: 1, ActBytes: 2}) {
		if op.Name == "rotary" && (op.Launches != 0 || op.BwdLaunches != 0) {
			t.Errorf("plain RoPE rotary is eager: %+v", op)
		}
	}
	l := job(t, "zoo:llama3.1-8b", "tp=1,pp=1,dp=8,mbs=1,gbs=8", "dgx-h100")
	lops, err := OpCosts(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range lops {
		if op.Op == "rotary" && op.Mechanism != "" {
			t.Errorf("llama rotary has mechanism %q", op.Mechanism)
		}
	}
}

// TestDispatchMetadata: with expert parallelism the dispatcher's count
// all-gather, host sync and probabilities all-to-all add to the forward
// more than two host issues and to the backward the probabilities'
// all-to-all; the simulated EP exposure grows with EP.
func TestDispatchMetadata(t *testing.T) {
	j := job(t, "zoo:gpt-oss-120b", "tp=1,pp=1,ep=8,dp=8,mbs=1,gbs=8", "dgx-h100")
	c := newCoster(j, 0, newCollMemo(j.Cluster))
	meta, err := c.dispatchMetadata()
	if err != nil {
		t.Fatal(err)
	}
	if !(meta.fwd > 2*hostIssue) || !(meta.bwd > 0) || !(meta.fwd > meta.bwd) {
		t.Errorf("dispatch metadata fwd %.1f us, bwd %.1f us", meta.fwd*1e6, meta.bwd*1e6)
	}
	withMeta, err := c.part(zoo.PartMLP)
	if err != nil {
		t.Fatal(err)
	}
	if got := withMeta.fwd.exposed[CommEP]; !(got > meta.fwd) {
		t.Errorf("MLP forward EP exposure %.1f us does not include the metadata %.1f us", got*1e6, meta.fwd*1e6)
	}
}
