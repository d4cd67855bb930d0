package llm

import (
	"fmt"
	"math"

	"placesim/engine"
)

// RandomRoutingImbalance is the expected load of the busiest of ep
// expert-parallel ranks, relative to the mean, when each of the tokens
// tokens of every rank picks topK of experts experts at random: what
// Megatron-core's moe_router_force_load_balancing does for benchmarks
// (RandomSTE, NVIDIA/Megatron-LM@87eb3c2b
// megatron/core/transformer/moe/moe_utils.py: the router's logits
// replaced by standard normal ones, so each token's top-k is a uniform
// k-subset of the experts), which NVIDIA's MoE performance runs set
// ("we force-balance the token distribution among experts",
// Megatron-Bridge docs/performance-summary-archive.md;
// scripts/performance/configs/gpt_oss/gpt_oss_llm_pretrain.py).
// Balanced on average, the counts still vary: a rank holding L =
// experts/ep experts receives X ~ Hypergeometric(experts, L, topK) of a
// token's picks (mean topK·L/experts, variance topK·(L/E)·(1-L/E)·
// (E-topK)/(E-1)), summed over the tokens·ep tokens of the group; the
// all-to-all and the experts of a layer wait for the busiest rank, whose
// excess is E[max of ep standard normals] standard deviations
// (engine.ExpectedMaxNormal). GPT-OSS 120B at ep 8 (16 experts a rank),
// 4,096 tokens: 1.0103.
func RandomRoutingImbalance(experts, topK, ep, tokens int) (float64, error) {
	if experts < 1 || topK < 1 || topK > experts || ep < 1 || experts%ep != 0 || tokens < 1 {
		return 0, fmt.Errorf("%w: random routing of %d tokens to top-%d of %d experts over %d ranks (valid: 1 <= top-k <= experts, ep divides experts, tokens >= 1)", ErrJob, tokens, topK, experts, ep)
	}
	if ep == 1 {
		return 1, nil
	}
	E, K, L := float64(experts), float64(topK), float64(experts/ep)
	p := L / E
	mean := K * p
	variance := K * p * (1 - p)
	if experts > 1 {
		variance *= (E - K) / (E - 1)
	}
	n := float64(tokens) * float64(ep)
	return 1 + engine.ExpectedMaxNormal(ep)*math.Sqrt(variance/n)/mean, nil
}
