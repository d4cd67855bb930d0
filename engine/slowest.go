package engine

import "math"

// costs returns the nodes' costs, in node order.
func costs(nodes []instance) []float64 {
	c := make([]float64, len(nodes))
	for i := range nodes {
		c[i] = nodes[i].cost
	}
	return c
}

// slowestReplica gives the last replica the speed of the slowest of the
// step's GPUs: its compute (forward, backward, recomputation, update)
// takes SpeedSpread x ExpectedMaxNormal(replicas) longer. Every replica
// waits for the slowest one's gradients at each all-reduce, so one slow
// replica sets the step's pace, as the slowest GPU does in a synchronous
// data-parallel job; the others keep the median GPU's speed that a
// measurement on one GPU sees.
func (u *unrolled) slowestReplica() {
	m := u.collective()
	if m == nil || m.SpeedSpread == 0 || u.reps < 2 {
		return
	}
	u.straggle = m.SpeedSpread * ExpectedMaxNormal(u.reps)
	last := int32(u.reps - 1)
	for x, id := range u.ids[:u.played*u.block] {
		if id.op >= 0 && id.rep == last && (id.kind == NodeCompute || id.kind == NodeRecompute) {
			u.nodes[x].cost *= 1 + u.straggle
		}
	}
}

// ExpectedMaxNormal is the expected largest of n independent standard
// normal variables (0 for n = 1; 1.4236 for n = 8), by the trapezoidal
// rule on E[max] = integral of x n phi(x) Phi(x)^(n-1) dx over [-9, 9].
func ExpectedMaxNormal(n int) float64 {
	if n < 2 {
		return 0
	}
	const lo, hi, steps = -9.0, 9.0, 3600
	h := (hi - lo) / steps
	var sum float64
	for i := 0; i <= steps; i++ {
		x := lo + float64(i)*h
		phi := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		cdf := 0.5 * math.Erfc(-x/math.Sqrt2)
		f := x * float64(n) * phi * math.Pow(cdf, float64(n-1))
		if i == 0 || i == steps {
			f /= 2
		}
		sum += f
	}
	return sum * h
}
