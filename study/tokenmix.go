package study

import (
	"context"
	"fmt"
	"math"
	"sort"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// TokenMixStep is a token-batched row's expected step (simulateTokenMix):
// what stepping through fairseq's batches of a length distribution costs.
type TokenMixStep struct {
	// Tokens is the tokens of a step over all GPUs (each GPU's batch's
	// sentences times their length, expected over the batches).
	Tokens float64 `json:"tokens"`
	// Mean is the expected step time with every GPU's batch at the same
	// length (the parts' step times weighted by their batches' shares);
	// Compute the forward and backward compute of one GPU's batch in it.
	Mean    float64 `json:"mean"`
	Compute float64 `json:"compute"`
	// Slowest is how much longer a step waits for the GPU whose batch
	// costs the most, the n GPUs' batches drawn independently (with the
	// GPUs' speed spread the simulation gives them): E[max over GPUs of
	// compute x speed] less the mean's compute x the slowest GPU's speed.
	// 0 on one GPU.
	Slowest float64 `json:"slowest"`
}

// Step is the expected step time.
func (s TokenMixStep) Step() float64 { return s.Mean + s.Slowest }

// ExpectedMaxMixture is E[max of n independent draws of C (1 + sigma Z)],
// C drawn from values with probabilities weights (normalised here) and Z
// standard normal: the compute of the slowest of n GPUs that each take
// their own batch, of cost values[i] with probability weights[i], and run
// at a speed spread of relative deviation sigma. With sigma = 0 it is the
// discrete E[max] = sum_k v_k (G(v_k)^n - G(v_{k-1})^n) over the sorted
// values, G their cumulative probability; otherwise the integral of
// 1 - F(x)^n over x >= 0, F(x) = sum_i w_i Phi((x / v_i - 1) / sigma).
func ExpectedMaxMixture(values, weights []float64, n int, sigma float64) (float64, error) {
	if len(values) == 0 || len(values) != len(weights) || n < 1 || !(sigma >= 0) || math.IsInf(sigma, 0) {
		return 0, fmt.Errorf("expected maximum: %d values, %d weights (valid: as many, at least one), %d draws (valid: >= 1), spread %g (valid: finite, >= 0)", len(values), len(weights), n, sigma)
	}
	type vw struct{ v, w float64 }
	var vs []vw
	var total float64
	for i, v := range values {
		w := weights[i]
		if !(v > 0) || math.IsInf(v, 0) || !(w >= 0) || math.IsInf(w, 0) {
			return 0, fmt.Errorf("expected maximum: value %g weight %g (valid: value finite > 0, weight finite >= 0)", v, w)
		}
		if w > 0 {
			vs = append(vs, vw{v, w})
			total += w
		}
	}
	if !(total > 0) {
		return 0, fmt.Errorf("expected maximum: no positive weight")
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].v < vs[j].v })
	if sigma == 0 {
		var e, g, prev float64
		for _, x := range vs {
			g += x.w / total
			at := math.Pow(min(g, 1), float64(n))
			e += x.v * (at - prev)
			prev = at
		}
		return e, nil
	}
	// F is 0 below lo and 1 above hi to 1e-15 (8 deviations)
	lo := math.Max(0, vs[0].v*(1-8*sigma))
	hi := vs[len(vs)-1].v * (1 + 8*sigma)
	cdf := func(x float64) float64 {
		var f float64
		for _, y := range vs {
			f += y.w / total * 0.5 * math.Erfc(-(x/y.v-1)/sigma/math.Sqrt2)
		}
		return f
	}
	const steps = 4000
	h := (hi - lo) / steps
	sum := 0.0
	for i := 0; i <= steps; i++ {
		x := lo + float64(i)*h
		f := 1 - math.Pow(cdf(x), float64(n))
		if i == 0 || i == steps {
			f /= 2
		}
		sum += f
	}
	return lo + sum*h, nil
}

