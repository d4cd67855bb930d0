package zoo

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// fairseqBatchMultiple is the multiple of sentences fairseq cuts a token
// batch to: NVIDIA's train.py passes required_batch_size_multiple=8 to
// EpochBatchIterator, and fairseq/data/csrc/make_batches.cpp keeps
// max(size/8*8, size%8) of a full batch's sentences, carrying the rest
// into the next batch (study.SlowestBatchFraction's rule).
const fairseqBatchMultiple = 8

// FairseqSentences is the sentences of one GPU's batch that fairseq forms
// from sentences of l tokens (the longer of source and target, EOS
// included: LanguagePairDataset.num_tokens) under --max-tokens m: a batch
// is full when one more sentence would take (size+1) l past m
// (make_batches.cpp), so it holds floor(m/l), cut to a multiple of 8
// unless that is fewer than 8. 0 when a sentence alone is over the budget.
func FairseqSentences(l, m int) int {
	if l < 1 || m < l {
		return 0
	}
	size := m / l
	return max(size/fairseqBatchMultiple*fairseqBatchMultiple, size%fairseqBatchMultiple)
}

// pairLengths are the sentence-pair length distributions lengths= names
// for zoo:transformer: the probability of a pair whose longer side is i
// subword tokens (EOS not included), index i.
var pairLengths = map[string]func() []float64{
	"wmt16-en-de": wmt16EnDePairs,
}

// pairRatios are the target-over-source length models of the
// distributions lengths= names (ratio=gale-church, PairRatio).
var pairRatios = map[string]PairRatio{
	"wmt16-en-de": wmt16EnDeRatio,
}

// PairRatio is a corpus's length model of a translation given its
// source, in subword tokens (EOS not included): the target of a source of
// S tokens has Mean S tokens on average with variance VarPerToken S.
// Gale and Church's model of sentence lengths in characters (W. A. Gale
// and K. W. Church, "A Program for Aligning Sentences in Bilingual
// Corpora", Computational Linguistics 19(1), 1993, p. 81: the target of a
// source of l characters has c l characters with variance s² l, the
// difference normally distributed) read in subword tokens of k characters
// each: variance s² S k / k² = (s² / k) S.
type PairRatio struct {
	Mean, VarPerToken float64
	Source            string
}

// Stddev is the standard deviation of the target's length over the
// source's for a source of s tokens: sqrt(VarPerToken / s).
func (r PairRatio) Stddev(s float64) float64 { return math.Sqrt(r.VarPerToken / s) }

const (
	// wmt16EnTokens, wmt16DeTokens and wmt16TrainPairs are fairseq-
	// preprocess's counts of Google's wmt16_en_de_bpe32k training set
	// (train.tok.clean.bpe.32000.en/.de, the data Ott et al. 2018 train
	// on), EOS included: "4500966 sents, 132886171 tokens" (en) and
	// "4500966 sents, 137628246 tokens" (de), as logged in
	// dertilo/machine-translation@4ab379d8 nmt_fairseq.md.
	wmt16EnTokens   = 132886171
	wmt16DeTokens   = 137628246
	wmt16TrainPairs = 4500966
	// galeChurchVariance is Gale and Church's s², the variance per
	// character of a translation's length, the language-independent value
	// their program uses (p. 81; c = 1, s² = 6.8, as nltk's
	// translate/gale_church.py LanguageIndependent gives them).
	galeChurchVariance = 6.8
	// hfWMT16Bytes and hfWMT16Pairs are the Hugging Face wmt/wmt16 de-en
	// training split (the raw Europarl v7, Common Crawl and News
	// Commentary v11 pairs, before tokenisation): "num_bytes: 1373099816,
	// num_examples: 4548885" (huggingface.co/datasets/wmt/wmt16, README
	// dataset_info at commit c40135dc), the split's Arrow size (datasets'
	// ArrowWriter.write_table adds each table's pa_table.nbytes), in which
	// each pair is its two UTF-8 strings and their two 4-byte offsets
	// (the Arrow columnar format's variable-size layout).
	hfWMT16Bytes = 1373099816
	hfWMT16Pairs = 4548885
)

