package zoo

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ErrLengthMix is returned by Build for a spec whose samples have a
// distribution of lengths (BERT's lengths=): such a workload is not one
// graph but the mix LengthMixOf returns, one fixed-length graph a part.
var ErrLengthMix = errors.New("a mix of sequence lengths, not one graph")

// LengthMix is a workload whose training steps run at different padded
// sequence lengths, each with its probability: NVIDIA's PyTorch BERT fed
// by LDDL (NVIDIA/LDDL), whose batches are padded to their longest sample,
// drawn from one length bin per step. A step's expected time is the
// weighted sum of its parts' step times (and a run's throughput the batch
// over that expectation).
type LengthMix struct {
	// Lengths names the sample-length distribution (lengths=).
	Lengths string `json:"lengths"`
	// Bin is LDDL's bin size in tokens (bin=; the sequence length itself
	// when the data is not binned).
	Bin int `json:"bin"`
	// Batch is the global batch: the samples whose longest sets the padded
	// length a step runs at (every GPU draws from the same bin and the
	// step waits for the GPU with the longest batch).
	Batch int `json:"batch"`
	// MeanLength is the distribution's mean sample length in tokens, and
	// MeanPadded the expected padded length a step runs at.
	MeanLength float64 `json:"meanLength"`
	MeanPadded float64 `json:"meanPadded"`
	// MaxTokens and GPUs, for fairseq's token batches (TokenMixOf), are
	// a GPU's --max-tokens budget and the GPUs each taking a batch.
	MaxTokens int `json:"maxTokens,omitempty"`
	GPUs      int `json:"gpus,omitempty"`
	// Ratio, for fairseq's token batches, is the model of a pair's two
	// lengths (ratio=: gale-church or equal) and RatioSource where its
	// figures are from.
	Ratio       string `json:"ratio,omitempty"`
	RatioSource string `json:"ratioSource,omitempty"`
	// Parts are the fixed-length workloads, by bin then padded length.
	Parts []LengthPart `json:"parts"`
}

// LengthPart is one padded length of a LengthMix.
type LengthPart struct {
	// Spec is the zoo spec of the part's graph: the mix's spec at seq=Seq
	// with predictions=Predictions.
	Spec string `json:"spec"`
	// Bin is the part's LDDL bin (0-based) and Seq its padded length.
	Bin int `json:"bin"`
	Seq int `json:"seq"`
	// Predictions is the masked positions per sequence: LDDL's static
	// masking rule, max(1, round(0.15 L)) a sample of L tokens, averaged
	// over the bin's samples and rounded.
	Predictions int `json:"predictions"`
	// Sentences, for fairseq's token batches (TokenMixOf), is a GPU's
	// batch: the pairs of Seq tokens that fit its --max-tokens.
	Sentences int `json:"sentences,omitempty"`
	// SrcSeq and TgtSeq, for fairseq's token batches, are the lengths the
	// encoder and the decoder run at (EOS included; the longer is Seq).
	// The tokens the program counts are Sentences x TgtSeq (fairseq's
	// ntokens: the targets' tokens).
	SrcSeq int `json:"srcSeq,omitempty"`
	TgtSeq int `json:"tgtSeq,omitempty"`
	// Weight is the probability that a step runs this part (for token
	// batches, that a GPU's batch is this part's).
	Weight float64 `json:"weight"`
}

// lengthAlignment is the multiple of 8 tokens a batch's padded length is
// rounded up to: LDDL's get_bert_pretrain_data_loader
// sequence_length_alignment=8 ("better for the Tensor Core on NVIDIA GPUs
// if the dimensions of the input tensors are divisible by 8";
// lddl/torch/bert.py _to_encoded_inputs), which DeepLearningExamples'
// run_pretraining.py leaves at its default.
const lengthAlignment = 8

// lddlMaskedRatio is LDDL's masked_lm_ratio (preprocess_bert_pretrain
// --masked-lm-ratio default 0.15, lddl/dask/bert/pretrain.py), which
// DeepLearningExamples' run_pretraining.sh (masking=static by default)
// leaves at its default: a sample of L tokens has max(1, round(0.15 L))
// masked positions (create_masked_lm_predictions, num_to_predict, with no
// max_predictions_per_seq cap: 77 at 512 tokens).
const lddlMaskedRatio = 0.15

