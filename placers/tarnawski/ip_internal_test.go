package tarnawski

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/placers/mip/miptest"
)

// ipTol is the relative tolerance on objectives CBC returns (its default
// integrality and feasibility tolerances are 1e-6 and 1e-7).
const ipTol = 1e-5

// TestThroughputIPBruteForce checks both throughput IPs, solved to
// optimality, against exhaustive search on small random DAGs: the
// contiguous IP against the best contiguous split (and the DP), the
// non-contiguous IP against the best split of any shape.
func TestThroughputIPBruteForce(t *testing.T) {
	miptest.Require(t)
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := randomDAG(seed, 7, seed%3 == 0)
			req := tinyRequest(t, g, 2, 1, 5<<30)
			for _, contig := range []bool{true, false} {
				m, err := maxload.New(req)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteForce(m, contig)
				p, err := newIPText(contig, placers.Options{"gap": "0", "time-limit": "60", "pipeline": "none"})
				if err != nil {
					t.Fatal(err)
				}
				_, rep, err := p.PlaceReport(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if !scalar.EqualWithinAbsOrRel(rep.MaxLoad, want, 1e-12, ipTol) {
					t.Errorf("contiguous=%v: IP %.9g, brute force %.9g (%v)", contig, rep.MaxLoad, want, rep.Notes)
				}
			}
		})
	}
}

// latencyOf evaluates the latency model of Appendix A for a contiguous
// assignment (model devices; all CPUs act as one pool of enough cores): an
// accelerator's part starts when every input it receives is ready, takes
// its in-transfers, compute and out-transfers; its ops' outputs are ready
// when it finishes; a CPU op starts when its inputs are ready.
func latencyOf(m *maxload.Model, assign []int) float64 {
	g := m.Graph
	n := len(g.Ops)
	lat := make([]float64, n)
	for changed, iter := true, 0; changed && iter < 4*n+8; iter++ {
		changed = false
		set := func(v int, x float64) {
			if x > lat[v]+1e-15 {
				lat[v], changed = x, true
			}
		}
		for v := 0; v < n; v++ {
			if m.IsAcc(assign[v]) {
				continue
			}
			ready := 0.0
			for _, eid := range g.In(v) {
				ready = math.Max(ready, lat[g.Edges[eid].From])
			}
			set(v, ready+m.CPUTime[v])
		}
		for d := 0; d < m.K(); d++ {
			start, work := 0.0, 0.0
			for v := 0; v < n; v++ {
				if assign[v] == d {
					work += m.AccTime[v]
				}
			}
			for _, h := range m.Comm {
				r := int(h.Ops[0])
				in, out := false, false
				for _, s := range h.Ops[1:] {
					in = in || (assign[s] == d && assign[r] != d)
					out = out || (assign[s] != d && assign[r] == d)
				}
				if in {
					start = math.Max(start, lat[r])
					work += h.Cost
				}
				if out {
					work += h.Cost
				}
			}
			for v := 0; v < n; v++ {
				if assign[v] == d {
					set(v, start+work)
				}
			}
		}
	}
	total := 0.0
	for _, l := range lat {
		total = math.Max(total, l)
	}
	return total
}

// TestLatencyIPBruteForce checks the latency IP (q = 1, Figure 5) against
// exhaustive search over contiguous splits with the model's latency.
func TestLatencyIPBruteForce(t *testing.T) {
	miptest.Require(t)
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := randomDAG(seed+20, 6, false)
			req := tinyRequest(t, g, 2, 1, 64<<30)
			m, err := maxload.New(req)
			if err != nil {
				t.Fatal(err)
			}
			reach := reachability(g)
			n := len(g.Ops)
			assign := make([]int, n)
			best := math.Inf(1)
			var rec func(int)
			rec = func(i int) {
				if i == n {
					for d := 0; d < m.K(); d++ {
						in := make([]bool, n)
						for op, x := range assign {
							in[op] = x == d
						}
						if !contiguous(reach, in) {
							return
						}
					}
					best = math.Min(best, latencyOf(m, assign))
					return
				}
				for d := 0; d <= m.K(); d++ {
					assign[i] = d
					rec(i + 1)
				}
			}
			rec(0)
			p, err := newIPText(true, placers.Options{"objective": "latency", "gap": "0", "time-limit": "60"})
			if err != nil {
				t.Fatal(err)
			}
			plan, rep, err := p.PlaceReport(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinAbsOrRel(rep.Value, best, 1e-12, ipTol) {
				t.Errorf("latency IP %.9g, brute force %.9g (%v)", rep.Value, best, rep.Notes)
			}
			if got := latencyOf(m, m.Assignment(plan)); !scalar.EqualWithinAbsOrRel(got, rep.Value, 1e-12, ipTol) {
				t.Errorf("the IP's split has latency %.9g, the IP says %.9g", got, rep.Value)
			}
		})
	}
}

// TestLatencyIPNonContiguous checks the q-slot latency IP (Figure 6): with
// two subgraphs per accelerator it can only do as well or better than with
// one, and the split it returns is valid.
func TestLatencyIPNonContiguous(t *testing.T) {
	miptest.Require(t)
	g := randomDAG(23, 6, false)
	req := tinyRequest(t, g, 2, 1, 64<<30)
	run := func(contig bool, opts placers.Options) *placers.Report {
		t.Helper()
		p, err := newIPText(contig, opts)
		if err != nil {
			t.Fatal(err)
		}
		plan, rep, err := p.PlaceReport(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.Validate(g, req.Cluster); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	one := run(true, placers.Options{"objective": "latency", "gap": "0", "time-limit": "60"})
	two := run(false, placers.Options{"objective": "latency", "gap": "0", "time-limit": "60", "slots": "2"})
	t.Logf("latency with one subgraph per accelerator %.6f ms, with two %.6f ms", one.Value*1e3, two.Value*1e3)
	if two.Value > one.Value*(1+ipTol) {
		t.Errorf("two slots %.9g worse than one %.9g", two.Value, one.Value)
	}
}

// newIPText makes tarnawski-ip (contig) or tarnawski-ip-noncontig from
// option text, as the registry does.
func newIPText(contig bool, opts placers.Options) (*IP, error) {
	f := placers.Typed(NewIPNonContig)
	if contig {
		f = placers.Typed(NewIP)
	}
	p, err := f(opts)
	if err != nil {
		return nil, err
	}
	return p.(*IP), nil
}
