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
	const spec = "zoo:transformer?layers=2&hidden=64&heads=2&ff=128&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560"
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
		if v.Get("seq") != strconv.Itoa(part.Seq) || v.Get("batch") != strconv.Itoa(8*s) || v.Has("lengths") || v.Has("max-tokens") || v.Get("layers") != "2" {
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
	} {
		if _, err := TokenMixOf(bad, 8); err == nil {
			t.Errorf("TokenMixOf(%s): no error", bad)
		}
	}
	if _, err := Build("zoo:transformer?max-tokens=2560"); err == nil {
		t.Error("Build with max-tokens= and no lengths=: no error")
	}
	if m, err := TokenMixOf("zoo:transformer?seq=32", 8); m != nil || err != nil {
		t.Errorf("TokenMixOf without lengths= = %v, %v: want nil, nil", m, err)
	}
}
