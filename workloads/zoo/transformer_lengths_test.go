package zoo

import (
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestFairseqSentences: make_batches.cpp's batch under --max-tokens m of
// sentences of l tokens: floor(m/l), cut to a multiple of 8 unless under 8.
func TestFairseqSentences(t *testing.T) {
	for _, c := range []struct{ l, m, want int }{
		{32, 2560, 80},   // 80 fit, a multiple of 8
		{30, 2560, 80},   // 85 fit, cut to 80
		{50, 2560, 48},   // 51 -> 48
		{170, 2560, 8},   // 15 -> 8
		{170, 10240, 56}, // 60 -> 56
		{330, 2560, 7},   // 7 fit: fewer than 8, kept
		{2560, 2560, 1},  // one
		{2561, 2560, 0},  // over the budget
		{16, 10240, 640}, // p037's measured 16-token step
		{256, 10240, 40}, // and its 256-token one
	} {
		if got := FairseqSentences(c.l, c.m); got != c.want {
			t.Errorf("FairseqSentences(%d, %d) = %d, want %d", c.l, c.m, got, c.want)
		}
	}
}

// TestWMT16EnDePairs: the distribution has the published figures it is
// made of: the shares of pairs at most 48, 63 and 73 tokens (MLPerf GNMT
// logs: 3,498,161, 3,866,375 and 3,975,116 of 4,068,191), the buckets'
// shares of the pairs at most 73 tokens (747, 3,208, 2,432, 1,084 and
// 443 of 7,914 TRAIN lines), even within each bin, and a tail over 73
// falling by exp(-r) a token, r = ln(d(58-63)/d(64-73))/8 (0.0695).
func TestWMT16EnDePairs(t *testing.T) {
	p := wmt16EnDePairs()
	cum := func(k int) float64 {
		var c float64
		for i := 0; i <= k && i < len(p); i++ {
			c += p[i]
		}
		return c
	}
	if p[0] != 0 || !scalar.EqualWithinAbs(cum(len(p)-1), 1, weightTol) {
		t.Fatalf("p[0] = %g, sum %g: want 0 and 1", p[0], cum(len(p)-1))
	}
	for _, c := range []struct {
		k    int
		want float64
	}{{48, 3498161.0 / 4068191}, {63, 3866375.0 / 4068191}, {73, 3975116.0 / 4068191}} {
		if got := cum(c.k); !scalar.EqualWithinAbs(got, c.want, weightTol) {
			t.Errorf("P(N <= %d) = %.9f, want %.9f", c.k, got, c.want)
		}
	}
	at73 := 3975116.0 / 4068191
	for _, b := range []struct {
		hi    int
		lines float64
	}{{12, 747}, {27, 3208 + 747}, {42, 2432 + 3208 + 747}, {57, 1084 + 2432 + 3208 + 747}} {
		if got, want := cum(b.hi), b.lines/7914*at73; !scalar.EqualWithinAbs(got, want, weightTol) {
			t.Errorf("P(N <= %d) = %.9f, want %.9f", b.hi, got, want)
		}
	}
	// even within a bin: 13 and 27 alike, 43 and 48 alike
	if !scalar.EqualWithinAbs(p[13], p[27], weightTol) || !scalar.EqualWithinAbs(p[43], p[48], weightTol) || p[48] == p[49] {
		t.Errorf("p[13] %g p[27] %g p[43] %g p[48] %g p[49] %g: want even within bins, a step at 48/49", p[13], p[27], p[43], p[48], p[49])
	}
	d1 := (cum(63) - cum(57)) / 6
	d2 := (cum(73) - cum(63)) / 10
	r := math.Log(d1/d2) / 8
	if !scalar.EqualWithinAbs(r, 0.0695, 5e-4) || !scalar.EqualWithinAbsOrRel(p[75]/p[74], math.Exp(-r), 0, 1e-12) {
		t.Errorf("tail rate %g, p75/p74 %g: want 0.0695 and exp(-rate)", r, p[75]/p[74])
	}
	if tail := 1 - cum(73); !scalar.EqualWithinAbs(tail, 1-at73, weightTol) {
		t.Errorf("tail %g, want %g", tail, 1-at73)
	}
}

// TestTokenMixOf: fairseq's batches of the WMT16 lengths: a part per
// length l = N + 1 (EOS) with a pair share, s(l) sentences a GPU and
// the global batch gpus s(l); the parts' weights are the batches' shares
// p(l)/s(l) normalised; the mean length and the mean batch length are
// the two expectations.
func TestTokenMixOf(t *testing.T) {
	const spec = "zoo:transformer?layers=2&hidden=64&heads=2&ff=128&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560&ratio=equal"
	mix, err := TokenMixOf(spec, 8)
	if err != nil {
		t.Fatal(err)
	}
	p := wmt16EnDePairs()
	var parts int
	var norm, meanL float64
	for n, pn := range p {
		if pn > 0 {
			parts++
			norm += pn / float64(FairseqSentences(n+1, 2560))
			meanL += pn * float64(n+1)
		}
	}
	if len(mix.Parts) != parts || mix.MaxTokens != 2560 || mix.GPUs != 8 || !scalar.EqualWithinAbs(mix.MeanLength, meanL, 1e-9) {
		t.Fatalf("%d parts, max tokens %d, %d GPUs, mean length %g: want %d, 2560, 8, %g", len(mix.Parts), mix.MaxTokens, mix.GPUs, mix.MeanLength, parts, meanL)
	}
	var sum, padded float64
	for _, part := range mix.Parts {
		n := part.Seq - 1
		s := FairseqSentences(part.Seq, 2560)
		if part.Sentences != s || !scalar.EqualWithinAbsOrRel(part.Weight, p[n]/float64(s)/norm, 0, 1e-12) {
			t.Errorf("part %d: sentences %d weight %g, want %d and %g", part.Seq, part.Sentences, part.Weight, s, p[n]/float64(s)/norm)
		}
		_, q, _ := strings.Cut(part.Spec, "?")
		v, _ := url.ParseQuery(q)
		if v.Get("seq") != strconv.Itoa(part.Seq) || v.Has("tgt-seq") || part.SrcSeq != part.Seq || part.TgtSeq != part.Seq || part.Tokens() != s*part.Seq ||
			v.Get("batch") != strconv.Itoa(8*s) || v.Has("lengths") || v.Has("max-tokens") || v.Has("ratio") || v.Get("layers") != "2" {
			t.Errorf("part %d spec %s: want seq=%d batch=%d and the base parameters", part.Seq, part.Spec, part.Seq, 8*s)
		}
		sum += part.Weight
		padded += part.Weight * float64(part.Seq)
	}
	if !scalar.EqualWithinAbs(sum, 1, 1e-12) || !scalar.EqualWithinAbs(mix.MeanPadded, padded, 1e-9) {
		t.Errorf("weights sum %g, mean batch length %g: want 1 and %g", sum, mix.MeanPadded, padded)
	}
	// the graph of a part builds; the mix's spec does not
	if _, err := Build(mix.Parts[len(mix.Parts)/2].Spec); err != nil {
		t.Errorf("part: %v", err)
	}
	if _, err := Build(spec); !errors.Is(err, ErrLengthMix) {
		t.Errorf("Build(mix) = %v, want ErrLengthMix", err)
	}
	// one GPU's mix is LengthMixOf's (stats)
	one, err := LengthMixOf(spec)
	if err != nil || one == nil || one.GPUs != 1 || len(one.Parts) != parts {
		t.Errorf("LengthMixOf = %+v, %v: want the one-GPU token mix", one, err)
	}
	for _, bad := range []string{
		"zoo:transformer?lengths=wmt16-en-de",
		"zoo:transformer?lengths=wmt14&max-tokens=2560",
		"zoo:transformer?lengths=wmt16-en-de&max-tokens=2560&seq=32",
		"zoo:transformer?lengths=wmt16-en-de&max-tokens=2560&batch=80",
		"zoo:transformer?lengths=wmt16-en-de&max-tokens=100",
		"zoo:transformer?max-tokens=2560",
		"zoo:transformer?lengths=wmt16-en-de&max-tokens=2560&ratio=normal",
		"zoo:transformer?lengths=wmt16-en-de&max-tokens=2560&tgt-seq=32",
	} {
		if _, err := TokenMixOf(bad, 8); err == nil {
			t.Errorf("TokenMixOf(%s): no error", bad)
		}
	}
	for _, k := range []string{"max-tokens=2560", "ratio=equal"} {
		if _, err := Build("zoo:transformer?" + k); err == nil || !strings.Contains(err.Error(), "needs lengths=") {
			t.Errorf("Build with %s and no lengths= = %v: want an error asking for lengths=", k, err)
		}
	}
	if m, err := TokenMixOf("zoo:transformer?seq=32", 8); m != nil || err != nil {
		t.Errorf("TokenMixOf without lengths= = %v, %v: want nil, nil", m, err)
	}
}

// TestStratumMean: the conditional mean of a standard normal on an
// equal-probability stratum is the stratum's integral of z phi(z) over
// its probability (a midpoint sum here), and the strata's means average
// to zero.
func TestStratumMean(t *testing.T) {
	var sum float64
	for j := range ratioStrata {
		a, b := float64(j)/ratioStrata, float64(j+1)/ratioStrata
		got := stratumMean(a, b)
		lo, hi := -9.0, 9.0
		if a > 0 {
			lo = math.Sqrt2 * math.Erfinv(2*a-1)
		}
		if b < 1 {
			hi = math.Sqrt2 * math.Erfinv(2*b-1)
		}
		const steps = 200000
		h := (hi - lo) / steps
		var m float64
		for i := range steps {
			z := lo + (float64(i)+0.5)*h
			m += z * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * h
		}
		if want := m / (b - a); !scalar.EqualWithinAbs(got, want, 1e-6) {
			t.Errorf("stratum [%g, %g]: mean %g, want %g", a, b, got, want)
		}
		sum += (b - a) * got
	}
	if !scalar.EqualWithinAbs(sum, 0, 1e-12) {
		t.Errorf("strata means average to %g, want 0", sum)
	}
}

// TestPairSides: the (source, target) lengths of the pairs whose longer
// side is n: at each stratum z the target t = mean n + z sqrt(var n) of a
// source of n; a t at most n keeps the source at n, a longer one is the
// longer side at n with the source n^2 / t; the probabilities sum to 1,
// and the mean ratio is the corpus's de/en token ratio with EOS taken out
// (133,127,280 / 128,385,205).
func TestPairSides(t *testing.T) {
	r := wmt16EnDeRatio
	if want := (137628246.0 - 4500966) / (132886171 - 4500966); !scalar.EqualWithinAbs(r.Mean, want, 1e-12) || !scalar.EqualWithinAbs(r.Mean, 1.0369, 1e-4) {
		t.Errorf("mean ratio %g, want %g (1.0369)", r.Mean, want)
	}
	// k: 146.9 raw bytes a sentence (Hugging Face's Arrow bytes less two
	// 4-byte offsets a pair) over 29.05 subword tokens a sentence
	k := (1373099816.0 - 8*4548885) / (2 * 4548885) / ((132886171.0 + 137628246 - 2*4500966) / (2 * 4500966))
	if !scalar.EqualWithinAbs(k, 5.057, 1e-3) || !scalar.EqualWithinAbs(r.VarPerToken, 6.8/k, 1e-12) || !scalar.EqualWithinAbs(r.Stddev(28.5), math.Sqrt(6.8/k/28.5), 1e-12) {
		t.Errorf("characters a token %g, variance per token %g, spread at 28.5 tokens %g: want 5.057, %g and %g", k, r.VarPerToken, r.Stddev(28.5), 6.8/k, math.Sqrt(6.8/k/28.5))
	}
	for _, n := range []int{1, 2, 5, 30, 73, 150} {
		src, tgt, prob := pairSides(n, r)
		want := map[[2]int]float64{}
		for j := range ratioStrata {
			a, b := float64(j)/ratioStrata, float64(j+1)/ratioStrata
			tt := r.Mean*float64(n) + stratumMean(a, b)*math.Sqrt(r.VarPerToken*float64(n))
			k := [2]int{n, max(1, int(math.Round(tt)))}
			if tt > float64(n) {
				k = [2]int{min(n, max(1, int(math.Round(float64(n*n)/tt)))), n}
			}
			want[k] += b - a
		}
		if len(src) != len(want) {
			t.Errorf("n %d: %d pairs, want %d", n, len(src), len(want))
		}
		var sum float64
		for i := range src {
			if max(src[i], tgt[i]) != n || min(src[i], tgt[i]) < 1 || !scalar.EqualWithinAbs(prob[i], want[[2]int{src[i], tgt[i]}], 1e-12) {
				t.Errorf("n %d: pair (%d, %d) probability %g, want longer side %d and %g", n, src[i], tgt[i], prob[i], n, want[[2]int{src[i], tgt[i]}])
			}
			sum += prob[i]
		}
		if !scalar.EqualWithinAbs(sum, 1, 1e-12) {
			t.Errorf("n %d: probabilities sum to %g", n, sum)
		}
	}
	// at 30 tokens the strata reach both sides of the source's length
	src, tgt, _ := pairSides(30, r)
	var shorter, longer bool
	for i := range src {
		shorter = shorter || tgt[i] < src[i]
		longer = longer || tgt[i] > src[i]
	}
	if !shorter || !longer {
		t.Errorf("30 tokens: pairs %v / %v, want targets both shorter and longer than their sources", src, tgt)
	}
}

// TestTokenMixRatio: under ratio=gale-church (the default of
// lengths=wmt16-en-de) a length's batches split by pairSides: each part
// runs the encoder at its source and the decoder at its target (seq= and
// tgt-seq=, EOS included), the longer of the two the batch's length its
// sentences are cut by, its weight the length's batch share times the
// pair's probability, and it counts its targets' tokens.
func TestTokenMixRatio(t *testing.T) {
	const spec = "zoo:transformer?layers=2&hidden=64&heads=2&ff=128&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560"
	mix, err := TokenMixOf(spec, 8)
	if err != nil {
		t.Fatal(err)
	}
	if mix.Ratio != RatioGaleChurch || !strings.Contains(mix.RatioSource, "Gale and Church") {
		t.Errorf("ratio %q (%q), want gale-church with its source", mix.Ratio, mix.RatioSource)
	}
	eq, err := TokenMixOf(spec+"&ratio=equal", 8)
	if err != nil {
		t.Fatal(err)
	}
	byLen := map[int]float64{}
	for _, p := range eq.Parts {
		byLen[p.Seq] = p.Weight
	}
	got := map[int]float64{}
	var differ int
	for _, p := range mix.Parts {
		_, q, _ := strings.Cut(p.Spec, "?")
		v, _ := url.ParseQuery(q)
		ts := p.SrcSeq
		if v.Has("tgt-seq") {
			ts, _ = strconv.Atoi(v.Get("tgt-seq"))
			differ++
		}
		if v.Get("seq") != strconv.Itoa(p.SrcSeq) || ts != p.TgtSeq || max(p.SrcSeq, p.TgtSeq) != p.Seq ||
			p.Sentences != FairseqSentences(p.Seq, 2560) || p.Tokens() != p.Sentences*p.TgtSeq || v.Has("ratio") {
			t.Errorf("part %+v: want seq=source, tgt-seq=target, the longer the batch length, targets' tokens", p)
		}
		src, tgt, prob := pairSides(p.Seq-1, wmt16EnDeRatio)
		for i := range src {
			if src[i]+1 == p.SrcSeq && tgt[i]+1 == p.TgtSeq && !scalar.EqualWithinAbsOrRel(p.Weight, byLen[p.Seq]*prob[i], 1e-15, 1e-12) {
				t.Errorf("part %+v: weight %g, want %g x %g", p, p.Weight, byLen[p.Seq], prob[i])
			}
		}
		got[p.Seq] += p.Weight
	}
	for l, w := range byLen {
		if !scalar.EqualWithinAbsOrRel(got[l], w, 1e-15, 1e-12) {
			t.Errorf("length %d: parts' weights sum to %g, the equal mix's %g", l, got[l], w)
		}
	}
	if differ < len(byLen) || !scalar.EqualWithinAbs(mix.MeanPadded, eq.MeanPadded, 1e-9) {
		t.Errorf("%d parts with a target of its own over %d lengths; mean batch length %g vs %g: want at least one a length, equal means", differ, len(byLen), mix.MeanPadded, eq.MeanPadded)
	}
	if _, err := Build(mix.Parts[len(mix.Parts)/2].Spec); err != nil {
		t.Errorf("part: %v", err)
	}
}
