package fastt

import (
	"context"
	"testing"
	"time"

	"placesim/placers"
)

// BenchmarkStrategyTransformer8GPU times FastT's strategy computation for
// the Transformer of Table 1 (4096 tokens: 32 sentences of 128) on 8 V100
// with NVLink, the case of Table 4 that took FastT 5,775 s. Target: < 30 s
// per placement on one core of the development machine.
func BenchmarkStrategyTransformer8GPU(b *testing.B) {
	req := request(b, "zoo:transformer?training=true&batch=32", "8xV100-nvlink")
	for _, bc := range []struct {
		name string
		new  func(placers.Options) (placers.Placer, error)
	}{{"dpos", placers.Typed(NewDPOS)}, {"os-dpos", placers.Typed(NewOSDPOS)}} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := bc.new(nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := p.Place(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/strategy")
			b.ReportMetric(float64(len(req.Graph.Ops)), "model-ops")
		})
	}
}

// BenchmarkDPOS is one DPOS run on the data-parallel graph of the
// Transformer on 8 GPUs (about 45,000 ops), in scheduled ops per second.
func BenchmarkDPOS(b *testing.B) {
	req := request(b, "zoo:transformer?training=true&batch=32", "8xV100-nvlink")
	cm, err := NewCostModel(req.Estimates)
	if err != nil {
		b.Fatal(err)
	}
	w, err := replicate(req.Graph, 8)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := newProblem(w, cm)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := dpos(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(w.g.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
