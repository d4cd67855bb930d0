package fastt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"placesim/devices"
	"placesim/workloads"
)

// profileSizes are the tensor sizes (bytes) whose transfers the
// communication model is fitted on.
var profileSizes = [...]int64{4 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20}

// CostModel is FastT's cost model (section 4, Cost Models): the
// computation model gives an op's time on a device (from the estimates,
// which play the profiler's role); the communication model is, per ordered
// device pair, a linear regression of transfer time on tensor size fitted
// on transfers of a few sizes between the pair (the estimated, uncontended
// times of the route). Read-only after NewCostModel.
type CostModel struct {
	est *devices.Estimates
	c   *devices.Cluster
	// kinds are the distinct device kinds; kindOf maps a device to one.
	kinds  []*devices.Kind
	kindOf []int
	// kindDev is one device of each kind.
	kindDev []int
	// alpha and beta are the intercept (s) and slope (s/byte) per ordered
	// pair [src*n+dst].
	alpha, beta []float64
	// xs and ys are each pair's profiled transfers (bytes, seconds) the
	// regression is fitted on.
	xs, ys [][]float64
}

// NewCostModel builds the cost model of the estimates' graph and cluster.
func NewCostModel(est *devices.Estimates) (*CostModel, error) {
	if est == nil || est.Cluster == nil || est.Graph == nil {
		return nil, fmt.Errorf("fastt cost model: estimates without a graph or cluster")
	}
	c := est.Cluster
	n := len(c.Devices)
	m := &CostModel{est: est, c: c, kindOf: make([]int, n), alpha: make([]float64, n*n), beta: make([]float64, n*n)}
	idx := map[string]int{}
	for d := range c.Devices {
		k := &c.Devices[d].Kind
		i, ok := idx[k.Name]
		if !ok {
			i = len(m.kinds)
			idx[k.Name] = i
			m.kinds = append(m.kinds, k)
			m.kindDev = append(m.kindDev, d)
		}
		m.kindOf[d] = i
	}
	m.xs, m.ys = make([][]float64, n*n), make([][]float64, n*n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a == b {
				continue
			}
			k := a*n + b
			for _, s := range profileSizes {
				m.xs[k] = append(m.xs[k], float64(s))
				m.ys[k] = append(m.ys[k], est.TransferTime(a, b, s))
			}
			if err := m.fit(a, b); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// fit computes the regression of pair (a, b) from its samples.
func (m *CostModel) fit(a, b int) error {
	k := a*len(m.c.Devices) + b
	al, be := stat.LinearRegression(m.xs[k], m.ys[k], nil, false)
	if math.IsNaN(al) || math.IsNaN(be) || math.IsInf(al, 0) || math.IsInf(be, 0) {
		return fmt.Errorf("fastt cost model: transfer times from %s to %s are not finite", m.c.Devices[a].Name, m.c.Devices[b].Name)
	}
	m.alpha[k], m.beta[k] = math.Max(al, 0), math.Max(be, 0)
	return nil
}

// Transfer is one profiled tensor transfer: its bytes and the time from
// its send to the end of its receive, waits for busy links included.
type Transfer struct {
	Src, Dst int
	Bytes    int64
	Seconds  float64
}

// Update returns the cost model with the profiled transfers added to their
// pairs' samples and those pairs' regressions re-computed ("in each update
// of the cost model, newly collected data are fed and parameters of the
// linear model are re-computed", section 4), so that the model captures
// the congestion a strategy meets on each path. m is not changed.
func (m *CostModel) Update(ts []Transfer) (*CostModel, error) {
	n := len(m.c.Devices)
	u := *m
	u.alpha = append([]float64(nil), m.alpha...)
	u.beta = append([]float64(nil), m.beta...)
	u.xs = append([][]float64(nil), m.xs...)
	u.ys = append([][]float64(nil), m.ys...)
	touched := map[int]bool{}
	for _, t := range ts {
		if t.Src == t.Dst || t.Src < 0 || t.Dst < 0 || t.Src >= n || t.Dst >= n || !(t.Seconds >= 0) {
			continue
		}
		k := t.Src*n + t.Dst
		if !touched[k] {
			touched[k] = true
			u.xs[k] = append([]float64(nil), u.xs[k]...)
			u.ys[k] = append([]float64(nil), u.ys[k]...)
		}
		u.xs[k] = append(u.xs[k], float64(t.Bytes))
		u.ys[k] = append(u.ys[k], t.Seconds)
	}
	for k := range touched {
		if err := u.fit(k/n, k%n); err != nil {
			return nil, err
		}
	}
	return &u, nil
}

// Transfer is the communication model's time to move bytes from device
// src to dst (0 on the same device).
func (m *CostModel) Transfer(src, dst int, bytes int64) float64 {
	if src == dst {
		return 0
	}
	k := src*len(m.c.Devices) + dst
	return m.alpha[k] + m.beta[k]*float64(bytes)
}

// Line returns the fitted intercept (s) and slope (s/byte) from src to dst.
func (m *CostModel) Line(src, dst int) (alpha, beta float64) {
	k := src*len(m.c.Devices) + dst
	return m.alpha[k], m.beta[k]
}

// opTimes is the computation model of the graph w: t[v*K+k] is op v's
// time on a device of kind k (+Inf where it cannot run). An op of the
// request's graph takes its estimate; a replica or part of one takes the
// time of its own figures scaled by the ratio of its origin's estimate to
// its origin's modelled time (the profiler's error carries over); an op
// FastT added takes the time of its figures.
func (m *CostModel) opTimes(w *work) []float64 {
	K := len(m.kinds)
	t := make([]float64, len(w.g.Ops)*K)
	orig := m.est.Graph
	for v := range w.g.Ops {
		op := &w.g.Ops[v]
		o := w.info[v].origin
		for k, kind := range m.kinds {
			if w.g == orig {
				t[v*K+k] = m.est.OpTime(v, m.kindDev[k])
				continue
			}
			x, err := devices.OpTime(op, kind)
			if err != nil {
				t[v*K+k] = math.Inf(1)
				continue
			}
			if o >= 0 && o < len(orig.Ops) {
				if base, err := devices.OpTime(&orig.Ops[o], kind); err == nil && base > 0 {
					x *= m.est.OpTime(o, m.kindDev[k]) / base
				}
			}
			t[v*K+k] = x
		}
	}
	return t
}

// kind is the kind index of device d.
func (m *CostModel) kind(d int) int { return m.kindOf[d] }

// memory is FastT's memory model of graph g: what each op keeps on its
// device at the peak of a training step, and a reserve per device for what
// is live only briefly. An op keeps its parameters (weights, optimizer
// slots, gradient buffers: resident for the whole step) and, when it is a
// forward op read by a backward op, its output (an activation saved for
// the backward pass, alive across the forward/backward boundary where
// memory peaks). Other outputs and workspaces live while their consumers
// run; the reserve is twice the largest of them. Unlike graphalg.OpMemory,
// which charges every output for the whole step, this does not refuse a
// model that fits one device as the engine plays it.
func memory(g *workloads.Graph) (mem []int64, reserve int64) {
	mem = make([]int64, len(g.Ops))
	for v := range g.Ops {
		op := &g.Ops[v]
		mem[v] = op.ParamBytes
		saved := false
		if op.Role == workloads.Forward {
			for _, eid := range g.Out(v) {
				if g.Ops[g.Edges[eid].To].Role == workloads.Backward {
					saved = true
					break
				}
			}
		}
		if saved {
			mem[v] += op.OutputBytes
		} else {
			reserve = max(reserve, op.OutputBytes+op.TempBytes)
		}
	}
	return mem, 2 * reserve
}
