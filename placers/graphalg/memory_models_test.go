package graphalg_test

import (
	"context"
	"errors"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/baechi"
	"placesim/placers/celeritas"
	"placesim/workloads/zoo"
)

// TestMemoryConstantsUntunedModels holds the memory model's constants
// (LongWait, Reserve) on models they were not set on (they were set on the
// Celeritas Table 3 models: Inception-V3, GNMT, Transformer, Tensor
// Holography): ResNet-50, GPT, VGG-19 and BERT training steps on 4 x RTX
// 2080 Ti 11 GB, each too large for one GPU. The memory-aware placers
// built on OpMemories and Book (m-TOPO, m-ETF, Celeritas) must return a
// plan that runs without OOM, or ErrDoesNotFit; and on each model at least
// one of them must return a plan (a model every placer refuses would test
// nothing: ResNet-50 at batch 512, charged 52.7 GiB on 44 GiB, and GPT at
// batch 16, refused for want of room beside the reserve, were such
// models).
func TestMemoryConstantsUntunedModels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds zoo training graphs")
	}
	c, err := devices.NewPreset("4xRTX2080Ti-pcie")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{
		"zoo:resnet50?batch=256&training=true",
		"zoo:gpt?batch=8&training=true",
		"zoo:vgg19?batch=256&training=true",
		"zoo:bert?layers=12&batch=128&training=true",
	} {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		one, err := engine.Simulate(g, c, placers.NewPlan(g), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if one.OOM == nil {
			t.Fatalf("%s fits one GPU: not a memory test", spec)
		}
		placed := 0
		for _, pc := range []struct {
			name string
			f    placers.Factory
		}{{"m-topo", placers.Typed(baechi.NewMTopo)}, {"m-etf", placers.Typed(baechi.NewMETF)}, {"celeritas", placers.Typed(celeritas.NewCeleritas)}} {
			t.Run(spec+"/"+pc.name, func(t *testing.T) {
				p, err := pc.f(nil)
				if err != nil {
					t.Fatal(err)
				}
				plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
				if errors.Is(err, placers.ErrDoesNotFit) {
					t.Logf("does not fit: %v", err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.OOM != nil {
					t.Fatalf("plan runs out of memory: %v", res.OOM.Err())
				}
				var peak int64
				for _, d := range res.Devices {
					peak = max(peak, d.PeakMemory)
				}
				t.Logf("peak %.2f GiB of %.2f GiB", float64(peak)/(1<<30), float64(c.Devices[0].Memory)/(1<<30))
				placed++
			})
		}
		if placed == 0 {
			t.Errorf("%s: no memory-aware placer returned a plan: the model tests none of the constants", spec)
		}
	}
}