// sampleLengths are the sample-length distributions lengths= names: counts
// of samples by length in tokens ([CLS], [SEP] and [SEP] included), index
// i for i+1 tokens.
var sampleLengths = map[string]struct {
	seq    int
	counts []int64
}{
	"wikipedia": {512, wikipedia512[:]},
}

// wikipedia512 is the sequence-length histogram of the English Wikipedia
// BERT pre-training samples at maximum sequence length 512 (16,279,552
// samples, mean 255.83 tokens: 23.4 % of them 512 tokens long, the rest
// spread down to 5), from Krell, Kosec, Perez and Fitzgibbon, "Efficient
// Sequence Packing without Cross-contamination: Accelerating Large Language
// Models without Impacting Performance" (arXiv:2107.02027, Figure 1 and
// Section 1: "at sequence length 512 padding tokens represent in excess of
// 50% of the Wikipedia dataset"), its counts as published with the paper
// in graphcore/examples@2d8b565326ef6ba730492ad8badd984b067645bc
// tutorials/blogs_code/packedBERT/histograms.py (wikipedia_histogram; the
// README beside it: "Speed-up theoretical limit: 2.0013", 512 over the
// mean, and "Packed 16279552 sequences", the counts' sum, both of which
// TestWikipediaLengths checks).
//
// Those samples were made by Graphcore's create_pretraining_data.py
// (graphcore/examples nlp/bert/popart/bert_data, "adapated from the
// original google-research/bert repo", create_instances_from_document
// unchanged, on WikiExtractor's English Wikipedia with duplication factor
// 6; its README beside it): chunks of whole sentences up to a target
// of max_seq_length - 3 tokens, a random shorter target with
// short_seq_prob = 0.1, a document's last chunk as short as it comes, the
// pair truncated to 509 tokens. LDDL's preprocess_bert_pretrain, which
// made the shards NVIDIA's PyTorch BERT read in phase 2, runs the same
// algorithm (lddl/dask/bert/pretrain.py create_pairs_from_document, the
// same target, short_seq_prob 0.1 and truncation) on English Wikipedia, of
// another dump and with NLTK's sentence splitter; no source gives the
// histogram of LDDL's own shards, so this one stands for them.
var wikipedia512 = [512]int64{
	0, 0, 0, 0, 1821, 1226, 1969, 1315, 1794, 1953, 3082, 3446, 4166, 5062,
	9554, 16475, 19173, 17589, 17957, 19060, 21555, 23524, 26954, 30661, 33470, 36614, 40134, 43256,
	46094, 49350, 52153, 55428, 58109, 60624, 63263, 64527, 65421, 66983, 68123, 68830, 70230, 70486,
	72467, 72954, 73955, 74311, 74836, 74489, 74990, 75377, 74954, 75096, 74784, 74698, 74337, 74638,
	74370, 73537, 73597, 73153, 72358, 71580, 71082, 70085, 69733, 69445, 67818, 67177, 66641, 65709,
	64698, 63841, 63218, 62799, 61458, 60848, 60148, 59858, 58809, 58023, 56920, 55999, 55245, 55051,
	53979, 53689, 52819, 52162, 51752, 51172, 50469, 49907, 49201, 49060, 47948, 47724, 46990, 46544,
	46011, 45269, 44792, 44332, 43878, 43984, 42968, 42365, 42391, 42219, 41668, 41072, 40616, 40587,
	39999, 40169, 39340, 38906, 38438, 38142, 37757, 37818, 37535, 37217, 36757, 36589, 36151, 35953,
	35531, 35496, 35089, 35053, 34567, 34789, 34009, 33952, 33753, 33656, 33227, 32954, 32686, 32880,
	32709, 31886, 32126, 31657, 31466, 31142, 31106, 30650, 30316, 30494, 30328, 30157, 29611, 29754,
	29445, 28921, 29271, 29078, 28934, 28764, 28445, 28319, 28141, 28282, 27779, 27522, 27333, 27470,
	27289, 27102, 27018, 27066, 26925, 26384, 26188, 26385, 26392, 26082, 26062, 25660, 25682, 25547,
	25425, 25072, 25079, 25346, 24659, 24702, 24862, 24479, 24288, 24127, 24268, 24097, 23798, 23878,
	23893, 23817, 23398, 23382, 23280, 22993, 23018, 23242, 22987, 22894, 22470, 22612, 22452, 21996,
	21843, 22094, 21916, 21756, 21955, 21444, 21436, 21484, 21528, 21597, 21301, 21197, 21281, 21066,
	20933, 21023, 20888, 20575, 20574, 20511, 20419, 20312, 20174, 20023, 20087, 19955, 19946, 19846,
	19562, 19710, 19556, 19477, 19487, 19387, 19225, 19069, 19360, 18655, 19034, 18763, 18800, 19012,
	18893, 18714, 18645, 18577, 18317, 18458, 18374, 18152, 17822, 18102, 17735, 17940, 17805, 17711,
	17690, 17703, 17669, 17410, 17583, 17331, 17313, 16892, 16967, 16870, 16926, 17233, 16845, 16861,
	16576, 16685, 16455, 16687, 16747, 16524, 16473, 16349, 16273, 16255, 16228, 16219, 16021, 16111,
	15867, 15751, 16081, 15703, 15751, 15854, 15665, 15469, 15431, 15428, 15464, 15517, 15335, 15461,
	15237, 15292, 15305, 15351, 15078, 14810, 15119, 14780, 14664, 14869, 14722, 14890, 14672, 14439,
	14685, 14706, 14840, 14373, 14286, 14596, 14615, 14168, 14299, 13987, 14167, 14107, 14096, 14202,
	13985, 14118, 14094, 14127, 13896, 13864, 13597, 13572, 13717, 13669, 13782, 13617, 13284, 13333,
	13425, 13457, 13256, 13404, 13318, 13425, 13317, 13179, 13193, 13257, 13160, 12813, 13149, 13010,
	12867, 12958, 12818, 12801, 12749, 12810, 12575, 12673, 12514, 12735, 12523, 12677, 12298, 12469,
	12341, 12445, 12477, 12326, 12110, 12087, 12305, 12156, 12032, 12190, 12150, 11980, 12022, 11825,
	11969, 11831, 11997, 11924, 11739, 11685, 11702, 11783, 11783, 11659, 11647, 11610, 11526, 11577,
	11538, 11536, 11497, 11480, 11374, 11234, 11433, 11466, 11475, 11147, 11376, 11217, 11002, 11245,
	11124, 11000, 11129, 10923, 10966, 11071, 11029, 11036, 10972, 11012, 10800, 10936, 10904, 10750,
	10669, 10766, 10780, 10675, 10905, 10511, 10598, 10583, 10658, 10471, 10667, 10601, 10430, 10440,
	10510, 10148, 10468, 10346, 10257, 10286, 10235, 10351, 10182, 10182, 10095, 10192, 9866, 10070,
	10148, 9956, 10132, 10043, 9741, 10003, 10056, 9920, 10021, 9838, 9854, 9740, 9782, 9799,
	9798, 9788, 9840, 9747, 9797, 9893, 9593, 9535, 9658, 9554, 9593, 9530, 9523, 9488,
	9548, 9418, 9418, 9508, 9638, 9521, 9277, 9289, 9255, 9322, 9281, 9351, 9259, 9255,
	9225, 9098, 9268, 9227, 9224, 9106, 9239, 3815044,
}

