package study

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/workloads/zoo"
)

// TestExpectedMaxMixture: the slowest of n draws in closed form: without
// a speed spread, two costs 1 and 2 of probability 1/2 each give 1/4 x 1
// + 3/4 x 2 for n = 2 (the max is 1 only when both draws are) and the
// mean for n = 1; one cost v with a spread sigma gives v (1 + sigma
// E[max of n normals]); a spread of 1e-4 moves the two-cost case by at
// most its order.
func TestExpectedMaxMixture(t *testing.T) {
	for _, c := range []struct {
		v, w  []float64
		n     int
		sigma float64
		want  float64
	}{
		{[]float64{2, 1}, []float64{1, 1}, 2, 0, 1.75},
		{[]float64{1, 2}, []float64{0.5, 0.5}, 1, 0, 1.5},
		{[]float64{1, 2, 3}, []float64{1, 0, 1}, 3, 0, 1*0.125 + 3*0.875},
		{[]float64{5}, []float64{1}, 8, 0.01, 5 * (1 + 0.01*engine.ExpectedMaxNormal(8))},
		{[]float64{5}, []float64{1}, 1, 0.01, 5},
	} {
		got, err := ExpectedMaxMixture(c.v, c.w, c.n, c.sigma)
		if err != nil || !scalar.EqualWithinAbsOrRel(got, c.want, 0, 1e-6) {
			t.Errorf("ExpectedMaxMixture(%v, %v, %d, %g) = %g, %v; want %g", c.v, c.w, c.n, c.sigma, got, err, c.want)
		}
	}
	if got, err := ExpectedMaxMixture([]float64{1, 2}, []float64{1, 1}, 2, 1e-4); err != nil || math.Abs(got-1.75) > 1e-3 {
		t.Errorf("with a spread of 1e-4: %g, %v; want 1.75 within 1e-3", got, err)
	}
	for _, bad := range []struct {
		v, w  []float64
		n     int
		sigma float64
	}{{nil, nil, 2, 0}, {[]float64{1}, []float64{1, 1}, 2, 0}, {[]float64{1}, []float64{1}, 0, 0}, {[]float64{0}, []float64{1}, 2, 0}, {[]float64{1}, []float64{0}, 2, 0}, {[]float64{1}, []float64{1}, 2, -1}} {
		if _, err := ExpectedMaxMixture(bad.v, bad.w, bad.n, bad.sigma); err == nil {
			t.Errorf("ExpectedMaxMixture(%v, %v, %d, %g): no error", bad.v, bad.w, bad.n, bad.sigma)
		}
	}
}

// TestTokenMixBatches: zoo.TokenMixOf's parts are the batches fairseq
// forms: sentences drawn from the mix's lengths (each length's pair
// share, p(l) = w_l s(l) normalised), sorted and cut by make_batches at
// --max-tokens 2560 and 10240 (makeBatches), give batches whose mean
// padded tokens and E[max over 8 GPUs of padded tokens] match the parts'
// (sum w_l s(l) l, and the discrete E[max] over the parts) within 0.5 %:
// a batch at l is drawn with probability w_l and holds s(l) sentences.
func TestTokenMixBatches(t *testing.T) {
	for _, m := range []int{2560, 10240} {
		mix, err := zoo.TokenMixOf("zoo:transformer?lengths=wmt16-en-de&max-tokens="+strconv.Itoa(m), 8)
		if err != nil {
			t.Fatal(err)
		}
		var cum []float64
		var lens []int
		var c, mean float64
		vals := make([]float64, len(mix.Parts))
		ws := make([]float64, len(mix.Parts))
		for i, p := range mix.Parts {
			c += p.Weight * float64(p.Sentences)
			cum = append(cum, c)
			lens = append(lens, p.Seq)
			vals[i] = float64(p.Sentences * p.Seq)
			ws[i] = p.Weight
			mean += p.Weight * vals[i]
		}
		rng := rand.New(rand.NewPCG(1, uint64(m)))
		corpus := make([]int, 2_000_000)
		for i := range corpus {
			x := rng.Float64() * c
			j, _ := slices.BinarySearch(cum, x)
			corpus[i] = lens[min(j, len(lens)-1)]
		}
		slices.Sort(corpus)
		batches := makeBatches(corpus, m, 8)
		var played float64
		for _, b := range batches {
			played += float64(b)
		}
		played /= float64(len(batches))
		if !scalar.EqualWithinRel(played, mean, 0.005) {
			t.Errorf("max-tokens %d: played batches hold %.1f padded tokens on average, the parts %.1f", m, played, mean)
		}
		emax, err := ExpectedMaxMixture(vals, ws, 8, 0)
		if err != nil {
			t.Fatal(err)
		}
		var pmax float64
		const steps = 200_000
		for range steps {
			mx := 0
			for range 8 {
				mx = max(mx, batches[rng.IntN(len(batches))])
			}
			pmax += float64(mx)
		}
		pmax /= steps
		if !scalar.EqualWithinRel(pmax, emax, 0.005) {
			t.Errorf("max-tokens %d: E[max of 8] played %.1f, parts %.1f", m, pmax, emax)
		}
	}
}
