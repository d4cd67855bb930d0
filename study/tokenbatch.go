package study

import (
	"fmt"
	"math"

	"placesim/engine"
	"placesim/workloads"
)

// SlowestBatchFraction is how much more compute the GPU with the most
// padded tokens has than one GPU's mean batch when n GPUs each take their
// own batch built by fairseq's token batching (TokenBatchMultiple), with
// sentences of seq tokens and a budget of tokens per GPU: the fraction
// E[max over n GPUs of T] / E[T] - 1 of a batch's padded tokens T.
//
// NVIDIA's fairseq (DeepLearningExamples PyTorch/Translation/Transformer,
// fairseq/data/csrc/make_batches.cpp, which train.py calls through
// EpochBatchIterator with required_batch_size_multiple=8) fills a batch
// from the length-sorted sentences while (size+1) x the longest length
// fits in --max-tokens M, then cuts it to a multiple of b = 8 sentences
// (mode_len = max(size/b*b, size%b)) and carries the rest into the next
// batch. A batch of sentences of L tokens thus keeps T = M - u L padded
// tokens, u = (floor(M/L) mod b) + frac(M/L) in [0, b): 2,400 of 2,560 at
// 30 tokens, all of them at 32. Where the lengths of the batches spread
// over more than b L^2 / M tokens around L (3 tokens at L = 32, M = 2,560:
// true of any natural-language corpus), u is uniform on [0, b); each
// GPU's batch is an independent draw (ShardedIterator deals the shuffled
// batches round robin), so the step waits for the GPU whose u is the
// least, E[min of n] = b/(n+1), against the mean b/2 that one GPU sees:
//
//	fraction = (M - b L/(n+1)) / (M - b L/2) - 1.
//
// L is the row's sentence length (its zoo spec's seq, tokens_per_sample):
// no source at hand gives the token-weighted length distribution of the
// WMT14 en-de pairs the published runs used, so the spread of L itself
// (longer batches keep fewer of their tokens) is not counted. A budget
// that holds fewer than b sentences is not cut (b = 1). n = 1 or
// multiple = 0 (no token batching) is 0.
func SlowestBatchFraction(multiple int, seq, tokens float64, n int) (float64, error) {
	if multiple < 0 || n < 1 || !(seq > 0) || !(tokens >= seq) || math.IsInf(tokens, 0) {
		return 0, fmt.Errorf("token batching: multiple %d (valid: >= 0), %d GPUs (valid: >= 1), sentence %g tokens (valid: > 0), budget %g tokens (valid: finite, >= the sentence)", multiple, n, seq, tokens)
	}
	if multiple == 0 || n == 1 {
		return 0, nil
	}
	b := float64(multiple)
	if math.Floor(tokens/seq) < b {
		b = 1
	}
	return (tokens-b*seq/float64(n+1))/(tokens-b*seq/2) - 1, nil
}

// stepCompute is one replica's forward and backward compute in r (the
// ops' own times, without what the all-reduce model charged them): what
// grows with a batch's padded tokens.
func stepCompute(r *engine.Result, g *workloads.Graph) float64 {
	var t float64
	if in := r.Instances; in != nil {
		for x := range in.Op {
			if in.Op[x] < 0 || in.Replica[x] != 0 || (in.Kind[x] != engine.NodeCompute && in.Kind[x] != engine.NodeRecompute) {
				continue
			}
			if role := g.Ops[in.Op[x]].Role; role != workloads.Forward && role != workloads.Backward {
				continue
			}
			base := in.End[x] - in.Start[x]
			if in.Base != nil {
				base = in.Base[x]
			}
			t += base
		}
		return t
	}
	for i := range g.Ops {
		if role := g.Ops[i].Role; role == workloads.Forward || role == workloads.Backward {
			t += r.OpEnd[i] - r.OpStart[i]
		}
	}
	return t
}
