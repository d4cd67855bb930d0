package study_test

import (
	"context"
	"testing"

	"placesim/placers/builtin"
	"placesim/study"
)

// TestBERTLargeTF32Batch176Fits: BERT-large pre-training in TensorFlow,
// TF32, 176 sequences of 128 tokens per 80 GB A100 is a published setting
// that trained (issue 29), with XLA as NVIDIA's
// scripts/run_pretraining_lamb.sh runs it (use_xla=true by default);
// placesim must not call it out of memory.
func TestBERTLargeTF32Batch176Fits(t *testing.T) {
	t.Parallel()
	const spec = "zoo:bert?size=large&seq=128&training=true&batch=176&precision=tf32&framework=xla"
	g, err := study.LoadWorkload(spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := study.ResolveCluster("../validation/clusters/1xA100-80GB.yaml", g)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := builtin.NewRegistry()
	o, err := study.Run(context.Background(), reg, g, c, study.Spec{Placer: "single", Reproducible: true})
	if err != nil || o.Error != "" {
		t.Fatalf("%v %s", err, o.Error)
	}
	if o.OOM != nil {
		t.Fatalf("out of memory: %v", o.OOM.Err())
	}
	if peak, capacity := o.PeakMemory[0], o.Capacity[0]; !(peak > 0 && peak < capacity) {
		t.Errorf("peak %d bytes of %d", peak, capacity)
	}
	t.Logf("peak %.2f GiB of %.2f GiB", float64(o.PeakMemory[0])/(1<<30), float64(o.Capacity[0])/(1<<30))
}
