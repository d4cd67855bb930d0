package graphalg

import (
	"math"

	"placesim/devices"
)

// Costs are the weights of classic list scheduling on a DAG: W[v] is the
// computation time of op v and Comm[k] the communication time of
// dependency k (a predecessor position of the DAG) when its two ops are on
// different devices. Celeritas eq. 1-3 and HEFT's upward rank use them.
type Costs struct {
	W    []float64
	Comm []float64
}

// MeanCosts weighs a DAG with averages of the estimates, as HEFT does
// (Topcuoglu et al. 2002, section 4.1): W[v] is the mean estimated time of
// v over its target devices, Comm[k] the mean estimated transfer time of
// dependency k's bytes over ordered pairs of distinct accelerators (of all
// devices when there are fewer than two accelerators; 0 on one device).
func MeanCosts(d *DAG, est *devices.Estimates, t *Targets) *Costs {
	c := &Costs{W: make([]float64, d.Len()), Comm: make([]float64, d.NumDeps())}
	for v := range c.W {
		var s float64
		n := 0
		for _, dev := range t.Of(v) {
			if x := est.OpTime(v, dev); !math.IsInf(x, 1) {
				s += x
				n++
			}
		}
		if n > 0 {
			c.W[v] = s / float64(n)
		}
	}
	devs := t.Acc
	if len(devs) < 2 {
		devs = nil
		for i := range est.Cluster.Devices {
			devs = append(devs, i)
		}
	}
	mc := newMeanComm(est, devs)
	for k := range c.Comm {
		c.Comm[k] = mc.time(d.BytesAt(k))
	}
	return c
}

// meanComm averages the estimated transfer time over device pairs. Transfer
// times are affine in the bytes for every route the links package models;
// when that holds for all pairs (checked at three sizes) the mean is taken
// from the pairs' intercepts and slopes, otherwise pair by pair.
type meanComm struct {
	est          *devices.Estimates
	pairs        [][2]int
	affine       bool
	lat, perByte float64
}

func newMeanComm(est *devices.Estimates, devs []int) *meanComm {
	m := &meanComm{est: est, affine: true}
	for _, a := range devs {
		for _, b := range devs {
			if a != b {
				m.pairs = append(m.pairs, [2]int{a, b})
			}
		}
	}
	if len(m.pairs) == 0 {
		return m
	}
	const big = 1 << 30
	for _, p := range m.pairs {
		t0 := est.TransferTime(p[0], p[1], 0)
		t1 := est.TransferTime(p[0], p[1], big)
		slope := (t1 - t0) / big
		mid := est.TransferTime(p[0], p[1], 1<<20)
		if want := t0 + slope*(1<<20); math.Abs(mid-want) > 1e-9*math.Max(1e-12, math.Abs(want)) {
			m.affine = false
		}
		m.lat += t0
		m.perByte += slope
	}
	m.lat /= float64(len(m.pairs))
	m.perByte /= float64(len(m.pairs))
	return m
}

func (m *meanComm) time(b int64) float64 {
	if len(m.pairs) == 0 {
		return 0
	}
	if m.affine {
		return m.lat + m.perByte*float64(b)
	}
	var s float64
	for _, p := range m.pairs {
		s += m.est.TransferTime(p[0], p[1], b)
	}
	return s / float64(len(m.pairs))
}
