package llm

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRandomRoutingImbalanceMonteCarlo: the closed form against a seeded
// simulation of uniform top-k picks (the busiest rank's load over the
// mean, averaged over trials), within a tenth of the excess.
func TestRandomRoutingImbalanceMonteCarlo(t *testing.T) {
	const experts, topK, ep, tokens, trials = 128, 4, 8, 512, 400
	want, err := RandomRoutingImbalance(experts, topK, ep, tokens)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	perm := make([]int, experts)
	var sum float64
	for range trials {
		load := make([]int, ep)
		for range tokens * ep {
			for i := range perm {
				perm[i] = i
			}
			for k := 0; k < topK; k++ { // partial Fisher-Yates: a uniform k-subset
				r := k + rng.IntN(experts-k)
				perm[k], perm[r] = perm[r], perm[k]
				load[perm[k]/(experts/ep)]++
			}
		}
		mx := 0
		for _, x := range load {
			mx = max(mx, x)
		}
		sum += float64(mx) / (float64(tokens*ep*topK) / ep)
	}
	got := sum / trials
	if math.Abs((got-1)-(want-1)) > 0.1*(want-1) {
		t.Errorf("busiest rank %.5f x mean by simulation, closed form %.5f", got, want)
	}
}

func TestRandomRoutingImbalanceShape(t *testing.T) {
	one, err := RandomRoutingImbalance(128, 4, 1, 4096)
	if err != nil || one != 1 {
		t.Errorf("ep=1: %g, %v", one, err)
	}
	small, _ := RandomRoutingImbalance(128, 4, 8, 1024)
	large, _ := RandomRoutingImbalance(128, 4, 8, 4096)
	if !(small > large && large > 1) {
		t.Errorf("imbalance does not fall with tokens: %g at 1024, %g at 4096", small, large)
	}
	if _, err := RandomRoutingImbalance(128, 4, 3, 4096); !errors.Is(err, ErrJob) {
		t.Errorf("ep not dividing the experts: %v", err)
	}
}

// TestBF16Grads: gradients kept in BF16 halve the gradient buffer and
// do not slow the data-parallel reduction.
func TestBF16Grads(t *testing.T) {
	j := job(t, "zoo:gpt-oss-120b", "tp=1,pp=4,ep=8,dp=16,zero=1,mbs=1,gbs=64", "dgx-h100")
	fp32, err := Simulate(j)
	if err != nil {
		t.Fatal(err)
	}
	j.BF16Grads = true
	bf16, err := Simulate(j)
	if err != nil {
		t.Fatal(err)
	}
	for r := range fp32.Memory {
		if 2*bf16.Memory[r].Grads != fp32.Memory[r].Grads {
			t.Errorf("rank %d: gradients %d B in BF16, %d B in FP32", r, bf16.Memory[r].Grads, fp32.Memory[r].Grads)
		}
	}
	if !(bf16.Exposed[CommDP] < fp32.Exposed[CommDP]) {
		t.Errorf("exposed DP %.4f s in BF16, not below %.4f s in FP32", bf16.Exposed[CommDP], fp32.Exposed[CommDP])
	}
}