// charsPerSubword is the characters of a subword token, k: a sentence's
// raw characters (hfWMT16Bytes less the offsets, over both sides of
// hfWMT16Pairs: 146.9 bytes, taken as characters, German's umlauts and ß
// being 2 bytes but under 1 % of its letters) over its subword tokens
// (wmt16EnTokens and wmt16DeTokens less their EOS, over both sides of
// wmt16TrainPairs: 29.05), 5.06. The two counts are of the same three
// corpora, filtered a little differently (4,548,885 and 4,500,966 pairs).
// k = 4 or 6 moves the spread by +12 or -8 %. Counting the tokens' own
// variance (a fixed number of characters splits into a varying number of
// subwords) would add to the spread, not take from it.
var charsPerSubword = (float64(hfWMT16Bytes) - 8*hfWMT16Pairs) / (2 * hfWMT16Pairs) /
	(float64(wmt16EnTokens+wmt16DeTokens-2*wmt16TrainPairs) / (2 * wmt16TrainPairs))

// wmt16EnDeRatio is the English-to-German model of the WMT16 pairs: the
// mean is the corpus's German tokens over its English tokens (EOS taken
// out of both counts: 1.0369), the variance Gale and Church's per
// subword token.
var wmt16EnDeRatio = PairRatio{
	Mean:        float64(wmt16DeTokens-wmt16TrainPairs) / float64(wmt16EnTokens-wmt16TrainPairs),
	VarPerToken: galeChurchVariance / charsPerSubword,
	Source:      "mean: fairseq-preprocess counts of wmt16_en_de_bpe32k (dertilo/machine-translation@4ab379d8 nmt_fairseq.md); variance: Gale and Church 1993, p. 81, s² = 6.8 per character, at 5.06 characters a subword (Hugging Face wmt/wmt16 de-en train bytes over those token counts)",
}

// ratioStrata is the number of equal-probability strata of the
// standard normal the ratio model is taken at (a stratum's point is its
// conditional mean, so the mean is kept and the spread slightly
// understated).
const ratioStrata = 6

// Ratio models ratio= accepts.
const (
	// RatioGaleChurch: each pair's target length drawn from its
	// distribution's PairRatio.
	RatioGaleChurch = "gale-church"
	// RatioEqual: both sides at the longer side's length (the model
	// before issue 29's ratio).
	RatioEqual = "equal"
)

// pairSides is the (source, target) lengths in tokens (EOS not included)
// of the pairs whose longer side is n under ratio r, with their
// probabilities: the target of a source of n tokens at each stratum z
// of the standard normal, t = r.Mean n + z sqrt(r.VarPerToken n); a
// target at most n keeps the source at n (the pair's longer side), a
// longer one is the longer side itself at n and its source n² / t (the
// same ratio). The spread is taken at a source of n tokens for the
// pairs whose target is longer too (their source is shorter, so their
// spread a little larger: understated). Equal (source, target) pairs are
// merged; lengths are at least 1.
func pairSides(n int, r PairRatio) (src, tgt []int, prob []float64) {
	type st struct{ s, t int }
	at := map[st]int{}
	sd := math.Sqrt(r.VarPerToken * float64(n))
	for j := range ratioStrata {
		a := float64(j) / ratioStrata
		b := float64(j+1) / ratioStrata
		z := stratumMean(a, b)
		t := r.Mean*float64(n) + z*sd
		k := st{n, max(1, int(math.Round(t)))}
		if t > float64(n) {
			// n² / t < n: the source is the shorter side
			k = st{max(1, int(math.Round(float64(n)*float64(n)/t))), n}
		}
		i, ok := at[k]
		if !ok {
			i = len(src)
			at[k] = i
			src, tgt, prob = append(src, k.s), append(tgt, k.t), append(prob, 0)
		}
		prob[i] += b - a
	}
	return src, tgt, prob
}

// stratumMean is E[Z | a < Phi(Z) <= b] for a standard normal Z:
// (phi(Phi^-1(a)) - phi(Phi^-1(b))) / (b - a).
func stratumMean(a, b float64) float64 {
	phi := func(p float64) float64 {
		if p <= 0 || p >= 1 {
			return 0
		}
		x := math.Sqrt2 * math.Erfinv(2*p-1)
		return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	}
	return (phi(a) - phi(b)) / (b - a)
}

// PairLengths lists the names lengths= accepts for zoo:transformer.
func PairLengths() []string {
	return slices.Sorted(maps.Keys(pairLengths))
}

