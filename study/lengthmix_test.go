package study_test

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/study"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// mixTol is the tolerance on an expectation computed two ways.
const mixTol = 1e-9

// groupFLOPs is a stats result's forward FLOPs of layer group name.
func groupFLOPs(s *study.WorkloadStats, name string) float64 {
	for _, g := range s.LayerFLOPs {
		if g.Group == name {
			return g.FLOPs
		}
	}
	return 0
}

// TestLengthMixStats: placesim stats of a BERT on LDDL's binned Wikipedia
// data gives the expectation of each figure over the padded lengths, and
// against the same BERT padded to 512: the encoder's FLOPs (alpha s + beta
// s^2 per sequence at padded length s, alpha, beta >= 0) shrink by a
// ratio between E[s]/512 and E[s^2]/512^2; the masked-LM head's GEMMs
// run on the parts' masked positions, 2 P H H + P H + 2 P H V with P =
// batch x predictions (the head's other ops within 5 % of them).
func TestLengthMixStats(t *testing.T) {
	t.Parallel()
	const (
		base   = "zoo:bert?size=base&layers=2&seq=512&training=true&batch=8&framework=pytorch"
		binned = base + "&lengths=wikipedia&bin=64"
		hidden = 768.0
		vocab  = 30522.0
	)
	mix, err := zoo.LengthMixOf(binned)
	if err != nil {
		t.Fatal(err)
	}
	got, err := study.Stats(study.StatsRequest{Inputs: study.Inputs{Workload: binned}})
	if err != nil {
		t.Fatal(err)
	}
	full, err := study.Stats(study.StatsRequest{Inputs: study.Inputs{Workload: base}})
	if err != nil {
		t.Fatal(err)
	}
	if got.LengthMix == nil || got.LengthMix.Parts != len(mix.Parts) || got.LengthMix.Bin != 64 {
		t.Fatalf("stats' length mix %+v, want %d parts of bin 64", got.LengthMix, len(mix.Parts))
	}
	var flops, es, es2, mlm float64
	for _, p := range mix.Parts {
		g, err := zoo.Build(p.Spec)
		if err != nil {
			t.Fatal(err)
		}
		flops += p.Weight * workloads.ComputeStats(g).FLOPs
		s := float64(p.Seq)
		es += p.Weight * s
		es2 += p.Weight * s * s
		pos := float64(8 * p.Predictions)
		mlm += p.Weight * (2*pos*hidden*hidden + pos*hidden + 2*pos*hidden*vocab)
	}
	if !scalar.EqualWithinAbsOrRel(got.FLOPs, flops, 0, mixTol) {
		t.Errorf("stats FLOPs %.8g, want the parts' expectation %.8g", got.FLOPs, flops)
	}
	if !(got.FLOPs < full.FLOPs) {
		t.Errorf("binned FLOPs %.4g not below padded-to-512 %.4g", got.FLOPs, full.FLOPs)
	}
	ratio := groupFLOPs(got, "encoder") / groupFLOPs(full, "encoder")
	if lo, hi := es2/(512*512), es/512; ratio < lo-mixTol || ratio > hi+mixTol {
		t.Errorf("encoder FLOPs binned / padded = %.4f, want in [E[s^2]/512^2, E[s]/512] = [%.4f, %.4f]", ratio, lo, hi)
	}
	if m := groupFLOPs(got, "mlm"); m < mlm*(1-mixTol) || m > 1.05*mlm {
		t.Errorf("masked-LM head FLOPs %.6g, want its GEMMs' expectation %.6g plus at most 5 %%", m, mlm)
	}
}

// TestValidateLengthMix: a validation row on LDDL's binned data simulates
// every padded length and reports batch over the expected step time,
// 1 / sum_i (w_i / throughput_i), the throughputs those of the parts
// simulated as rows of their own.
func TestValidateLengthMix(t *testing.T) {
	t.Parallel()
	const spec = "zoo:bert?size=base&layers=2&seq=512&training=true&batch=8&lengths=wikipedia&bin=128"
	mix, err := zoo.LengthMixOf(spec + "&precision=fp32&framework=pytorch")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(validationHeader)
	fmt.Fprintf(&b, "mix\t%s\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\n", spec)
	for i, p := range mix.Parts {
		fmt.Fprintf(&b, "p%d\t%s\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\n", i, p.Spec)
	}
	s := validateText(t, b.String())
	var inv float64
	for i, p := range mix.Parts {
		r := s.Rows[i+1]
		if r.Failure != "" || !(r.Simulated > 0) {
			t.Fatalf("part %s: %+v", p.Spec, r)
		}
		inv += p.Weight / r.Simulated
	}
	got := s.Rows[0]
	if got.Failure != "" || !scalar.EqualWithinAbsOrRel(got.Simulated, 1/inv, 0, mixTol) {
		t.Fatalf("mix row simulated %g (%s), want 1/sum(w/throughput) = %g", got.Simulated, got.Failure, 1/inv)
	}
	if m := got.LengthMix; m == nil || m.Parts != len(mix.Parts) || m.Bin != 128 || got.Cluster == "" || !strings.Contains(m.Explained, "seq=") {
		t.Errorf("mix row's length mix %+v, cluster %q: want %d parts of bin 128, the explained part's spec and the cluster", m, got.Cluster, len(mix.Parts))
	}
	// shorter padded lengths than 512 on average: faster than padded
	if long := s.Rows[len(s.Rows)-1]; !(got.Simulated > long.Simulated) {
		t.Errorf("mix %g samples/s not above its longest part's %g", got.Simulated, long.Simulated)
	}
}
