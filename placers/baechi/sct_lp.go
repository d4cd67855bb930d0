package baechi

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"placesim/placers/graphalg"
	"placesim/placers/mip"
)

// linProg is a linear program over variables z >= 0 with upper bounds:
// minimise obj.z subject to rows (sum >= rhs when ge, else <= rhs).
type linProg struct {
	obj   []float64
	upper []float64 // +Inf for none
	rows  []lpRow
}

type lpRow struct {
	idx []int
	val []float64
	ge  bool
	rhs float64
}

func (p *linProg) addVar(upper float64) int {
	p.obj = append(p.obj, 0)
	p.upper = append(p.upper, upper)
	return len(p.obj) - 1
}

// solveGonum solves p with gonum's simplex (optimize/convex/lp): every
// inequality gets a slack column, every finite upper bound a row, so that
// the program is in the standard form min c.x, Ax = b, x >= 0.
func (p *linProg) solveGonum() (x []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gonum simplex: %v", r)
		}
	}()
	n := len(p.obj)
	rows := append([]lpRow(nil), p.rows...)
	for i, u := range p.upper {
		if !math.IsInf(u, 1) {
			rows = append(rows, lpRow{idx: []int{i}, val: []float64{1}, rhs: u})
		}
	}
	m := len(rows)
	cols := n + m
	a := mat.NewDense(m, cols, nil)
	b := make([]float64, m)
	for r, row := range rows {
		sign := 1.0
		if row.rhs < 0 {
			sign = -1
		}
		for k, i := range row.idx {
			a.Set(r, i, a.At(r, i)+sign*row.val[k])
		}
		slack := 1.0 // row <= rhs: + s
		if row.ge {
			slack = -1 // row >= rhs: - s
		}
		a.Set(r, n+r, sign*slack)
		b[r] = sign * row.rhs
	}
	c := make([]float64, cols)
	copy(c, p.obj)
	_, z, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		return nil, fmt.Errorf("gonum simplex on %d rows x %d columns: %w", m, cols, err)
	}
	return z[:n], nil
}

// solveCBC solves p with CBC through placers/mip (a continuous model).
func (p *linProg) solveCBC(ctx context.Context) ([]float64, error) {
	m := mip.NewModel("sct-lp")
	for i, u := range p.upper {
		m.AddContinuous(fmt.Sprintf("z%d", i), 0, u)
	}
	for r, row := range p.rows {
		terms := make([]mip.Term, len(row.idx))
		for k, i := range row.idx {
			terms[k] = mip.Term{Var: mip.Var(i), Coef: row.val[k]}
		}
		sense := mip.LE
		if row.ge {
			sense = mip.GE
		}
		m.AddConstraint(fmt.Sprintf("r%d", r), terms, sense, row.rhs)
	}
	var obj []mip.Term
	for i, c := range p.obj {
		if c != 0 {
			obj = append(obj, mip.Term{Var: mip.Var(i), Coef: c})
		}
	}
	m.SetObjective(obj)
	sol, err := mip.Solve(ctx, m, mip.Options{})
	if err != nil {
		return nil, fmt.Errorf("cbc: %w", err)
	}
	return sol.Values, nil
}

// LP back ends of m-SCT and their default windows (ops per LP): gonum's
// dense simplex takes about 0.3 s on a window of 24 ops, CBC about 1 s of
// CPU on one of 1,000.
const (
	lpAuto      = "auto"
	lpGonum     = "gonum"
	lpCBC       = "cbc"
	gonumWindow = 24
	cbcWindow   = 1000
)