// The WMT16 English-German training pairs in 32,000-merge joint BPE, as
// the MLPerf GNMT benchmark prepares them (mlcommons/training
// retired_benchmarks/gnmt/download_dataset.sh: Europarl v7, Common Crawl
// and News Commentary v11 tokenized, clean-corpus-n 1 80, pairs that
// latin-1 cannot encode dropped by scripts/filter_dataset.py, subword-nmt
// learn_bpe -s 32000 on both sides joined): Google's wmt16_en_de.sh
// pipeline, whose 4,500,966 pairs Ott et al. 2018 train on, less the
// pairs with characters outside latin-1 (4,068,191 remain); NVIDIA's
// DeepLearningExamples Transformer trains on the same three corpora
// (news-commentary v12, --scaling18) in its own 33,708-token joint BPE.
// Published counts (NVIDIA's MLPerf GNMT logs, which count a side's
// length with BOS and EOS, so a limit of k is k - 2 subword tokens):
//
//   - mlcommons/training_results_v0.5@c71f2e7c v0.5.0/nvidia/submission/
//     results/*/gnmt/result_*.txt: "Filtering data, min len: 0, max len:
//     50" / "Pairs before: 4068191, after: 3498161": 4,068,191 pairs, of
//     which 3,498,161 have both sides at most 48 tokens;
//   - mlcommons/training_results_v0.7@0a8a85a2 Fujitsu/results/
//     gx_V100x8_ngc20.06_pytorch/gnmt/result_*.txt (NVIDIA's GNMT code on
//     the same data): "Preprocessed data: length: 3866375 min length: 0
//     max length: 65": 3,866,375 at most 63;
//   - mlcommons/training_results_v0.6@f312518c NVIDIA/results/
//     dgx1_ngc19.05_pytorch/gnmt/result_*.txt: "Preprocessed data: length:
//     3975116 ... max length: 75": 3,975,116 at most 73.
//
// The same ten dgx1 logs of v0.6 give the pairs at most 73 tokens by
// 15-token bucket: NVIDIA's BucketingSampler (seq2seq/data/sampler.py)
// puts a pair in bucket max(src//15, tgt//15) of 5 (lengths with BOS and
// EOS; bucket_width (75+4)//5), draws every global batch of 2,048 pairs
// from one bucket (floor(n_k/2048) batches of bucket k an epoch, globally
// reshuffled) and pads it to its longest pair, so an iteration's time
// tells its bucket: the log's TRAIN lines (every 10th iteration) take
// 0.062-0.070 s (747 lines), 0.115-0.124 (3,208), 0.169-0.181 (2,432),
// 0.224-0.239 (1,084) and 0.291-0.316 s (443), rising with the bucket's
// padded length 15, 30, 45, 60, 75; the 40 lines above 0.35 s (the
// epochs' first iterations) are left out. So of the pairs at most 73
// tokens, 747/7914 are at most 12 tokens, 3,208/7914 13 to 27, 2,432/7914
// 28 to 42, 1,084/7914 43 to 57 and 443/7914 58 to 73.
var (
	wmt16Pairs = 4068191.0
	// wmt16AtMost: pairs whose longer side is at most k tokens
	wmt16AtMost = []struct {
		tokens int
		pairs  float64
	}{{48, 3498161}, {63, 3866375}, {73, 3975116}}
	// wmt16Buckets: TRAIN lines by bucket (longer side hi tokens at most)
	wmt16Buckets = []struct {
		hi    int
		lines float64
	}{{12, 747}, {27, 3208}, {42, 2432}, {57, 1084}, {73, 443}}
)

// wmt16TailLimit is where the tail above 73 tokens is cut: past the 80
// words clean-corpus-n keeps a side to, split into subwords (the
// exponential tail holds 1.3e-4 of the pairs past it).
const wmt16TailLimit = 200