// simulateTokenMix simulates a row whose workload is fairseq's token
// batches of a distribution of sentence lengths (zoo.TokenMixOf): every
// part as the row with every GPU's batch at the part's shape l (its
// longer side's length, its sentences s(l) under --max-tokens, its
// source's and target's lengths), without the closed-form slowest batch
// of SlowestBatchFraction (the parts' costs replace it, cut to a
// multiple of 8 included). A part's step time T_l is its global counted
// tokens n x LengthPart.Tokens (the targets') over its simulated tokens/s,
// its compute C_l one GPU's forward and backward (stepCompute). The
// row's step is
//
//	sum_l w_l T_l + E[max over n GPUs of C (1 + sigma Z)] - sum_l w_l C_l (1 + straggle)
//
// w_l the share of the batches at l, C drawn from the C_l with the w_l
// (each GPU takes its own batch), sigma the GPUs' speed spread the
// simulation gave its slowest replica (straggle = sigma E[max of n
// normals], already in T_l): on one GPU the first term. Its tokens/s is
// n sum_l w_l Tokens_l over that step. A part that fails fails the row;
// the record and graph returned, for explain, are the most probable
// part's.
func simulateTokenMix(ctx context.Context, reg *placers.Registry, r ValidationRow, dir string, out ValidationResult, mix *zoo.LengthMix) (ValidationResult, *Record, *workloads.Graph, error) {
	if r.Unit != "tokens/s" {
		return out, nil, nil, fmt.Errorf("lengths= with max-tokens= is counted in tokens: unit %q (valid: tokens/s)", r.Unit)
	}
	if r.Accumulation > 1 {
		return out, nil, nil, fmt.Errorf("lengths= with max-tokens= and gradient accumulation %d: not modelled (each micro-batch would be its own draw)", r.Accumulation)
	}
	// the parts run concurrently (simulateParts); each part's compute and
	// straggle are taken while its record is at hand
	bestI := mostProbablePart(mix.Parts)
	cs := make([]float64, len(mix.Parts))
	straggles := make([]float64, len(mix.Parts))
	runs, err := simulateParts(ctx, len(mix.Parts), bestI, func(i int) (ValidationResult, *Record, *workloads.Graph, error) {
		p := mix.Parts[i]
		pr := r
		pr.Workload = p.Spec
		// the program counts the targets' tokens (fairseq's ntokens)
		pr.TokensPerSample = float64(p.Tokens()) / float64(p.Sentences)
		pr.noSlowestBatch = true
		res, o, g, err := simulateRow(ctx, reg, pr, dir)
		switch {
		case err != nil:
			err = fmt.Errorf("batches of %d-token sentences (%d a GPU, share %.3g): %w", p.Seq, p.Sentences, p.Weight, err)
		case res.Failure != "":
		case !(res.Simulated > 0) || o == nil || o.Result == nil:
			err = fmt.Errorf("batches of %d-token sentences: simulated throughput %g (want > 0)", p.Seq, res.Simulated)
		default:
			if cs[i] = stepCompute(o.Result, g); !(cs[i] > 0) {
				err = fmt.Errorf("batches of %d-token sentences: no forward or backward compute", p.Seq)
			}
			if dp := o.Result.DataParallel; dp != nil {
				straggles[i] = dp.Slowdown
			}
		}
		return res, o, g, err
	})
	if err != nil {
		return out, nil, nil, err
	}
	var (
		st       TokenMixStep
		straggle float64
		costs    []float64
		weights  []float64
	)
	n := float64(r.GPUs)
	for i, run := range runs {
		p := mix.Parts[i]
		if run.err != nil {
			return out, nil, nil, run.err
		}
		if run.res.Failure != "" {
			out.Failure = fmt.Sprintf("batches of %d-token sentences (%d a GPU, share %.3g): %s", p.Seq, p.Sentences, p.Weight, run.res.Failure)
			return out, run.o, run.g, nil
		}
		tokens := n * float64(p.Tokens())
		straggle = straggles[i]
		st.Tokens += p.Weight * tokens
		st.Mean += p.Weight * tokens / run.res.Simulated
		st.Compute += p.Weight * cs[i]
		costs = append(costs, cs[i])
		weights = append(weights, p.Weight)
	}
	best, bestRec, bestG, bestPart := mix.Parts[bestI].Weight, runs[bestI].o, runs[bestI].g, runs[bestI].res
	if !(st.Mean > 0) {
		return out, nil, nil, fmt.Errorf("token batches %s: no part simulated", mix.Lengths)
	}
	if r.GPUs > 1 {
		sigma := 0.0
		if e := engine.ExpectedMaxNormal(r.GPUs); e > 0 {
			sigma = straggle / e
		}
		emax, err := ExpectedMaxMixture(costs, weights, r.GPUs, sigma)
		if err != nil {
			return out, nil, nil, err
		}
		st.Slowest = emax - st.Compute*(1+straggle)
	}
	out.Simulated = st.Tokens / st.Step()
	out.Cluster, out.Program = bestPart.Cluster, bestPart.Program
	if bestPart.Host != nil {
		h := *bestPart.Host
		h.SlowestBatch = st.Slowest
		out.Host = &h
	}
	out.TokenMix = &st
	out.LengthMix = &LengthMixResult{LengthMix: mixSummary(mix), Explained: bestPart.Workload, Weight: best}
	out.Error = out.Simulated/r.Measured - 1
	return out, bestRec, bestG, nil
}
