package checked_test

import (
	"math"
	"testing"

	"placesim/internal/checked"
)

func TestAdd(t *testing.T) {
	tests := []struct {
		name string
		a, b int64
		want int64
		ok   bool
	}{
		{"small", 2, 3, 5, true},
		{"max plus zero", math.MaxInt64, 0, math.MaxInt64, true},
		{"max plus one", math.MaxInt64, 1, 0, false},
		{"max plus max", math.MaxInt64, math.MaxInt64, 0, false},
		{"one below max plus one", math.MaxInt64 - 1, 1, math.MaxInt64, true},
		{"min minus one", math.MinInt64, -1, 0, false},
		{"min plus max", math.MinInt64, math.MaxInt64, -1, true},
		{"min plus zero", math.MinInt64, 0, math.MinInt64, true},
		{"mixed signs", -5, 3, -2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := checked.Add(tc.a, tc.b)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Add(%d, %d) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
			}
			if got2, ok2 := checked.Add(tc.b, tc.a); got2 != got || ok2 != ok {
				t.Fatalf("Add is not symmetric: %d, %v", got2, ok2)
			}
		})
	}
}

func TestMul(t *testing.T) {
	tests := []struct {
		name string
		a, b int64
		want int64
		ok   bool
	}{
		{"small", 6, 7, 42, true},
		{"zero", math.MaxInt64, 0, 0, true},
		{"max times one", math.MaxInt64, 1, math.MaxInt64, true},
		{"max times two", math.MaxInt64, 2, 0, false},
		{"2^31 squared", 1 << 31, 1 << 31, 1 << 62, true},
		{"2^32 squared", 1 << 32, 1 << 32, 0, false},
		{"min times minus one", math.MinInt64, -1, 0, false},
		{"min times one", math.MinInt64, 1, math.MinInt64, true},
		{"negative", -3, 4, -12, true},
		{"2^62 times -2", 1 << 62, -2, math.MinInt64, true},
		{"2^62 times 2", 1 << 62, 2, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := checked.Mul(tc.a, tc.b)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Mul(%d, %d) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
			}
			if got2, ok2 := checked.Mul(tc.b, tc.a); got2 != got || ok2 != ok {
				t.Fatalf("Mul is not symmetric: %d, %v", got2, ok2)
			}
		})
	}
}

func TestSumAndAcc(t *testing.T) {
	tests := []struct {
		name string
		vs   []int64
		want int64
		ok   bool
	}{
		{"empty", nil, 0, true},
		{"fits", []int64{1, 2, 3}, 6, true},
		{"exactly max", []int64{math.MaxInt64 - 10, 4, 6}, math.MaxInt64, true},
		{"one past max", []int64{math.MaxInt64 - 10, 4, 7}, 0, false},
		{"overflow then back", []int64{math.MaxInt64, 1, -1}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := checked.Sum(tc.vs...)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Sum = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
			var a checked.Acc
			for _, v := range tc.vs {
				a.Add(v)
			}
			if got, ok := a.Value(); got != tc.want || ok != tc.ok {
				t.Fatalf("Acc = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if checked.Finite(f) {
			t.Errorf("Finite(%g) = true", f)
		}
	}
	if !checked.Finite(math.MaxFloat64) || !checked.Finite(0) {
		t.Error("Finite refuses a finite number")
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    checked.Count
		want uint64 // ignored when over
		over bool
	}{
		{"zero", checked.Count{}, 0, false},
		{"product", checked.CountOf(3).Mul(4).Mul(5), 60, false},
		{"sum", checked.CountOf(7).Add(checked.CountOf(8)), 15, false},
		{"largest product", checked.CountOf(1 << 32).Mul(1<<32 - 1), 1<<64 - 1<<32, false},
		{"product overflows", checked.CountOf(1 << 32).Mul(1 << 32), 0, true},
		{"sum overflows", checked.CountOf(math.MaxInt64).Add(checked.CountOf(math.MaxInt64)).Add(checked.CountOf(2)), 0, true},
		{"overflow is sticky", checked.CountOf(1 << 40).Mul(1 << 40).Mul(0).Add(checked.CountOf(1)), 0, true},
		{"negative", checked.CountOf(-1), 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.c.Value()
			if ok == tc.over || tc.c.Overflowed() != tc.over {
				t.Fatalf("Value() ok = %v, Overflowed() = %v, want overflow %v", ok, tc.c.Overflowed(), tc.over)
			}
			if !tc.over && got != tc.want {
				t.Errorf("Value() = %d, want %d", got, tc.want)
			}
		})
	}
}