// wmt16EnDePairs is the probability of a WMT16 en-de pair whose longer
// side is i subword tokens, index i (see wmt16Pairs for the sources).
// Between the published points the pairs are spread evenly over the
// lengths of a bin (an assumption: no source gives them finer); the 2.3 %
// longer than 73 tokens fall off exponentially at the rate the two last
// bins fall at (58-63 and 64-73 tokens: a density ratio over their
// centres' 8 tokens, 0.0695 a token), to wmt16TailLimit (an assumption
// with its parameter from those counts).
func wmt16EnDePairs() []float64 {
	type bin struct {
		lo, hi int
		p      float64
	}
	atMost73 := wmt16AtMost[2].pairs / wmt16Pairs
	var lines float64
	for _, b := range wmt16Buckets {
		lines += b.lines
	}
	// the cumulative share at each bucket's top, then the published points
	cum := map[int]float64{}
	var c float64
	for _, b := range wmt16Buckets {
		c += b.lines / lines * atMost73
		cum[b.hi] = c
	}
	for _, a := range wmt16AtMost {
		cum[a.tokens] = a.pairs / wmt16Pairs
	}
	tops := make([]int, 0, len(cum))
	for k := range cum {
		tops = append(tops, k)
	}
	slices.Sort(tops)
	var bins []bin
	lo, prev := 1, 0.0
	for _, hi := range tops {
		bins = append(bins, bin{lo, hi, cum[hi] - prev})
		lo, prev = hi+1, cum[hi]
	}
	p := make([]float64, wmt16TailLimit+1)
	for _, b := range bins {
		for i := b.lo; i <= b.hi; i++ {
			p[i] = b.p / float64(b.hi-b.lo+1)
		}
	}
	// the tail: the density of 58-63 over that of 64-73
	d1 := (cum[63] - cum[57]) / 6
	d2 := (cum[73] - cum[63]) / 10
	rate := math.Log(d1/d2) / 8
	tail := 1 - cum[73]
	var norm float64
	for i := 74; i <= wmt16TailLimit; i++ {
		norm += math.Exp(-rate * float64(i-74))
	}
	for i := 74; i <= wmt16TailLimit; i++ {
		p[i] = tail * math.Exp(-rate*float64(i-74)) / norm
	}
	return p
}

