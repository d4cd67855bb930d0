package study

import (
	"context"
	"testing"

	"placesim/engine/llm"
	"placesim/workloads/zoo"
)

// BenchmarkSearch70B is issue 27's layout search: Llama 3.1 70B on 64
// H100 (dgx-h100:nodes=8), global batch 128, sequence 8192, the default
// space, on the benchmark's GOMAXPROCS. It reports the seconds per
// search and the candidates simulated per second (the goal: a search in
// at most 60 s on this machine).
func BenchmarkSearch70B(b *testing.B) {
	m, err := zoo.ParseLLM("zoo:llama3.1-70b?seq=8192")
	if err != nil {
		b.Fatal(err)
	}
	c, err := llm.System("dgx-h100:nodes=8", 64)
	if err != nil {
		b.Fatal(err)
	}
	r := &SearchRequest{Workload: "zoo:llama3.1-70b?seq=8192", Model: m, Cluster: c, GPUs: 64, GlobalBatch: 128, Space: DefaultSearchSpace()}
	b.ResetTimer()
	var res *SearchResult
	for i := 0; i < b.N; i++ {
		if res, err = SearchLayouts(context.Background(), r, SearchOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(s, "s/search")
	b.ReportMetric(float64(res.Counts.Simulated)/s, "candidates/s")
	b.ReportMetric(float64(res.Counts.Pruned), "pruned")
}
