package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/workloads/zoo"
)

// loadTol is the relative tolerance between loads tracked move by move
// and loads summed from scratch (they differ by rounding only).
const loadTol = 1e-9

// TestDescendIsBestImprovement replays local-search's descent one move at
// a time and holds each move against every single-unit move scored from
// scratch (maxload.Model.Loads): the tracked loads match, the move taken
// improves, no move has a key below it by more than rounding, and at the
// end no move improves (a local optimum of the paper's neighbourhood).
func TestDescendIsBestImprovement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ workload, cluster string }{
		{"zoo:bert?layers=3&training=true", "8xH100-nvswitch"},
		{"zoo:bert?layers=3&training=true", "6xacc+1cpu"},
	} {
		t.Run(tc.workload+"/"+tc.cluster, func(t *testing.T) {
			t.Parallel()
			um := contractedModel(t, tc.workload, tc.cluster)
			start, nr := randomStart(um, rand.New(rand.NewPCG(1, 0x10ca1)))
			if nr != nil {
				t.Fatalf("no room for unit %d", nr.unit)
			}
			assign := append([]int(nil), start...)
			ls := &LocalSearch{maxMoves: 1}
			for step := 0; ; step++ {
				loads, _ := um.Loads(assign)
				cur := key(loads)
				best := bruteBest(um, assign, cur)
				n, err := ls.descend(t.Context(), um, assign)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					if best[0] < cur[0]*(1-1e-9) {
						t.Fatalf("step %d: descent stops at %v, a move reaches %v", step, cur, best)
					}
					if step < 3 {
						t.Fatalf("descent took only %d moves: the case tests nothing", step)
					}
					// in one call (state carried from move to move) the
					// descent ends at a local optimum too
					all := append([]int(nil), start...)
					if _, err := (&LocalSearch{maxMoves: 1 << 20}).descend(t.Context(), um, all); err != nil {
						t.Fatal(err)
					}
					end, _ := um.Loads(all)
					if k := key(end); bruteBest(um, all, k) != k {
						t.Fatalf("one-call descent stops at %v, a move reaches %v", k, bruteBest(um, all, k))
					}
					return
				}
				after, _ := um.Loads(assign)
				k := key(after)
				if !scalar.EqualWithinRel(k[0], best[0], loadTol) || k[1] != best[1] {
					t.Fatalf("step %d: move reaches %v, the best move %v", step, k, best)
				}
				tr := newTracker(um, append([]int(nil), assign...))
				for d := range after {
					if !scalar.EqualWithinAbsOrRel(tr.load[d], after[d], 1e-15, loadTol) {
						t.Fatalf("step %d: device %d tracked load %g, from scratch %g", step, d, tr.load[d], after[d])
					}
				}
			}
		})
	}
}

// bruteBest is the least key any single-unit move within memory reaches
// from assign, scored from scratch (cur when none improves).
func bruteBest(um *maxload.Model, assign []int, cur [2]float64) [2]float64 {
	nd := um.K() + um.L()
	_, mem := um.Loads(assign)
	best := cur
	for u, f := range assign {
		for d := 0; d < nd; d++ {
			if d == f || !fits(um, u, d, mem[d]+um.Size[u]) {
				continue
			}
			assign[u] = d
			loads, _ := um.Loads(assign)
			assign[u] = f
			if k := key(loads); improves(k, cur) && less(k, best) {
				best = k
			}
		}
	}
	return best
}

