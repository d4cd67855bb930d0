package mip_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers/mip"
	"placesim/placers/mip/miptest"
)

// tol is the tolerance on objective values CBC returns.
const tol = 1e-6

// knapsack builds max sum(v_i x_i) s.t. sum(w_i x_i) <= cap, x binary.
func knapsack(v, w []float64, cap float64) (*mip.Model, []mip.Var) {
	m := mip.NewModel("knapsack")
	m.Maximize = true
	var xs []mip.Var
	var obj, row []mip.Term
	for i := range v {
		x := m.AddBinary(fmt.Sprintf("take[%d]", i))
		xs = append(xs, x)
		obj = append(obj, mip.Term{Var: x, Coef: v[i]})
		row = append(row, mip.Term{Var: x, Coef: w[i]})
	}
	m.SetObjective(obj)
	m.AddConstraint("capacity", row, mip.LE, cap)
	return m, xs
}

func bruteKnapsack(v, w []float64, cap float64) float64 {
	best := 0.0
	for mask := 0; mask < 1<<len(v); mask++ {
		var sv, sw float64
		for i := range v {
			if mask&(1<<i) != 0 {
				sv += v[i]
				sw += w[i]
			}
		}
		if sw <= cap && sv > best {
			best = sv
		}
	}
	return best
}

// minMaxLoad builds: assign jobs to machines (binary x[j][i]), minimise the
// largest machine load z (continuous).
func minMaxLoad(p []float64, machines int) (*mip.Model, [][]mip.Var, mip.Var) {
	m := mip.NewModel("min max load")
	z := m.AddContinuous("z", 0, math.Inf(1))
	x := make([][]mip.Var, len(p))
	for j := range p {
		var one []mip.Term
		for i := 0; i < machines; i++ {
			x[j] = append(x[j], m.AddBinary(fmt.Sprintf("x_%d_%d", j, i)))
			one = append(one, mip.Term{Var: x[j][i], Coef: 1})
		}
		m.AddConstraint(fmt.Sprintf("assign_%d", j), one, mip.EQ, 1)
	}
	for i := 0; i < machines; i++ {
		row := []mip.Term{{Var: z, Coef: -1}}
		for j := range p {
			row = append(row, mip.Term{Var: x[j][i], Coef: p[j]})
		}
		m.AddConstraint(fmt.Sprintf("load_%d", i), row, mip.LE, 0)
	}
	m.SetObjective([]mip.Term{{Var: z, Coef: 1}})
	return m, x, z
}

func bruteMinMax(p []float64, machines int) float64 {
	best := math.Inf(1)
	n := len(p)
	assign := make([]int, n)
	var rec func(j int)
	load := make([]float64, machines)
	rec = func(j int) {
		if j == n {
			mx := 0.0
			for _, l := range load {
				mx = math.Max(mx, l)
			}
			best = math.Min(best, mx)
			return
		}
		for i := 0; i < machines; i++ {
			assign[j] = i
			load[i] += p[j]
			rec(j + 1)
			load[i] -= p[j]
		}
	}
	rec(0)
	return best
}

