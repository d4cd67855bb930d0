package llm

import "testing"

// Bytes of model state per parameter by precision and sharding
// (Megatron-LM docs, "Distributed Optimizer": bf16 parameters with fp32
// gradients 18, or 6 + 12/d distributed; fp16 20, or 4 + 16/d; ZeRO-2
// shards the gradients too, ZeRO-3 everything).
func TestStateBytesPerParameter(t *testing.T) {
	const d = 8
	for _, c := range []struct {
		layout string
		want   float64 // bytes per parameter
	}{
		{"dp=8,gbs=8", 18},
		{"dp=8,gbs=8,zero=1", 6 + 12.0/d},
		{"dp=8,gbs=8,zero=2", 2 + 16.0/d},
		{"dp=8,gbs=8,zero=3", 18.0 / d},
		{"dp=8,gbs=8,precision=fp16", 20},
		{"dp=8,gbs=8,zero=1,precision=fp16", 4 + 16.0/d},
	} {
		j := job(t, "zoo:llama3.1-8b?layers=2", c.layout, "dgx-h100")
		mem, err := MemoryOf(j)
		if err != nil {
			t.Fatal(err)
		}
		got := float64(mem[0].State()) / float64(mem[0].Params)
		if got < c.want-1e-6 || got > c.want+1e-6*c.want+3.0/float64(mem[0].Params) {
			t.Errorf("%s: %.6f bytes per parameter, want %.6f", c.layout, got, c.want)
		}
	}
}

// The first stage of 1F1B holds pp micro-batches; the interleaved
// schedule's first stage holds (pp-1)*2 + (vp-1)*pp + 1 chunks of 1/vp
// of them, p·(1 + (p-1)/(p·v)) micro-batches' worth (Korthikanti et al.
// 2022 section 4.2.3).
func TestActivationsInFlight(t *testing.T) {
	for _, c := range []struct {
		layout string
		chunks int
	}{
		{"pp=4,gbs=16", 4},
		{"pp=4,vp=2,gbs=16", 11},
		{"pp=4,vp=4,gbs=16", 19},
	} {
		j := job(t, "zoo:llama3.1-8b?layers=16&vocab=8", c.layout, "dgx-h100")
		mem, err := MemoryOf(j)
		if err != nil {
			t.Fatal(err)
		}
		if mem[0].InFlight != c.chunks {
			t.Errorf("%s: %d chunks in flight on the first stage, want %d", c.layout, mem[0].InFlight, c.chunks)
		}
	}
}
