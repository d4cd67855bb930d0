package llm

import (
	"testing"
)

// TestMixedMatchesFull holds ModeAuto's mixed play of an asymmetric job
// (the groups holding a straggler or a slow link and their pipeline
// partners individually, the rest by representatives) to the full
// simulation of every GPU, within 0.5 % in iteration time and every
// GPU's peak memory, across layouts and what-ifs; each case must play
// fewer GPUs individually than it has.
func TestMixedMatchesFull(t *testing.T) {
	const llama = "zoo:llama3.1-8b?layers=8&seq=4096"
	const moe = "zoo:mixtral-8x7b?layers=4&seq=4096"
	node := func(n int) map[int]float64 {
		m := map[int]float64{}
		for g := 8 * n; g < 8*n+8; g++ {
			m[g] = 3
		}
		return m
	}
	cases := []struct {
		name, model, layout, system string
		slow                        map[int]float64
		slowLinkGPU                 int // -1: none
	}{
		{"slow-node-tp8-pp2-dp4", llama, "tp=8,pp=2,dp=4,sp,zero=1,mbs=1,gbs=32", "dgx-h100", node(1), -1},
		{"slow-gpu-tp4-pp2-dp4", llama, "tp=4,pp=2,dp=4,sp,mbs=1,gbs=32", "dgx-h100", map[int]float64{5: 2}, -1},
		{"slow-gpu-tp2-pp4-vp2-dp4", llama, "tp=2,pp=4,vp=2,dp=4,sp,zero=1,mbs=1,gbs=32", "dgx-h100", map[int]float64{9: 1.5}, -1},
		{"slow-gpu-pp2-dp16-zero3", llama, "pp=2,dp=16,zero=3,mbs=1,gbs=32", "dgx-h100", map[int]float64{20: 2}, -1},
		{"slow-gpu-ep4-tp2-dp16", moe, "tp=2,ep=4,dp=16,sp,zero=1,mbs=1,gbs=32", "dgx-h100", map[int]float64{3: 2}, -1},
		{"slow-link-tp4-pp2-dp8", llama, "tp=4,pp=2,dp=8,sp,mbs=1,gbs=64", "dgx-h100", nil, 3},
		{"straddling-rack-gb200", llama, "tp=2,cp=2,pp=4,dp=8,sp,zero=1,mbs=1,gbs=32", "gb200-nvl72", nil, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(mode Mode) *Result {
				j := modeJob(t, c.model, c.layout, c.system, mode)
				j.Slowdown = c.slow
				if c.slowLinkGPU >= 0 {
					cl := j.Cluster.Clone()
					top := cl.Topology
					for i := range top.Links {
						lk := &top.Links[i]
						if lk.From == cl.Devices[c.slowLinkGPU].Endpoint || lk.To == cl.Devices[c.slowLinkGPU].Endpoint {
							lk.Bandwidth /= 4
						}
					}
					if err := cl.Rebuild(); err != nil {
						t.Fatal(err)
					}
					j.Cluster = cl
				}
				r, err := Simulate(j)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			auto, full := run(ModeAuto), run(ModeFull)
			if auto.Mode != "mixed" || len(auto.Played) == 0 || len(auto.Played) >= auto.GPUs || len(auto.Classes) == 0 {
				t.Fatalf("auto: mode %q, %d of %d GPUs played individually, %d classes", auto.Mode, len(auto.Played), auto.GPUs, len(auto.Classes))
			}
			in := map[int]bool{}
			for _, g := range auto.Played {
				in[g] = true
			}
			for _, g := range auto.Individual {
				if !in[g] {
					t.Errorf("odd GPU %d not played individually (%s)", g, ranges(auto.Played))
				}
			}
			if d := relDiff(auto.IterationTime, full.IterationTime); d > symTol {
				t.Errorf("iteration mixed %.6f s, full %.6f s: %.3f %% apart (tolerance %.1f %%)", auto.IterationTime, full.IterationTime, 100*d, 100*symTol)
			}
			for g := range full.GPUPeak {
				if d := relDiff(float64(auto.GPUPeak[g]), float64(full.GPUPeak[g])); d > symTol {
					t.Errorf("GPU %d peak mixed %d, full %d", g, auto.GPUPeak[g], full.GPUPeak[g])
				}
			}
			t.Logf("%s: mixed %.4f s (%d of %d GPUs individually), full %.4f s", c.name, auto.IterationTime, len(auto.Played), auto.GPUs, full.IterationTime)
		})
	}
}
