package fastt

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkScaleDPOS places the op-granularity Transformer training graph
// with 12, 24, 48 and 96 layers (about 12k, 24k, 48k and 96k ops) on
// 8 x H100 with fastt-dpos and reports the seconds and the bytes allocated
// per placement (issue 19: near-linear time, linear memory).
func BenchmarkScaleDPOS(b *testing.B) {
	for _, layers := range []int{12, 24, 48, 96} {
		b.Run(fmt.Sprintf("layers=%d", layers), func(b *testing.B) {
			req := request(b, fmt.Sprintf("zoo:transformer?granularity=op&training=true&layers=%d&framework=tf1-graph", layers), "8xH100-nvswitch")
			p, err := NewDPOS(nil)
			if err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := p.Place(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			sec := time.Since(start).Seconds() / float64(b.N)
			runtime.ReadMemStats(&after)
			b.ReportMetric(sec, "s/place")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "alloc-B/place")
			b.ReportMetric(float64(len(req.Graph.Ops)), "ops")
		})
	}
}
