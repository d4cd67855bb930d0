// Package checked is integer arithmetic that reports overflow instead of
// wrapping around: sums and products of sizes in bytes, FLOP and op
// counts, which a hostile or mistaken input file can push past int64.
// Callers turn a reported overflow into a bad-input error naming the file
// and the field.
package checked

import (
	"errors"
	"math"
	"math/bits"
)

// ErrOverflow is wrapped by errors for a sum or product that does not fit
// in an int64.
var ErrOverflow = errors.New("integer overflow")

// Add returns a+b and ok false when the sum does not fit in an int64.
func Add(a, b int64) (sum int64, ok bool) {
	s := a + b
	// overflow iff a and b have the same sign and s the other one
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return 0, false
	}
	return s, true
}

// Mul returns a*b and ok false when the product does not fit in an int64.
func Mul(a, b int64) (product int64, ok bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || p/b != a {
		return 0, false
	}
	return p, true
}

// Sum returns the sum of vs and ok false when it, or any partial sum in
// order, does not fit in an int64.
func Sum(vs ...int64) (sum int64, ok bool) {
	for _, v := range vs {
		if sum, ok = Add(sum, v); !ok {
			return 0, false
		}
	}
	return sum, true
}

// Acc accumulates a running total; after the first overflow it stays
// overflowed. The zero value is an empty total.
type Acc struct {
	v    int64
	over bool
}

// Add adds v to the total and reports whether the total still fits.
func (a *Acc) Add(v int64) bool {
	if a.over {
		return false
	}
	s, ok := Add(a.v, v)
	if !ok {
		a.over = true
		return false
	}
	a.v = s
	return true
}

// Value returns the total and ok false when it overflowed.
func (a *Acc) Value() (int64, bool) {
	if a.over {
		return 0, false
	}
	return a.v, true
}

// Count is a non-negative count (nodes, edges, bytes of a size estimate)
// whose arithmetic remembers an overflow of 64 bits: once a product or sum
// overflows, the count stays overflowed. The zero value is 0.
type Count struct {
	v    uint64
	over bool
}

// CountOf is n as a Count; a negative n is an overflowed count.
func CountOf(n int64) Count {
	if n < 0 {
		return Count{over: true}
	}
	return Count{v: uint64(n)}
}

// Mul returns c*b.
func (c Count) Mul(b uint64) Count {
	hi, lo := bits.Mul64(c.v, b)
	return Count{lo, c.over || hi != 0}
}

// Add returns c+b.
func (c Count) Add(b Count) Count {
	sum, carry := bits.Add64(c.v, b.v, 0)
	return Count{sum, c.over || b.over || carry != 0}
}

// Value returns the count and ok false when it overflowed.
func (c Count) Value() (n uint64, ok bool) { return c.v, !c.over }

// Overflowed reports whether the count overflowed.
func (c Count) Overflowed() bool { return c.over }

// Finite reports whether f is neither NaN nor infinite: a FLOP count or a
// time computed from input data must be, before it is printed or used.
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