// TokenMixOf returns the mix of batch lengths of a zoo:transformer spec
// with a sentence-pair length distribution and a token budget
// (zoo:transformer?...&lengths=wmt16-en-de&max-tokens=M) trained data
// parallel on gpus GPUs, or nil for any other spec. It is fairseq's
// token batching (NVIDIA's DeepLearningExamples Transformer, which the
// fairseq validation rows ran):
//
//   - the pairs are sorted by source length, then target length
//     (LanguagePairDataset.ordered_indices), so a batch's pairs share a
//     length: a batch of pairs whose longer side is N subword tokens runs
//     at l = N + 1 tokens (EOS appended to both sides; num_tokens is the
//     longer side, make_batches.cpp budgets on it);
//   - it holds s(l) = FairseqSentences(l, M) pairs, so pairs of length l
//     make p(l)/s(l) of the batches (p: the distribution): a part's Weight
//     is that share, its graph the spec at seq=l with batch=gpus s(l)
//     (every GPU's batch at l);
//   - each GPU takes its own batch (ShardedIterator deals the shuffled
//     batches round robin): study.simulateTokenMix takes the step as the
//     slowest of gpus independent draws.
//
// A batch's pairs share a source length and nearly a target length, one
// of them its longer side: under ratio=gale-church (the default where the
// distribution has a PairRatio) each length splits into the (source,
// target) shapes of pairSides, each a part with its share of the
// length's batches, its spec at seq= the source's length and tgt-seq=
// the target's (EOS included); under ratio=equal both sides run at l.
// The tokens a part counts are fairseq's ntokens, its batch's s(l)
// targets' tokens (LengthPart.Tokens). batch=, seq= and tgt-seq= come
// from max-tokens= and the distribution and may not be given.
func TokenMixOf(spec string, gpus int) (*LengthMix, error) {
	spec = strings.TrimPrefix(spec, "zoo:")
	name, query, _ := strings.Cut(spec, "?")
	if name != "transformer" {
		return nil, nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("zoo:%s: malformed parameters %q: %w", name, query, err)
	}
	lv, ok := vals["lengths"]
	if !ok {
		if _, ok := vals["max-tokens"]; ok {
			return nil, fmt.Errorf("zoo:%s: parameter max-tokens= needs lengths= (valid: lengths=%s)", name, strings.Join(PairLengths(), "|"))
		}
		return nil, nil
	}
	if gpus < 1 {
		return nil, fmt.Errorf("zoo:%s: %d GPUs (valid: >= 1)", name, gpus)
	}
	if len(lv) != 1 {
		return nil, fmt.Errorf("zoo:%s: parameter lengths given %d times", name, len(lv))
	}
	dist, ok := pairLengths[lv[0]]
	if !ok {
		return nil, fmt.Errorf("zoo:%s: parameter lengths=%q (valid: %s)", name, lv[0], strings.Join(PairLengths(), ", "))
	}
	for _, k := range []string{"seq", "batch"} {
		if _, ok := vals[k]; ok {
			return nil, fmt.Errorf("zoo:%s: %s= and lengths= together: with lengths= each batch's length comes from the distribution and its sentences from max-tokens=; drop %s=", name, k, k)
		}
	}
	mt, ok := vals["max-tokens"]
	if !ok || len(mt) != 1 {
		return nil, fmt.Errorf("zoo:%s: lengths=%s needs one max-tokens= (fairseq's --max-tokens, a GPU's token budget)", name, lv[0])
	}
	m, err := strconv.Atoi(mt[0])
	if err != nil || m < 1 || m > 1<<24 {
		return nil, fmt.Errorf("zoo:%s: parameter max-tokens=%q (valid range: integer in [1, %d])", name, mt[0], 1<<24)
	}
	if _, ok := vals["tgt-seq"]; ok {
		return nil, fmt.Errorf("zoo:%s: tgt-seq= and lengths= together: with lengths= each batch's target length comes from ratio=; drop tgt-seq=", name)
	}
	ratio := RatioEqual
	pr, hasRatio := pairRatios[lv[0]]
	if hasRatio {
		ratio = RatioGaleChurch
	}
	if rv, ok := vals["ratio"]; ok {
		if len(rv) != 1 || (rv[0] != RatioEqual && rv[0] != RatioGaleChurch) {
			return nil, fmt.Errorf("zoo:%s: parameter ratio=%q (valid: %s, %s)", name, strings.Join(rv, ","), RatioGaleChurch, RatioEqual)
		}
		if rv[0] == RatioGaleChurch && !hasRatio {
			return nil, fmt.Errorf("zoo:%s: ratio=%s: lengths=%s has no ratio model (valid: ratio=%s)", name, RatioGaleChurch, lv[0], RatioEqual)
		}
		ratio = rv[0]
	}
	p := dist()
	mix := &LengthMix{Lengths: lv[0], Bin: 1, Batch: gpus, MaxTokens: m, GPUs: gpus, Ratio: ratio}
	if ratio == RatioGaleChurch {
		mix.RatioSource = pr.Source
	}
	base := maps.Clone(vals)
	delete(base, "lengths")
	delete(base, "max-tokens")
	delete(base, "ratio")
	var total, pairs, batches float64
	for n, pn := range p {
		if pn <= 0 {
			continue
		}
		l := n + 1
		s := FairseqSentences(l, m)
		if s == 0 {
			return nil, fmt.Errorf("zoo:%s: lengths=%s has pairs of %d tokens, more than max-tokens=%d", name, lv[0], l, m)
		}
		total += pn
		pairs += pn * float64(l)
		batches += pn / float64(s)
	}
	mix.MeanLength = pairs / total
	for n, pn := range p {
		if pn <= 0 {
			continue
		}
		l := n + 1
		s := FairseqSentences(l, m)
		src, tgt, prob := []int{n}, []int{n}, []float64{1}
		if ratio == RatioGaleChurch {
			src, tgt, prob = pairSides(n, pr)
		}
		for i := range src {
			q := maps.Clone(base)
			q.Set("seq", strconv.Itoa(src[i]+1))
			if tgt[i] != src[i] {
				q.Set("tgt-seq", strconv.Itoa(tgt[i]+1))
			}
			q.Set("batch", strconv.Itoa(gpus*s))
			w := pn * prob[i] / float64(s) / batches
			mix.Parts = append(mix.Parts, LengthPart{Spec: "zoo:" + name + "?" + q.Encode(), Seq: l, SrcSeq: src[i] + 1, TgtSeq: tgt[i] + 1, Sentences: s, Weight: w})
			mix.MeanPadded += w * float64(l)
		}
	}
	return mix, nil
}

// Tokens is the tokens a part's batch counts on one GPU: its sentences
// times the target's length for fairseq's token batches (ntokens), else
// times Seq.
func (p LengthPart) Tokens() int {
	if p.TgtSeq > 0 {
		return p.Sentences * p.TgtSeq
	}
	return p.Sentences * p.Seq
}