// SampleLengths lists the names lengths= accepts.
func SampleLengths() []string {
	return slices.Sorted(maps.Keys(sampleLengths))
}

// LengthMixOf returns the mix of padded lengths of a zoo spec with a
// sample-length distribution (zoo:bert?...&lengths=wikipedia[&bin=64];
// zoo:transformer?...&lengths=wmt16-en-de&max-tokens=M is TokenMixOf's
// mix for one GPU), or nil for a spec without one (every other spec: its
// graph is Build's). The spec is checked here as Build checks it: an unknown
// distribution, a seq other than the distribution's, a bin that does not
// divide it or a predictions= beside lengths= is an error naming the
// valid values.
//
// The mix follows NVIDIA's LDDL data loader (NVIDIA/LDDL lddl/torch/
// dataloader.py Binned and lddl/torch/bert.py), with which NVIDIA's
// PyTorch BERT (DeepLearningExamples PyTorch/LanguageModeling/BERT,
// pytorch:21.11 results, scripts/run_pretraining.sh phase2_bin_size=64 by
// default) reads its phase-2 data:
//
//   - the samples are cut into bins of bin= tokens (bin k holds lengths
//     k bin + 1 .. (k+1) bin; preprocess_bert_pretrain --bin-size, which
//     must divide the target length);
//   - every step picks one bin for all ranks with probability its share of
//     the remaining samples (Binned.__iter__, random.choices weighted by
//     num_samples_remaining, from a seed every rank shares): bin k with
//     probability p_k, its share of the distribution;
//   - each rank's batch is padded to its longest sample, rounded up to a
//     multiple of 8 (_to_encoded_inputs, sequence_length_alignment). With
//     the batch's samples drawn independently from the bin, its longest is
//     at most l with probability (F_k(l)/F_k(top))^B, F_k the bin's
//     cumulative count. The step waits for the GPU with the longest batch
//     (the rule study.SlowestBatchFraction applies to fairseq's token
//     batches: the slowest GPU's padded tokens set the step), and with
//     every GPU in the same bin that is the longest of all the GPUs'
//     samples: B is the global batch. One GPU or n, a step runs at
//     padded length l with probability p_k ((G(l))^B - (G(l-8))^B).
//
// Each part's masked positions follow LDDL's static masking (the default
// of run_pretraining.sh): round(0.15 L) for a sample of L tokens,
// averaged over the bin's samples (NVIDIA's BERT runs the masked-LM head
// on the masked rows only, sequence_output_is_dense).
func LengthMixOf(spec string) (*LengthMix, error) {
	spec = strings.TrimPrefix(spec, "zoo:")
	name, query, _ := strings.Cut(spec, "?")
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("zoo:%s: malformed parameters %q: %w", name, query, err)
	}
	if name == "transformer" {
		// fairseq's token batches: one GPU's mix (validate takes the
		// row's GPUs, TokenMixOf)
		return TokenMixOf(spec, 1)
	}
	lv, ok := vals["lengths"]
	if !ok {
		return nil, nil
	}
	if name != "bert" {
		return nil, fmt.Errorf("zoo:%s: %w %q (lengths= is a parameter of zoo:bert and zoo:transformer only)", name, ErrUnknownParameter, "lengths")
	}
	one := func(k string) (string, bool, error) {
		v, ok := vals[k]
		if !ok {
			return "", false, nil
		}
		if len(v) != 1 {
			return "", false, fmt.Errorf("zoo:%s: parameter %s given %d times", name, k, len(v))
		}
		return v[0], true, nil
	}
	if _, err := lengthsParam(lv); err != nil {
		return nil, fmt.Errorf("zoo:%s: %w", name, err)
	}
	dist := sampleLengths[lv[0]]
	seqStr, hasSeq, err := one("seq")
	if err != nil {
		return nil, err
	}
	if !hasSeq || seqStr != strconv.Itoa(dist.seq) {
		return nil, fmt.Errorf("zoo:%s: lengths=%s is the length distribution of %d-token samples: it needs seq=%d (got %q)", name, lv[0], dist.seq, dist.seq, seqStr)
	}
	bin := dist.seq
	if b, ok, err := one("bin"); err != nil {
		return nil, err
	} else if ok {
		if bin, err = binParam(b, dist.seq); err != nil {
			return nil, fmt.Errorf("zoo:%s: %w", name, err)
		}
	}
	if _, ok := vals["predictions"]; ok {
		return nil, fmt.Errorf("zoo:%s: predictions= and lengths= together: with lengths= each length's masked positions follow LDDL's masking (round(0.15 L) a sample); drop predictions=", name)
	}
	batch := 0
	for _, m := range models() {
		if m.Name == name {
			batch = m.DefaultBatch
		}
	}
	if b, ok, err := one("batch"); err != nil {
		return nil, err
	} else if ok {
		if batch, err = strconv.Atoi(b); err != nil || batch < 1 || batch > 1<<20 {
			return nil, fmt.Errorf("zoo:%s: parameter batch=%q (valid range: integer in [1, %d])", name, b, 1<<20)
		}
	}
	mix := &LengthMix{Lengths: lv[0], Bin: bin, Batch: batch}
	parts, mean, err := binnedLengths(dist.counts, bin, batch)
	if err != nil {
		return nil, fmt.Errorf("zoo:%s: lengths=%s: %w", name, lv[0], err)
	}
	mix.MeanLength = mean
	base := url.Values{}
	for k, v := range vals {
		switch k {
		case "lengths", "bin", "seq":
		default:
			base[k] = v
		}
	}
	for _, p := range parts {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		q.Set("seq", strconv.Itoa(p.Seq))
		q.Set("predictions", strconv.Itoa(p.Predictions))
		p.Spec = "zoo:" + name + "?" + q.Encode()
		mix.MeanPadded += p.Weight * float64(p.Seq)
		mix.Parts = append(mix.Parts, p)
	}
	return mix, nil
}

