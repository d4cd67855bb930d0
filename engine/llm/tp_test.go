package llm

import (
	"math"
	"testing"

	"placesim/workloads/zoo"
)

// The overlap formulas of tp.go on hand-worked cases.
func TestTPOverlapPieces(t *testing.T) {
	const tol = 1e-12
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		// communication shorter than the GEMM: only the stolen SMs
		{"beside hidden", beside(1, 4, 12, 132), 12.0 / 132},
		// longer: what sticks out
		{"beside sticks out", beside(5, 4, 12, 132), 1},
		{"beside no SM count", beside(1, 4, 12, 0), 0},
		// ring exchange over 4 ranks: 3 steps of c/3 beside w/4 chunks
		{"ring hidden", ringExchange(0.3, 1, 1, 4), 0},
		{"ring bound by comm", ringExchange(3, 1, 1, 4), 3 + 0.25 - 1},
		{"ring split overhead", ringExchange(0, 1, 1.2, 4), 0.2},
		// pipelined reduce-scatter, 4 splits, no SM margin: the last
		// chunk's reduce-scatter is exposed
		{"pipeline hidden", pipelinedRS(1, 4, 4, 4, 0, 0), 0.25},
		{"pipeline bound by comm", pipelinedRS(8, 4, 4, 4, 0, 0), 1 + 8 - 4},
		// with 33 of 132 SMs kept off the GEMM: 4/3 the GEMM time
		{"pipeline margin", pipelinedRS(1, 3, 3, 4, 33, 132), 3*132.0/99 + 0.25 - 3},
	} {
		if math.Abs(c.got-c.want) > tol {
			t.Errorf("%s: %.6g, want %.6g", c.name, c.got, c.want)
		}
	}
}

// Megatron-LM hides the backward's column-parallel all-gather and
// reduce-scatter behind the dgrad and wgrad GEMMs; Transformer Engine's
// userbuffers hide the forward's too. Exposed TP time falls in that
// order, and the iteration with it.
func TestTPCommOverlap(t *testing.T) {
	const llama = "zoo:llama3.1-70b?layers=8&seq=8192"
	j := job(t, llama, "tp=4,pp=2,dp=1,sp,mbs=1,gbs=8", "dgx-h100")
	c := newCoster(j, 0, newCollMemo(j.Cluster))
	c.kind = &j.Cluster.Devices[0].Kind
	pc, err := c.part(zoo.PartAttention)
	if err != nil {
		t.Fatal(err)
	}
	f, b := pc.fwd.exposed[CommTP], pc.bwd.exposed[CommTP]
	if !(f > 0 && b > 0 && b < f) {
		t.Errorf("without userbuffers: exposed TP forward %.3g s, backward %.3g s: want 0 < backward < forward (the backward's column-parallel collectives hide behind its GEMMs)", f, b)
	}
	plain := sim(t, llama, "tp=4,pp=2,dp=1,sp,mbs=1,gbs=8")
	ub := sim(t, llama, "tp=4,pp=2,dp=1,sp,tpoverlap,mbs=1,gbs=8")
	if !(ub.Exposed[CommTP] < 0.5*plain.Exposed[CommTP]) || !(ub.IterationTime < plain.IterationTime) {
		t.Errorf("tpoverlap: exposed TP %.4f s, iteration %.4f s; without %.4f s, %.4f s: want less than half the exposure and a shorter iteration",
			ub.Exposed[CommTP], ub.IterationTime, plain.Exposed[CommTP], plain.IterationTime)
	}
	if ub.Exposed[CommTP] <= 0 {
		t.Errorf("tpoverlap: exposed TP %.4g s: the last reduce-scatter split and the stolen SMs are never hidden", ub.Exposed[CommTP])
	}
}
