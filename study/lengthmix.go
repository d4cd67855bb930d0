package study

import (
	"context"
	"fmt"
	"math"

	"placesim/placers"
	"placesim/runresult"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// LengthMixResult is a validation row's distribution of padded lengths:
// the summary stats prints for the workload, and the part explain takes
// apart.
type LengthMixResult struct {
	runresult.LengthMix
	// Explained is the most probable part's spec, Weight its probability:
	// the padded length placesim validate --explain takes apart.
	Explained string  `json:"explained"`
	Weight    float64 `json:"weight"`
}

// mixSummary is the summary of mix that stats and validate report.
func mixSummary(mix *zoo.LengthMix) runresult.LengthMix {
	return runresult.LengthMix{Lengths: mix.Lengths, Bin: mix.Bin, Parts: len(mix.Parts), MeanLength: mix.MeanLength, MeanPadded: mix.MeanPadded, MaxTokens: mix.MaxTokens, Ratio: mix.Ratio}
}

// simulateLengthMix simulates a validation row whose workload is a mix of
// padded sequence lengths (zoo.LengthMixOf: NVIDIA's PyTorch BERT on
// LDDL's binned data): every part as the row at that length, the step's
// expected time the parts' step times weighted by their probabilities.
// A part's throughput is batch/T_i (with the row's program costs in T_i),
// so the row's is batch / sum_i w_i T_i = 1 / sum_i (w_i / throughput_i).
// A part that fails (out of memory at its length) fails the row, naming
// the length. The parts run concurrently and are summed in their order
// (simulateParts). The record and graph returned, for explain, are the
// most probable part's.
func simulateLengthMix(ctx context.Context, reg *placers.Registry, r ValidationRow, dir string, out ValidationResult, mix *zoo.LengthMix) (ValidationResult, *Record, *workloads.Graph, error) {
	bestI := mostProbablePart(mix.Parts)
	runs, err := simulateParts(ctx, len(mix.Parts), bestI, func(i int) (ValidationResult, *Record, *workloads.Graph, error) {
		p := mix.Parts[i]
		pr := r
		pr.Workload = p.Spec
		res, o, g, err := simulateRow(ctx, reg, pr, dir)
		switch {
		case err != nil:
			err = fmt.Errorf("padded length %d (bin %d, probability %.3g): %w", p.Seq, p.Bin, p.Weight, err)
		case res.Failure == "" && !(res.Simulated > 0):
			err = fmt.Errorf("padded length %d: simulated throughput %g (want > 0)", p.Seq, res.Simulated)
		}
		return res, o, g, err
	})
	if err != nil {
		return out, nil, nil, err
	}
	var inv float64
	for i, run := range runs {
		p := mix.Parts[i]
		if run.err != nil {
			return out, nil, nil, run.err
		}
		if run.res.Failure != "" {
			out.Failure = fmt.Sprintf("padded length %d (bin %d, probability %.3g): %s", p.Seq, p.Bin, p.Weight, run.res.Failure)
			return out, run.o, run.g, nil
		}
		inv += p.Weight / run.res.Simulated
	}
	best, bestRec, bestG, bestPart := mix.Parts[bestI].Weight, runs[bestI].o, runs[bestI].g, runs[bestI].res
	if !(inv > 0) {
		return out, nil, nil, fmt.Errorf("length mix %s: no part simulated", mix.Lengths)
	}
	out.Simulated = 1 / inv
	out.Cluster, out.Program, out.Host = bestPart.Cluster, bestPart.Program, bestPart.Host
	out.Accumulation = bestPart.Accumulation
	out.LengthMix = &LengthMixResult{LengthMix: mixSummary(mix), Explained: bestPart.Workload, Weight: best}
	out.Error = out.Simulated/r.Measured - 1
	return out, bestRec, bestG, nil
}

// lengthMixStats is Stats of a mix of padded lengths: each part's
// statistics, the figures that grow with the length (FLOPs by layer
// group, activation, saved and edge bytes) weighted by the parts'
// probabilities, the others (ops, kernels, parameters) the same in every
// part and taken from the first. A cluster's CCR is the expectation of
// its numerator and denominator's ratio part by part, weighted likewise.
func lengthMixStats(req StatsRequest, mix *zoo.LengthMix) (*WorkloadStats, error) {
	var o *WorkloadStats
	var flops, act, saved, edge, ccr, batch, tokens, counted float64
	groups := map[string]float64{}
	for _, p := range mix.Parts {
		r := req
		r.Workload = p.Spec
		s, err := Stats(r)
		if err != nil {
			return nil, fmt.Errorf("%s: padded length %d: %w", req.Workload, p.Seq, err)
		}
		if o == nil {
			o = s
			o.Workload = req.Workload
		} else if s.Ops != o.Ops || s.ParamBytes != o.ParamBytes || len(s.LayerFLOPs) != len(o.LayerFLOPs) {
			return nil, fmt.Errorf("%s: padded length %d has %d ops and %d parameter bytes, another %d and %d (a bug: the parts differ in length only)", req.Workload, p.Seq, s.Ops, s.ParamBytes, o.Ops, o.ParamBytes)
		}
		flops += p.Weight * s.FLOPs
		batch += p.Weight * float64(s.Batch)
		tokens += p.Weight * float64(s.Batch) * float64(p.Seq)
		counted += p.Weight * float64(p.Tokens())
		act += p.Weight * float64(s.ActivationBytes)
		saved += p.Weight * float64(s.SavedBytes)
		edge += p.Weight * float64(s.EdgeBytes)
		for _, g := range s.LayerFLOPs {
			groups[g.Group] += p.Weight * g.FLOPs
		}
		if s.CCR != nil {
			ccr += p.Weight * s.CCR.Value
		}
	}
	if o == nil {
		return nil, fmt.Errorf("%s: no padded length with a non-zero probability", req.Workload)
	}
	o.FLOPs = flops
	o.ActivationBytes, o.SavedBytes, o.EdgeBytes = int64(math.Round(act)), int64(math.Round(saved)), int64(math.Round(edge))
	for i := range o.LayerFLOPs {
		o.LayerFLOPs[i].FLOPs = groups[o.LayerFLOPs[i].Group]
	}
	if o.CCR != nil {
		o.CCR.Value = ccr
	}
	m := mixSummary(mix)
	if mix.MaxTokens > 0 {
		// fairseq's token batches: each length's batch holds its own
		// number of sentences (zoo.FairseqSentences), so the first part's
		// batch is no batch of the mix
		m.MeanBatch, m.MeanBatchTokens, m.MeanCountedTokens = batch, tokens, counted
		o.Batch = int(math.Round(batch))
	}
	o.LengthMix = &m
	return o, nil
}
