package zoo

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// weightTol is the tolerance on probabilities computed two ways.
const weightTol = 1e-12

// TestWikipediaLengths: the histogram as transcribed has the two figures
// its publication states (graphcore/examples packedBERT README): 16,279,552
// sequences and a theoretical packing speed-up, 512 over the mean length,
// of 2.0013 (printed to 4 decimals).
func TestWikipediaLengths(t *testing.T) {
	var n, sum int64
	for i, c := range wikipedia512 {
		n += c
		sum += c * int64(i+1)
	}
	if n != 16279552 {
		t.Errorf("histogram holds %d sequences, the README packs 16279552", n)
	}
	if r := 512 / (float64(sum) / float64(n)); math.Abs(r-2.0013) > 0.00005 {
		t.Errorf("512 / mean length = %.5f, the README's theoretical limit is 2.0013", r)
	}
}

// TestBinnedLengthsClosedForm: on a tiny distribution the parts are the
// closed form of LDDL's binning. Lengths 4 (a samples), 12 (b) and 20
// (c), bins of 16 tokens, batches of B: bin 0 (a+b samples) is picked with
// probability (a+b)/N; its batch is padded to 8 when all B samples are
// 4 tokens long, probability (a/(a+b))^B, else to 16; bin 1 (only 20-token
// samples) with probability c/N, padded to 24. Masked positions: max(1,
// round(0.15 L)) averaged over the bin's samples, (a max(1, round(0.6)) +
// b round(1.8)) / (a+b) = (a + 2b)/(a+b) rounded, and round(3.0) = 3.
func TestBinnedLengthsClosedForm(t *testing.T) {
	const a, b, c, batch = 3.0, 1.0, 4.0, 2
	counts := make([]int64, 32)
	counts[4-1], counts[12-1], counts[20-1] = a, b, c
	parts, mean, err := binnedLengths(counts, 16, batch)
	if err != nil {
		t.Fatal(err)
	}
	n := a + b + c
	q := math.Pow(a/(a+b), batch)
	want := []LengthPart{
		{Bin: 0, Seq: 8, Predictions: int(math.Round((a + 2*b) / (a + b))), Weight: (a + b) / n * q},
		{Bin: 0, Seq: 16, Predictions: int(math.Round((a + 2*b) / (a + b))), Weight: (a + b) / n * (1 - q)},
		{Bin: 1, Seq: 24, Predictions: 3, Weight: c / n},
	}
	if len(parts) != len(want) {
		t.Fatalf("parts %+v, want %+v", parts, want)
	}
	for i, w := range want {
		p := parts[i]
		if p.Bin != w.Bin || p.Seq != w.Seq || p.Predictions != w.Predictions || !scalar.EqualWithinAbsOrRel(p.Weight, w.Weight, weightTol, weightTol) {
			t.Errorf("part %d %+v, want %+v", i, p, w)
		}
	}
	if wantMean := (4*a + 12*b + 20*c) / n; !scalar.EqualWithinAbsOrRel(mean, wantMean, weightTol, weightTol) {
		t.Errorf("mean length %g, want %g", mean, wantMean)
	}
	// one bin of the whole length: the batch's longest alone sets the length
	parts, _, err = binnedLengths(counts, 32, 1)
	if err != nil {
		t.Fatal(err)
	}
	var e float64
	for _, p := range parts {
		e += p.Weight * float64(p.Seq)
	}
	if want := (8*a + 16*b + 24*c) / n; !scalar.EqualWithinAbsOrRel(e, want, weightTol, weightTol) {
		t.Errorf("unbinned, batch 1: expected padded length %g, want %g", e, want)
	}
}

// TestLengthMixOf: the Wikipedia mix's probabilities sum to 1, its parts
// build, binning shortens the expected padded length (64-token bins: 279
// tokens for the 256.8-token mean; not binned, a batch of 32 is almost
// always padded to 512), and bad parameters are refused naming the valid
// ones.
func TestLengthMixOf(t *testing.T) {
	spec := "zoo:bert?size=base&layers=1&seq=512&batch=32&lengths=wikipedia"
	for _, tc := range []struct {
		bin      string
		lo, hi   float64 // expected padded length
		minParts int
	}{
		{"&bin=64", 272, 288, 8},
		{"", 511, 512, 1},
	} {
		m, err := LengthMixOf(spec + tc.bin)
		if err != nil {
			t.Fatal(err)
		}
		var w float64
		for _, p := range m.Parts {
			w += p.Weight
			if p.Seq%8 != 0 || p.Seq < 8 || p.Seq > 512 {
				t.Errorf("part %+v: padded length not a multiple of 8 in [8, 512]", p)
			}
		}
		if !scalar.EqualWithinAbsOrRel(w, 1, weightTol, weightTol) {
			t.Errorf("bin%s: weights sum to %.15g, want 1", tc.bin, w)
		}
		if m.MeanPadded < tc.lo || m.MeanPadded > tc.hi || len(m.Parts) < tc.minParts {
			t.Errorf("bin%s: mean padded length %.1f over %d parts, want [%g, %g] over >= %d", tc.bin, m.MeanPadded, len(m.Parts), tc.lo, tc.hi, tc.minParts)
		}
		if _, err := Build(m.Parts[len(m.Parts)-1].Spec); err != nil {
			t.Errorf("part %s: %v", m.Parts[len(m.Parts)-1].Spec, err)
		}
	}
	// without batch=, the mix's batch is the one Build gives its parts
	if m, err := LengthMixOf("bert?size=base&layers=1&seq=512&lengths=wikipedia"); err != nil {
		t.Error(err)
	} else if g, err := Build(m.Parts[0].Spec); err != nil {
		t.Error(err)
	} else if g.Batch != m.Batch {
		t.Errorf("default batch: mix %d, its part builds batch %d", m.Batch, g.Batch)
	}
	if m, err := LengthMixOf("zoo:bert?seq=512"); m != nil || err != nil {
		t.Errorf("a spec without lengths=: %+v, %v; want nil, nil", m, err)
	}
	for _, tc := range []struct{ spec, want string }{
		{"bert?seq=128&lengths=wikipedia", "needs seq=512"},
		{"bert?lengths=wikipedia", "needs seq=512"},
		{"bert?seq=512&lengths=wikipedia&bin=48", "bin=\"48\" (valid: a divisor of seq 512"},
		{"bert?seq=512&lengths=books", "lengths=\"books\" (valid: wikipedia)"},
		{"bert?seq=512&lengths=wikipedia&predictions=80", "drop predictions="},
		{"gpt?seq=512&lengths=wikipedia", "zoo:bert and zoo:transformer only"},
	} {
		if _, err := LengthMixOf(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LengthMixOf(%s): error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
	if _, err := Build("bert?seq=512&lengths=wikipedia&bin=64"); !errors.Is(err, ErrLengthMix) {
		t.Errorf("Build of a length mix: %v, want ErrLengthMix", err)
	}
	if _, err := Build("bert?seq=512&bin=64"); err == nil || !strings.Contains(err.Error(), "bin= needs lengths=") {
		t.Errorf("Build with bin= alone: %v, want an error naming lengths=", err)
	}
}

// TestMaskedPositions: LDDL's max(1, round(0.15 L)), Python's round
// (halves to even): 77 at 512 tokens, 2 at 10 (1.5), 1 at 5 (0.75).
func TestMaskedPositions(t *testing.T) {
	for l, want := range map[int]int{512: 77, 10: 2, 5: 1, 1: 1, 256: 38} {
		if got := maskedPositions(l); got != want {
			t.Errorf("maskedPositions(%d) = %d, want %d", l, got, want)
		}
	}
}
