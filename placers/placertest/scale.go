package placertest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads/zoo"
)

// ScaleLayers are the Transformer depths of BenchmarkScale: about 12k,
// 24k, 48k and 96k ops at op granularity with the tf1-graph framework.
var ScaleLayers = []int{12, 24, 48, 96}

// BenchmarkScale places the op-granularity Transformer training graph
// (framework tf1-graph) with each of ScaleLayers on 8 x H100 with the
// placer f makes, and reports the seconds and the bytes allocated per
// placement and the graph's ops (issue 19: near-linear time, linear
// memory). A placement that fails with placers.ErrDoesNotFit still counts:
// the work to find out is the same.
func BenchmarkScale(b *testing.B, f placers.Factory) {
	for _, layers := range ScaleLayers {
		b.Run(fmt.Sprintf("layers=%d", layers), func(b *testing.B) {
			g, err := zoo.Build(fmt.Sprintf("zoo:transformer?granularity=op&training=true&layers=%d&framework=tf1-graph", layers))
			if err != nil {
				b.Fatal(err)
			}
			c, err := devices.NewPreset("8xH100-nvswitch")
			if err != nil {
				b.Fatal(err)
			}
			est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
			if err != nil {
				b.Fatal(err)
			}
			req := &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1}
			p, err := f(nil)
			if err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := p.Place(context.Background(), req); err != nil && !errors.Is(err, placers.ErrDoesNotFit) {
					b.Fatal(err)
				}
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			runtime.ReadMemStats(&after)
			b.ReportMetric(sec, "s/place")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "alloc-B/place")
			b.ReportMetric(float64(len(g.Ops)), "ops")
		})
	}
}
