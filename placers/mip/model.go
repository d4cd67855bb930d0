package mip

import (
	"fmt"
	"math"
	"strings"
)

// Var identifies a variable of a Model (its index).
type Var int

// Term is coef × variable.
type Term struct {
	Var  Var
	Coef float64
}

// Sense is the relation of a constraint.
type Sense int8

// Constraint senses.
const (
	LE Sense = iota // sum <= rhs
	GE              // sum >= rhs
	EQ              // sum == rhs
)

func (s Sense) String() string {
	switch s {
	case LE:
		return "<="
	case GE:
		return ">="
	case EQ:
		return "="
	}
	return fmt.Sprintf("sense(%d)", int8(s))
}

// Variable is a column: bounds (math.Inf for none) and integrality.
type Variable struct {
	Name         string
	Lower, Upper float64
	Integer      bool
}

// Constraint is a row: sum of Terms (Sense) RHS.
type Constraint struct {
	Name  string
	Terms []Term
	Sense Sense
	RHS   float64
}

// Model is a mixed-integer linear program. Build it with AddVar (or
// AddBinary, AddContinuous), AddConstraint and SetObjective; names are
// sanitised and made unique when written. A Model is not safe for
// concurrent modification.
type Model struct {
	Name        string
	Vars        []Variable
	Constraints []Constraint
	Objective   []Term
	// ObjConstant is added to the objective's value.
	ObjConstant float64
	// Maximize flips the objective sense (default: minimise).
	Maximize bool
	err      error
}

// NewModel returns an empty minimisation model.
func NewModel(name string) *Model { return &Model{Name: name} }

// AddVar adds a variable with bounds [lo, hi] (use math.Inf(±1) for none).
func (m *Model) AddVar(name string, lo, hi float64, integer bool) Var {
	if m.err == nil && (math.IsNaN(lo) || math.IsNaN(hi) || lo > hi || math.IsInf(lo, 1) || math.IsInf(hi, -1)) {
		m.err = fmt.Errorf("%w: variable %q has bounds [%g, %g]", ErrModel, name, lo, hi)
	}
	m.Vars = append(m.Vars, Variable{Name: name, Lower: lo, Upper: hi, Integer: integer})
	return Var(len(m.Vars) - 1)
}

// AddBinary adds a 0/1 variable.
func (m *Model) AddBinary(name string) Var { return m.AddVar(name, 0, 1, true) }

// AddContinuous adds a continuous variable with bounds [lo, hi].
func (m *Model) AddContinuous(name string, lo, hi float64) Var { return m.AddVar(name, lo, hi, false) }

// AddConstraint adds sum(terms) sense rhs. Terms on the same variable are
// summed; zero coefficients are dropped.
func (m *Model) AddConstraint(name string, terms []Term, sense Sense, rhs float64) {
	if m.err == nil && (math.IsNaN(rhs) || math.IsInf(rhs, 0)) {
		m.err = fmt.Errorf("%w: constraint %q has right-hand side %g", ErrModel, name, rhs)
	}
	m.Constraints = append(m.Constraints, Constraint{Name: name, Terms: m.merge(fmt.Sprintf("constraint %q", name), terms), Sense: sense, RHS: rhs})
}

// SetObjective sets the linear objective (minimised unless Maximize).
func (m *Model) SetObjective(terms []Term) { m.Objective = m.merge("objective", terms) }

// merge sums duplicate variables, drops zeros, and checks indices.
func (m *Model) merge(where string, terms []Term) []Term {
	out := make([]Term, 0, len(terms))
	pos := make(map[Var]int, len(terms))
	for _, t := range terms {
		if m.err == nil && (int(t.Var) < 0 || int(t.Var) >= len(m.Vars)) {
			m.err = fmt.Errorf("%w: %s uses variable %d, model has %d", ErrModel, where, t.Var, len(m.Vars))
			continue
		}
		if m.err == nil && (math.IsNaN(t.Coef) || math.IsInf(t.Coef, 0)) {
			m.err = fmt.Errorf("%w: %s: coefficient %g on %q", ErrModel, where, t.Coef, m.Vars[t.Var].Name)
			continue
		}
		if i, ok := pos[t.Var]; ok {
			out[i].Coef += t.Coef
			continue
		}
		pos[t.Var] = len(out)
		out = append(out, t)
	}
	k := 0
	for _, t := range out {
		if t.Coef != 0 {
			out[k] = t
			k++
		}
	}
	return out[:k]
}

// Err reports the first modelling error (bad bounds, NaN coefficients).
func (m *Model) Err() error { return m.err }

// Value evaluates terms at x.
func Value(terms []Term, x []float64) float64 {
	var s float64
	for _, t := range terms {
		s += t.Coef * x[t.Var]
	}
	return s
}

// Check returns an error naming the first bound or constraint that x
// violates by more than tol (relative to the largest of 1, the right-hand
// side and the row's terms), or
// an integer variable that is fractional by more than tol.
func (m *Model) Check(x []float64, tol float64) error {
	if len(x) != len(m.Vars) {
		return fmt.Errorf("%w: %d values for %d variables", ErrModel, len(x), len(m.Vars))
	}
	for i, v := range m.Vars {
		if x[i] < v.Lower-tol || x[i] > v.Upper+tol {
			return fmt.Errorf("variable %q = %g outside [%g, %g]", v.Name, x[i], v.Lower, v.Upper)
		}
		if v.Integer && math.Abs(x[i]-math.Round(x[i])) > tol {
			return fmt.Errorf("integer variable %q = %g is fractional", v.Name, x[i])
		}
	}
	for _, c := range m.Constraints {
		lhs := Value(c.Terms, x)
		scale := math.Max(1, math.Abs(c.RHS))
		for _, t := range c.Terms {
			scale = math.Max(scale, math.Abs(t.Coef*x[t.Var]))
		}
		ok := true
		switch c.Sense {
		case LE:
			ok = lhs <= c.RHS+tol*scale
		case GE:
			ok = lhs >= c.RHS-tol*scale
		case EQ:
			ok = math.Abs(lhs-c.RHS) <= tol*scale
		}
		if !ok {
			return fmt.Errorf("constraint %q: %g %s %g violated", c.Name, lhs, c.Sense, c.RHS)
		}
	}
	return nil
}

// names returns file-safe, unique names for the columns and rows: letters,
// digits and _ . only, starting with a letter.
func (m *Model) names() (cols, rows []string) {
	used := map[string]bool{"obj": true, "obj_zero": true, "obj_constant": true, "rhs": true, "bnd": true}
	mk := func(name, prefix string, i int) string {
		var b strings.Builder
		for _, r := range name {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.':
				b.WriteRune(r)
			default:
				b.WriteByte('_')
			}
		}
		s := b.String()
		if len(s) > 200 {
			s = s[:200]
		}
		if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') || s[0] == 'e' || s[0] == 'E' {
			s = prefix + s
		}
		if used[strings.ToLower(s)] {
			s = fmt.Sprintf("%s_%s%d", s, prefix, i)
		}
		used[strings.ToLower(s)] = true
		return s
	}
	cols = make([]string, len(m.Vars))
	for i, v := range m.Vars {
		cols[i] = mk(v.Name, "x", i)
	}
	rows = make([]string, len(m.Constraints))
	for i, c := range m.Constraints {
		rows[i] = mk(c.Name, "r", i)
	}
	return cols, rows
}