// lengthsParam checks a lengths= value.
func lengthsParam(v []string) (string, error) {
	if len(v) != 1 {
		return "", fmt.Errorf("parameter lengths given %d times", len(v))
	}
	if _, ok := sampleLengths[v[0]]; !ok {
		return "", fmt.Errorf("parameter lengths=%q (valid: %s)", v[0], strings.Join(SampleLengths(), ", "))
	}
	return v[0], nil
}

// binParam checks a bin= value: LDDL's bin size must divide the target
// sequence length (lddl/dask/bert/pretrain.py main: "Please provide a bin
// size that can divide the target sequence length.").
func binParam(v string, seq int) (int, error) {
	b, err := strconv.Atoi(v)
	if err != nil || b < 1 || b > seq || seq%b != 0 {
		return 0, fmt.Errorf("parameter bin=%q (valid: a divisor of seq %d, 1 to %d tokens; %d: not binned)", v, seq, seq, seq)
	}
	return b, nil
}

// binnedLengths is the distribution of the padded length a step runs at
// (see LengthMixOf) for sample-length counts (index i: i+1 tokens), LDDL
// bins of bin tokens and batches of batch samples, as parts without their
// spec, with the distribution's mean sample length. Parts of zero
// probability are left out.
func binnedLengths(counts []int64, bin, batch int) ([]LengthPart, float64, error) {
	var total, sum float64
	for i, c := range counts {
		if c < 0 {
			return nil, 0, fmt.Errorf("negative count %d at length %d", c, i+1)
		}
		total += float64(c)
		sum += float64(c) * float64(i+1)
	}
	if total == 0 {
		return nil, 0, errors.New("no samples")
	}
	var parts []LengthPart
	for k := 0; k*bin < len(counts); k++ {
		lo, hi := k*bin+1, min((k+1)*bin, len(counts)) // tokens
		var n, masked float64
		for l := lo; l <= hi; l++ {
			c := float64(counts[l-1])
			n += c
			masked += c * float64(maskedPositions(l))
		}
		if n == 0 {
			continue
		}
		pk := n / total
		pred := max(1, int(math.Round(masked/n)))
		// P(longest <= l) = (F(l)/n)^batch; a part per multiple of 8
		var cum, prev float64
		for l := lo; l <= hi; l++ {
			cum += float64(counts[l-1])
			if l%lengthAlignment != 0 && l != hi {
				continue
			}
			at := math.Pow(cum/n, float64(batch))
			if w := pk * (at - prev); w > 0 {
				seq := (l + lengthAlignment - 1) / lengthAlignment * lengthAlignment
				parts = append(parts, LengthPart{Bin: k, Seq: seq, Predictions: min(pred, seq), Weight: w})
			}
			prev = at
		}
	}
	return parts, sum / total, nil
}

// maskedPositions is LDDL's masked positions for a sample of l tokens:
// max(1, round(0.15 l)) (create_masked_lm_predictions; Python's round,
// halves to even).
func maskedPositions(l int) int {
	return max(1, int(math.RoundToEven(float64(l)*lddlMaskedRatio)))
}
