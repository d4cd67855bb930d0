package llm

import (
	"testing"

	"placesim/parallel"
	"placesim/workloads/zoo"
)

// benchJob is Llama 3.1 405B with the Llama 3 paper's layout (TP8 PP16,
// 8,192-token sequences, 16 micro-batches per pipeline) over dp replicas.
func benchJob(b *testing.B, dp int) *Job {
	m, err := zoo.LLMByName("llama3.1-405b")
	if err != nil {
		b.Fatal(err)
	}
	l := parallel.Default()
	l.TP, l.PP, l.DP, l.SequenceParallel, l.Sharding = 8, 16, dp, true, parallel.ShardZeRO1
	l.GlobalBatch = 16 * dp
	c, err := System("dgx-h100", l.GPUs())
	if err != nil {
		b.Fatal(err)
	}
	return &Job{Model: m, Layout: l, Cluster: c}
}

func benchSimulate(b *testing.B, dp int) {
	j := benchJob(b, dp)
	// the cluster computes a device's routes on first use: once, before
	// timing
	if _, err := Simulate(j); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Simulate(j); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
}

// BenchmarkSimulate405B1024 simulates one iteration on 1,024 H100.
func BenchmarkSimulate405B1024(b *testing.B) { benchSimulate(b, 8) }

// BenchmarkSimulate405B16k simulates one iteration on 16,384 H100 (the
// Llama 3 paper's TP8 PP16 DP128, 2,048 sequences per iteration).
func BenchmarkSimulate405B16k(b *testing.B) { benchSimulate(b, 128) }

// BenchmarkSimulate405B16kSlowNode is the 16,384-GPU job with one node
// (GPUs 8-15) computing 2x slower, in ModeAuto: the mixed mode plays
// that node's tensor-parallel group and its 15 pipeline partners
// individually and the rest by representatives.
func BenchmarkSimulate405B16kSlowNode(b *testing.B) {
	j := benchJob(b, 128)
	j.Slowdown = map[int]float64{}
	for g := 8; g < 16; g++ {
		j.Slowdown[g] = 2
	}
	r, err := Simulate(j)
	if err != nil {
		b.Fatal(err)
	}
	if r.Mode != "mixed" || len(r.Played) != 8*16 {
		b.Fatalf("mode %q, %d GPUs played individually", r.Mode, len(r.Played))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Simulate(j); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
}
