package mip

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Format is a model file format.
type Format string

// File formats CBC reads.
const (
	LP  Format = "lp"  // CPLEX LP
	MPS Format = "mps" // free MPS
)

// Write writes the model in format f.
func (m *Model) Write(w io.Writer, f Format) error {
	switch f {
	case LP:
		return m.WriteLP(w)
	case MPS:
		return m.WriteMPS(w)
	}
	return fmt.Errorf("%w: file format %q (valid: lp, mps)", ErrModel, f)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }

// WriteLP writes the model in CPLEX LP format (long rows are wrapped).
func (m *Model) WriteLP(w io.Writer) error {
	if m.err != nil {
		return m.err
	}
	cols, rows := m.names()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\\ %s\n", m.Name)
	// Both formats are written as minimisations (a maximisation negated),
	// so that CBC's reports have one meaning.
	obj := m.minObjective()
	bw.WriteString("Minimize\n")
	needZero := len(obj) == 0
	for _, c := range m.Constraints {
		needZero = needZero || len(c.Terms) == 0
	}
	bw.WriteString(" obj:")
	if len(obj) == 0 {
		bw.WriteString(" 0 obj_zero")
	}
	writeTerms(bw, obj, cols)

	bw.WriteString("\nSubject To\n")
	for i, c := range m.Constraints {
		fmt.Fprintf(bw, " %s:", rows[i])
		if len(c.Terms) == 0 {
			// an empty row: 0 sense rhs, written on a fixed zero column
			bw.WriteString(" 0 obj_zero")
		}
		writeTerms(bw, c.Terms, cols)
		fmt.Fprintf(bw, " %s %s\n", c.Sense, num(c.RHS))
	}
	bw.WriteString("Bounds\n")
	for i, v := range m.Vars {
		switch {
		case math.IsInf(v.Lower, -1) && math.IsInf(v.Upper, 1):
			fmt.Fprintf(bw, " %s free\n", cols[i])
		case math.IsInf(v.Upper, 1):
			if v.Lower != 0 {
				fmt.Fprintf(bw, " %s >= %s\n", cols[i], num(v.Lower))
			}
		case math.IsInf(v.Lower, -1):
			fmt.Fprintf(bw, " -inf <= %s <= %s\n", cols[i], num(v.Upper))
		default:
			fmt.Fprintf(bw, " %s <= %s <= %s\n", num(v.Lower), cols[i], num(v.Upper))
		}
	}

	if needZero {
		bw.WriteString(" obj_zero = 0\n")
	}
	first := true
	for i, v := range m.Vars {
		if v.Integer {
			if first {
				bw.WriteString("General\n")
				first = false
			}
			fmt.Fprintf(bw, " %s\n", cols[i])
		}
	}
	bw.WriteString("End\n")
	return bw.Flush()
}

func writeTerms(bw *bufio.Writer, terms []Term, cols []string) {
	for j, t := range terms {
		if j > 0 && j%8 == 0 {
			bw.WriteString("\n  ")
		}
		sign := "+"
		c := t.Coef
		if c < 0 {
			sign, c = "-", -c
		}
		fmt.Fprintf(bw, " %s %s %s", sign, num(c), cols[t.Var])
	}
}

// WriteMPS writes the model in free MPS format (integer columns between
// MARKER INTORG/INTEND lines).
func (m *Model) WriteMPS(w io.Writer) error {
	if m.err != nil {
		return m.err
	}
	cols, rows := m.names()
	bw := bufio.NewWriter(w)
	name := m.Name
	if name == "" {
		name = "model"
	}
	// FREE makes CoinMpsIO read free format whatever the name lengths.
	fmt.Fprintf(bw, "NAME %s FREE\n", sanitize(name))
	obj := m.minObjective()
	bw.WriteString("ROWS\n N obj\n")
	for i, c := range m.Constraints {
		t := map[Sense]string{LE: "L", GE: "G", EQ: "E"}[c.Sense]
		fmt.Fprintf(bw, " %s %s\n", t, rows[i])
	}
	// column-major coefficients
	type entry struct {
		row  int // -1 = objective
		coef float64
	}
	byCol := make([][]entry, len(m.Vars))
	for _, t := range obj {
		byCol[t.Var] = append(byCol[t.Var], entry{-1, t.Coef})
	}
	for i, c := range m.Constraints {
		for _, t := range c.Terms {
			byCol[t.Var] = append(byCol[t.Var], entry{i, t.Coef})
		}
	}
	bw.WriteString("COLUMNS\n")
	inInt := false
	marker := 0
	for j, v := range m.Vars {
		if v.Integer != inInt {
			tag := "INTORG"
			if !v.Integer {
				tag = "INTEND"
			}
			fmt.Fprintf(bw, " MARKER%d 'MARKER' '%s'\n", marker, tag)
			marker++
			inInt = v.Integer
		}
		if len(byCol[j]) == 0 {
			fmt.Fprintf(bw, " %s obj 0\n", cols[j])
		}
		for _, e := range byCol[j] {
			r := "obj"
			if e.row >= 0 {
				r = rows[e.row]
			}
			fmt.Fprintf(bw, " %s %s %s\n", cols[j], r, num(e.coef))
		}
	}
	if inInt {
		fmt.Fprintf(bw, " MARKER%d 'MARKER' 'INTEND'\n", marker)
	}
	bw.WriteString("RHS\n")

	for i, c := range m.Constraints {
		if c.RHS != 0 {
			fmt.Fprintf(bw, " rhs %s %s\n", rows[i], num(c.RHS))
		}
	}
	bw.WriteString("BOUNDS\n")
	for j, v := range m.Vars {
		switch {
		case v.Integer && v.Lower == 0 && v.Upper == 1:
			fmt.Fprintf(bw, " BV bnd %s\n", cols[j])
			continue
		case math.IsInf(v.Lower, -1) && math.IsInf(v.Upper, 1):
			fmt.Fprintf(bw, " FR bnd %s\n", cols[j])
			continue
		case v.Lower == v.Upper:
			fmt.Fprintf(bw, " FX bnd %s %s\n", cols[j], num(v.Lower))
			continue
		}
		if math.IsInf(v.Lower, -1) {
			fmt.Fprintf(bw, " MI bnd %s\n", cols[j])
		} else if v.Lower != 0 || v.Integer {
			fmt.Fprintf(bw, " LO bnd %s %s\n", cols[j], num(v.Lower))
		}
		if math.IsInf(v.Upper, 1) {
			if v.Integer {
				fmt.Fprintf(bw, " PL bnd %s\n", cols[j])
			}
		} else {
			fmt.Fprintf(bw, " UP bnd %s %s\n", cols[j], num(v.Upper))
		}
	}
	bw.WriteString("ENDATA\n")
	return bw.Flush()
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// minObjective is the objective as a minimisation (negated when the model
// maximises), without its constant, which the files leave out and Solve
// adds back.
func (m *Model) minObjective() []Term {
	if !m.Maximize {
		return m.Objective
	}
	neg := make([]Term, len(m.Objective))
	for i, t := range m.Objective {
		neg[i] = Term{Var: t.Var, Coef: -t.Coef}
	}
	return neg
}