func contractedModel(t *testing.T, workload, cluster string) *maxload.Model {
	t.Helper()
	g, err := zoo.Build(workload)
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewPreset(cluster)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := maxload.New(&placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	unitOf, units := placers.Groups(g)
	return m.Contract(unitOf, len(units))
}

// almostOn reports whether u (not on d) is the one member of some
// hyperedge missing from d: moving it there can uncut that hyperedge.
func (t *tracker) almostOn(u, d int) bool {
	for _, h := range t.m.CommOf[u] {
		if n := len(t.m.Comm[h].Ops); n >= 2 && int(t.cnt[int(h)*t.nd+d]) == n-1 {
			return true
		}
	}
	return false
}

// TestTrackerMoves makes random moves and holds the tracker's incremental
// state (loads, member counts, deltas, outsider sets, the tree of least
// deltas) against a tracker built from scratch on the same assignment.
func TestTrackerMoves(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cluster string
		lw      int // words of units per leaf of the tree
	}{
		{"6xacc+1cpu", 1},
		{"6xacc+1cpu", 2},
	} {
		t.Run(fmt.Sprintf("%s/lw=%d", tc.cluster, tc.lw), func(t *testing.T) {
			t.Parallel()
			um := contractedModel(t, "zoo:bert?layers=12&training=true", tc.cluster)
			rng := rand.New(rand.NewPCG(7, 7))
			start, nr := randomStart(um, rng)
			if nr != nil {
				t.Fatalf("no room for unit %d", nr.unit)
			}
			tr := newTrackerLeaf(um, start, tc.lw)
			if tr.leaves < 4 {
				t.Fatalf("tree of %d leaves: the case tests no inner node", tr.leaves)
			}
			for step := 0; step < 300; step++ {
				u := rng.IntN(len(um.Size))
				d := rng.IntN(tr.nd)
				if d == tr.assign[u] {
					continue
				}
				tr.move(u, d)
				fresh := newTrackerLeaf(um, append([]int(nil), tr.assign...), tc.lw)
				for x := range tr.load {
					if !scalar.EqualWithinAbsOrRel(tr.load[x], fresh.load[x], 1e-15, loadTol) {
						t.Fatalf("step %d: device %d load %g, from scratch %g", step, x, tr.load[x], fresh.load[x])
					}
				}
				for v := range um.Size {
					if tr.from[v] != fresh.from[v] {
						t.Fatalf("step %d: unit %d delta from its device %g, from scratch %g", step, v, tr.from[v], fresh.from[v])
					}
					for x := 0; x < tr.nd; x++ {
						if i := v*tr.nd + x; tr.to[i] != fresh.to[i] {
							t.Fatalf("step %d: unit %d delta onto %d %g, from scratch %g", step, v, x, tr.to[i], fresh.to[i])
						}
						in := tr.out[x][v/64]&(1<<(v%64)) != 0
						if want := tr.assign[v] != x && tr.almostOn(v, x); in != want {
							t.Fatalf("step %d: unit %d in outsiders of device %d: %v, want %v", step, v, x, in, want)
						}
					}
				}
				if !slices.Equal(tr.cnt, fresh.cnt) {
					t.Fatalf("step %d: member counts differ from scratch", step)
				}
				if i := slices.IndexFunc(tr.mins, func(v float64) bool { return math.IsNaN(v) }); i >= 0 {
					t.Fatalf("step %d: NaN in the tree at %d", step, i)
				}
				if !slices.Equal(tr.mins, fresh.mins) {
					t.Fatalf("step %d: tree of least deltas differs from scratch", step)
				}
			}
		})
	}
}

// TestTreeIsLeastDelta holds every node of a fresh tracker's tree against
// the least deltas of the units below it, found unit by unit.
func TestTreeIsLeastDelta(t *testing.T) {
	t.Parallel()
	um := contractedModel(t, "zoo:bert?layers=12&training=true", "6xacc+1cpu")
	start, nr := randomStart(um, rand.New(rand.NewPCG(3, 3)))
	if nr != nil {
		t.Fatalf("no room for unit %d", nr.unit)
	}
	tr := newTrackerLeaf(um, start, 1)
	finite := 0
	for x := 1; x < 2*tr.leaves; x++ {
		// the units below node x
		lo, width := x, 1
		for lo < tr.leaves {
			lo, width = 2*lo, 2*width
		}
		lo -= tr.leaves
		for c := range 2 {
			for f := 0; f < tr.nd; f++ {
				want := make([]float64, tr.nd+1)
				for i := range want {
					want[i] = math.Inf(1)
				}
				for u := lo * 64; u < min((lo+width)*64, len(start)); u++ {
					if start[u] != f || tr.class(u) != c {
						continue
					}
					want[0] = math.Min(want[0], tr.deltaFrom(u, f))
					for d := 0; d < tr.nd; d++ {
						if d != f {
							want[1+d] = math.Min(want[1+d], tr.deltaTo(u, d))
						}
					}
				}
				o := tr.off(x, c, f)
				if got := tr.mins[o : o+tr.nd+1]; !slices.Equal(got, want) {
					t.Fatalf("node %d class %d device %d: least deltas %v, unit by unit %v", x, c, f, got, want)
				}
				if !math.IsInf(want[0], 1) {
					finite++
				}
			}
		}
	}
	if finite == 0 {
		t.Fatal("every node empty: the case tests nothing")
	}
}