func TestSolveSmall(t *testing.T) {
	miptest.Require(t)
	rng := rand.New(rand.NewPCG(1, 2))
	v, w := make([]float64, 12), make([]float64, 12)
	for i := range v {
		v[i] = float64(1 + rng.IntN(50))
		w[i] = float64(1 + rng.IntN(30))
	}
	p := []float64{7.5, 3.25, 9, 4, 6.5, 2, 8, 5.75}
	for _, format := range []mip.Format{mip.LP, mip.MPS} {
		t.Run("knapsack/"+string(format), func(t *testing.T) {
			m, _ := knapsack(v, w, 60)
			sol, err := mip.Solve(context.Background(), m, mip.Options{Format: format})
			if err != nil {
				t.Fatal(err)
			}
			want := bruteKnapsack(v, w, 60)
			if sol.Status != mip.Optimal || !scalar.EqualWithinAbsOrRel(sol.Objective, want, tol, tol) {
				t.Fatalf("status %s objective %g, brute force %g", sol.Status, sol.Objective, want)
			}
			if err := m.Check(sol.Values, tol); err != nil {
				t.Fatal(err)
			}
			if sol.Log == "" || !strings.Contains(sol.Command, "cbc") {
				t.Fatal("solver log or command not kept")
			}
		})
		t.Run("min-max-load/"+string(format), func(t *testing.T) {
			m, _, z := minMaxLoad(p, 3)
			sol, err := mip.Solve(context.Background(), m, mip.Options{Format: format})
			if err != nil {
				t.Fatal(err)
			}
			want := bruteMinMax(p, 3)
			if !scalar.EqualWithinAbsOrRel(sol.Value(z), want, tol, tol) || !scalar.EqualWithinAbsOrRel(sol.Objective, want, tol, tol) {
				t.Fatalf("z = %g, objective %g, brute force %g", sol.Value(z), sol.Objective, want)
			}
			if err := m.Check(sol.Values, tol); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWarmStart(t *testing.T) {
	miptest.Require(t)
	p := []float64{7.5, 3.25, 9, 4, 6.5, 2, 8, 5.75}
	m, x, z := minMaxLoad(p, 3)
	start := make([]float64, len(m.Vars))
	load := make([]float64, 3)
	for j := range p { // round robin
		start[x[j][j%3]] = 1
		load[j%3] += p[j]
	}
	start[z] = math.Max(load[0], math.Max(load[1], load[2]))
	if err := m.Check(start, tol); err != nil {
		t.Fatalf("bad start: %v", err)
	}
	dir := t.TempDir()
	sol, err := mip.Solve(context.Background(), m, mip.Options{WarmStart: start, Dir: dir, RelGap: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.WarmStarted {
		t.Errorf("CBC did not report the MIP start; log:\n%s", sol.Log)
	}
	if sol.Objective > start[z]+tol {
		t.Errorf("objective %g worse than the warm start's %g", sol.Objective, start[z])
	}
	for _, f := range []string{"model.mps", "start.sol", "solution.txt", "cbc.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("file %s not kept in Dir: %v", f, err)
		}
	}
	if _, err := mip.Solve(context.Background(), m, mip.Options{WarmStart: start[:2]}); !errors.Is(err, mip.ErrModel) {
		t.Errorf("short warm start: %v, want ErrModel", err)
	}
}

// TestTimeLimit gives CBC a min-max partition of 36 real-valued jobs on 5
// machines, where proving optimality takes far longer than the limit: the
// solve must stop, say so, and return a feasible incumbent no worse than
// the warm start.
func TestTimeLimit(t *testing.T) {
	miptest.Require(t)
	rng := rand.New(rand.NewPCG(7, 7))
	p := make([]float64, 36)
	for i := range p {
		p[i] = 10 + 90*rng.Float64()
	}
	m, x, z := minMaxLoad(p, 5)
	start := make([]float64, len(m.Vars))
	load := make([]float64, 5)
	for j := range p {
		start[x[j][j%5]] = 1
		load[j%5] += p[j]
	}
	for _, l := range load {
		start[z] = math.Max(start[z], l)
	}
	sol, err := mip.Solve(context.Background(), m, mip.Options{TimeLimit: time.Second, WarmStart: start})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.TimedOut || sol.Status != mip.Stopped {
		t.Fatalf("status %s, timed out %v: want a stopped solve (runtime %v)", sol.Status, sol.TimedOut, sol.Runtime)
	}
	if err := m.Check(sol.Values, 1e-6); err != nil {
		t.Fatalf("incumbent infeasible: %v", err)
	}
	if sol.Objective > start[z]+tol {
		t.Fatalf("incumbent %g worse than the warm start %g", sol.Objective, start[z])
	}
	var sum float64
	for _, v := range p {
		sum += v
	}
	if sol.Objective < sum/5-tol {
		t.Fatalf("incumbent %g below the trivial bound %g", sol.Objective, sum/5)
	}
	if sol.Runtime > 20*time.Second {
		t.Fatalf("a 1 s limit took %v", sol.Runtime)
	}
}

func TestSolveErrors(t *testing.T) {
	miptest.Require(t)
	t.Run("infeasible", func(t *testing.T) {
		m := mip.NewModel("infeasible")
		x := m.AddBinary("x")
		y := m.AddBinary("y")
		m.AddConstraint("both", []mip.Term{{Var: x, Coef: 1}, {Var: y, Coef: 1}}, mip.GE, 3)
		m.SetObjective([]mip.Term{{Var: x, Coef: 1}})
		if _, err := mip.Solve(context.Background(), m, mip.Options{}); !errors.Is(err, mip.ErrInfeasible) {
			t.Fatalf("err = %v, want ErrInfeasible", err)
		}
	})
	t.Run("bad bounds", func(t *testing.T) {
		m := mip.NewModel("bad")
		m.AddVar("x", 2, 1, false)
		if _, err := mip.Solve(context.Background(), m, mip.Options{}); !errors.Is(err, mip.ErrModel) {
			t.Fatalf("err = %v, want ErrModel", err)
		}
	})
	t.Run("NaN coefficient", func(t *testing.T) {
		m := mip.NewModel("nan")
		x := m.AddBinary("x")
		m.AddConstraint("c", []mip.Term{{Var: x, Coef: math.NaN()}}, mip.LE, 1)
		if err := m.Err(); !errors.Is(err, mip.ErrModel) || !strings.Contains(err.Error(), `"c"`) {
			t.Fatalf("err = %v, want ErrModel naming the row", err)
		}
	})
}

func TestMissingSolver(t *testing.T) {
	m, _ := knapsack([]float64{1}, []float64{1}, 1)
	tests := []struct {
		name string
		opt  mip.Options
		path string
	}{
		{"explicit binary", mip.Options{Binary: filepath.Join(t.TempDir(), "no-cbc-here")}, os.Getenv("PATH")},
		{"empty PATH", mip.Options{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			_, err := mip.Solve(context.Background(), m, tc.opt)
			if !errors.Is(err, mip.ErrNoSolver) || !mip.IsMissing(err) {
				t.Fatalf("err = %v, want ErrNoSolver", err)
			}
			if !strings.Contains(err.Error(), "install coinor-cbc") {
				t.Fatalf("error %q does not say to install coinor-cbc", err)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	m := mip.NewModel("w")
	a := m.AddBinary("a b") // a space: sanitised
	b := m.AddBinary("a_b") // collides after sanitising
	e := m.AddVar("e1", -math.Inf(1), math.Inf(1), false)
	c := m.AddVar("7", 2, 9, true)
	m.AddConstraint("row one", []mip.Term{{Var: a, Coef: 1}, {Var: b, Coef: -2}, {Var: a, Coef: 1}, {Var: e, Coef: 0}}, mip.LE, 3)
	m.AddConstraint("empty", nil, mip.GE, -1)
	m.SetObjective([]mip.Term{{Var: c, Coef: 1.5}, {Var: e, Coef: 1}})
	if got := m.Constraints[0].Terms; len(got) != 2 || got[0].Coef != 2 {
		t.Fatalf("duplicate terms not merged / zeros not dropped: %+v", got)
	}
	tests := []struct {
		format mip.Format
		want   []string
	}{
		{mip.LP, []string{"Minimize", "Subject To", "row_one:", "+ 2 a_b", "- 2 a_b_x1", "e1 free", "2 <= x7 <= 9", "General", "End"}},
		{mip.MPS, []string{"NAME w", "ROWS", " L row_one", "COLUMNS", "'INTORG'", "RHS", "BOUNDS", " BV bnd a_b", " FR bnd xe1", "ENDATA"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := m.Write(&buf, tc.format); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("%s output lacks %q:\n%s", tc.format, w, buf.String())
				}
			}
		})
	}
	if err := m.Write(&bytes.Buffer{}, "xml"); !errors.Is(err, mip.ErrModel) {
		t.Fatalf("unknown format: %v", err)
	}
}