// favouriteParents solves the linear programming relaxation of small
// communication time scheduling (Hanen and Munier 1995, the LP Baechi's
// m-SCT solves) and returns each op's favourite parent (-1 for none). With
// p_v the mean time of op v and c_e the mean communication time of
// dependency e = (u, v), the relaxation on an unbounded number of devices
// is
//
//	minimise   w
//	subject to t_v >= t_u + p_u + c_e x_e            for every dependency e = (u, v)
//	           w   >= t_v + p_v                       for every op v
//	           sum over e out of u of x_e >= outdeg(u) - 1
//	           sum over e into v of x_e >= indeg(v) - 1
//	           0 <= x_e <= 1, t >= 0,
//
// where x_e = 0 means v runs right after u on u's device (no
// communication): each op has at most one such favourite child and one
// favourite parent. Rounding x_e < 1/2 to 0 keeps those degree bounds.
//
// The program has a row per dependency and is solved in windows of
// `window` consecutive ops of the topological order (the whole program
// when the graph has no more ops): gonum's simplex is dense, and CBC's
// simplex takes time quadratic in the graph's size on this program (2.5 s
// of CPU for 2,000 ops), so large graphs are solved as a rolling horizon.
// A window's
// variables are its ops' start times and the x of their incoming
// dependencies; the start times of earlier ops and the x already decided
// are constants; a dependency to a later window counts as x = 1 (no
// favourite) in its producer's out-degree row until its own window; an op
// with successors in later windows adds their b-level to its makespan row.
// Backend auto is gonum when the graph has at most gonumWindow ops and cbc
// otherwise (gonum when cbc is not installed); window 0 means the
// backend's default (gonumWindow, cbcWindow).
func favouriteParents(ctx context.Context, p *graphalg.Problem, backend string, window int) ([]int32, error) {
	d := p.DAG
	n := d.Len()
	if backend == lpAuto {
		backend = lpGonum
		if n > gonumWindow {
			if _, err := mip.LookPath(""); err == nil {
				backend = lpCBC
			}
		}
	}
	if window == 0 {
		window = gonumWindow
		if backend == lpCBC {
			window = cbcWindow
		}
	}
	// scale times to about 1, for the solvers' absolute tolerances
	scale := 0.0
	for _, w := range p.Costs.W {
		scale = math.Max(scale, w)
	}
	for _, c := range p.Costs.Comm {
		scale = math.Max(scale, c)
	}
	if scale == 0 {
		scale = 1
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = p.Costs.W[i] / scale
	}
	comm := make([]float64, d.NumDeps())
	for k := range comm {
		comm[k] = p.Costs.Comm[k] / scale
	}
	bl := graphalg.BLevel(d, &graphalg.Costs{W: w, Comm: comm}, p.Topo)
	order := p.Topo
	pos := graphalg.Positions(order)
	start := make([]float64, n) // decided start times
	x := make([]float64, d.NumDeps())
	for k := range x {
		x[k] = -1 // undecided
	}
	tVar := make([]int, n)
	for lo := 0; lo < n; lo += window {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+window, n)
		in := func(v int) bool { return pos[v] >= lo && pos[v] < hi }
		var prog linProg
		for _, v := range order[lo:hi] {
			tVar[v] = prog.addVar(math.Inf(1))
		}
		wVar := prog.addVar(math.Inf(1))
		prog.obj[wVar] = 1
		xVar := map[int]int{} // dependency -> variable
		for _, v := range order[lo:hi] {
			l, h := d.PredRange(v)
			for k := l; k < h; k++ {
				xVar[k] = prog.addVar(1)
				u := d.PredAt(k)
				if in(u) {
					prog.rows = append(prog.rows, lpRow{idx: []int{tVar[v], tVar[u], xVar[k]}, val: []float64{1, -1, -comm[k]}, ge: true, rhs: w[u]})
				} else {
					prog.rows = append(prog.rows, lpRow{idx: []int{tVar[v], xVar[k]}, val: []float64{1, -comm[k]}, ge: true, rhs: start[u] + w[u]})
				}
			}
			if indeg := h - l; indeg >= 2 {
				row := lpRow{ge: true, rhs: float64(indeg - 1)}
				for k := l; k < h; k++ {
					row.idx = append(row.idx, xVar[k])
					row.val = append(row.val, 1)
				}
				prog.rows = append(prog.rows, row)
			}
			// makespan: the op's own end, or the b-level of later successors
			tail, later, inside := 0.0, false, false
			for _, s := range d.Succ(v) {
				if in(int(s)) {
					inside = true
				} else {
					later = true
					tail = math.Max(tail, bl[s])
				}
			}
			if later || !inside {
				prog.rows = append(prog.rows, lpRow{idx: []int{wVar, tVar[v]}, val: []float64{1, -1}, ge: true, rhs: w[v] + tail})
			}
		}
		// out-degree rows of every producer with a dependency in the window
		done := map[int]bool{}
		for _, v := range order[lo:hi] {
			for _, u32 := range d.Pred(v) {
				u := int(u32)
				if done[u] || d.OutDegree(u) < 2 {
					continue
				}
				done[u] = true
				row := lpRow{ge: true, rhs: float64(d.OutDegree(u) - 1)}
				l, h := d.SuccRange(u)
				for j := l; j < h; j++ {
					k := d.DepOfSucc(j)
					switch s := d.SuccAt(j); {
					case in(s):
						row.idx = append(row.idx, xVar[k])
						row.val = append(row.val, 1)
					case x[k] >= 0:
						row.rhs -= x[k] // decided earlier
					default:
						row.rhs-- // a later window's: counted as no favourite
					}
				}
				// earlier windows kept sum(decided) >= |decided| - 1, so
				// rhs <= |row| up to rounding: clamp it
				row.rhs = min(row.rhs, float64(len(row.idx))) - 1e-9
				if row.rhs > 0 && len(row.idx) > 0 {
					prog.rows = append(prog.rows, row)
				}
			}
		}
		var z []float64
		var err error
		if backend == lpCBC {
			z, err = prog.solveCBC(ctx)
		} else {
			z, err = prog.solveGonum()
		}
		if err != nil {
			return nil, fmt.Errorf("m-sct LP (ops %d..%d of %d): %w", lo, hi-1, n, err)
		}
		for _, v := range order[lo:hi] {
			start[v] = z[tVar[v]]
		}
		for k, i := range xVar {
			x[k] = min(1, max(0, z[i]))
		}
	}
	fav := make([]int32, n)
	for v := 0; v < n; v++ {
		fav[v] = -1
		best := 0.5
		l, h := d.PredRange(v)
		for k := l; k < h; k++ {
			if x[k] < best {
				best = x[k]
				fav[v] = int32(d.PredAt(k))
			}
		}
	}
	// a producer keeps one favourite child: the one with the smallest x
	child := make(map[int32]int, n)
	for v := 0; v < n; v++ {
		u := fav[v]
		if u < 0 {
			continue
		}
		if c, ok := child[u]; ok {
			if xOf(d, x, u, v) < xOf(d, x, u, c) {
				fav[c] = -1
				child[u] = v
			} else {
				fav[v] = -1
			}
			continue
		}
		child[u] = v
	}
	return fav, nil
}

// xOf is x of the dependency (u, v).
func xOf(d *graphalg.DAG, x []float64, u int32, v int) float64 {
	l, h := d.PredRange(v)
	for k := l; k < h; k++ {
		if int32(d.PredAt(k)) == u {
			return x[k]
		}
	}
	return 1
}
