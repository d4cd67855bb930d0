package devices

import (
	"fmt"
	"math"
	"math/rand/v2"

	"placesim/workloads"
)

// StandardEval is the estimate mode of Celeritas' Standard Evaluation
// (section 4.2.1): estimates profiled at small batch sizes under noise and
// extrapolated to the target batch by a linear regression per op. Since it
// rebuilds the workload at other batch sizes, NewEstimates does not take
// it: use StandardEvaluation with a builder (the study layer passes the
// zoo's).
const StandardEval EstimateMode = "standard-eval"

// StandardEvalOptions configure StandardEvaluation.
type StandardEvalOptions struct {
	// Batches are the small batch sizes profiled (at least two distinct,
	// each below the target batch). Empty: the largest b = B/2^k (B the
	// target batch) whose footprint (parameters, forward outputs, largest
	// workspace) fits the smallest device, with b/2 and b/4 (batches of at
	// least 1, at least two of them); when the target batch fits, the
	// target batch alone (measured, nothing to extrapolate).
	Batches []int
	// Iterations is the number of profiled steps averaged per batch size
	// (default 5; the paper runs "a few iterations").
	Iterations int
	// TimeSigma is the relative standard deviation of one measured op time
	// (default 0.1) and MemSigma that of one measured op memory (default
	// 0.02); each measurement is multiplied by 1 + sigma*N(0,1), at least
	// 0.1.
	TimeSigma, MemSigma float64
	// Seed drives the measurement noise.
	Seed uint64
}

// StandardEvalReport says how the estimates were made and how far they are
// from the true costs at the target batch: the mean relative deviation
// |estimated - true| / true over the ops, as Celeritas' Table 5 reports it,
// for op time (on the first device's kind) and op memory (output plus
// workspace; ops with none are left out).
type StandardEvalReport struct {
	Target  int   `json:"target"`
	Batches []int `json:"batches"`
	// Kind is the device kind the deviations are taken on.
	Kind string `json:"kind"`
	// TimeDev and MemDev are the mean relative deviations (0.08 = 8 %).
	TimeDev float64 `json:"timeDev"`
	MemDev  float64 `json:"memDev"`
	// TimeDevs and MemDevs are the per-op deviations behind the means (for
	// CDFs as in the paper's Figure 5).
	TimeDevs []float64 `json:"-"`
	MemDevs  []float64 `json:"-"`
}

// StandardEvaluation returns the estimates of g on c that Celeritas'
// Standard Evaluation makes (section 4.2.1, first step). The model is
// rebuilt by build at small batch sizes that fit one device; each op is
// "profiled" there: its true time on each device kind of c and its memory
// (output plus workspace), each measurement under seeded multiplicative
// noise and averaged over the iterations. A least-squares line per op
// through (batch, measured value) is extrapolated to g's batch; a time is
// kept at least as large as the smallest measured one and a memory at
// least 0. Parameters do not depend on the batch and transfer times come
// from the links' linear model (t = latency + bytes/bandwidth, fitted in
// advance as the paper says), so both are exact. Ops are matched by name:
// every op of g must exist in the rebuilt graphs.
func StandardEvaluation(g *workloads.Graph, c *Cluster, build func(batch int) (*workloads.Graph, error), o StandardEvalOptions) (*Estimates, *StandardEvalReport, error) {
	if build == nil {
		return nil, nil, fmt.Errorf("standard evaluation of %q: no builder to rebuild the workload at small batch sizes", g.Name)
	}
	if o.Iterations == 0 {
		o.Iterations = 5
	}
	if o.TimeSigma == 0 {
		o.TimeSigma = 0.1
	}
	if o.MemSigma == 0 {
		o.MemSigma = 0.02
	}
	switch {
	case o.Iterations < 1 || o.Iterations > 1000:
		return nil, nil, fmt.Errorf("standard evaluation: iterations = %d (valid range: [1, 1000])", o.Iterations)
	case !(o.TimeSigma >= 0 && o.TimeSigma <= 1):
		return nil, nil, fmt.Errorf("standard evaluation: time sigma = %g (valid range: [0, 1])", o.TimeSigma)
	case !(o.MemSigma >= 0 && o.MemSigma <= 1):
		return nil, nil, fmt.Errorf("standard evaluation: memory sigma = %g (valid range: [0, 1])", o.MemSigma)
	}
	batches := o.Batches
	if len(batches) == 0 {
		var err error
		if batches, err = smallBatches(g, c, build); err != nil {
			return nil, nil, err
		}
	}
	if err := checkBatches(batches, g.Batch); err != nil {
		return nil, nil, err
	}
	// the target graph's estimate table, filled from the regressions
	e, err := NewEstimates(g, c, EstimateOptions{Mode: Exact})
	if err != nil {
		return nil, nil, err
	}
	kinds := make([]*Kind, e.nKinds)
	for i := range c.Devices {
		kinds[e.kindOf[i]] = &c.Devices[i].Kind
	}
	n := len(g.Ops)
	// measured[b][op*nKinds+k] (time) and mem[b][op]
	times := make([][]float64, len(batches))
	mems := make([][]float64, len(batches))
	rng := rand.New(rand.NewPCG(o.Seed, 0x5e1ec7ed))
	for bi, b := range batches {
		gb := g
		if b != g.Batch {
			if gb, err = build(b); err != nil {
				return nil, nil, fmt.Errorf("standard evaluation of %q at batch %d: %w", g.Name, b, err)
			}
		}
		idx := make(map[string]int, len(gb.Ops))
		for i := range gb.Ops {
			idx[gb.Ops[i].Name] = i
		}
		times[bi] = make([]float64, n*e.nKinds)
		mems[bi] = make([]float64, n)
		for op := range g.Ops {
			j, ok := idx[g.Ops[op].Name]
			if !ok {
				return nil, nil, fmt.Errorf("standard evaluation of %q: op %q is missing from the graph at batch %d", g.Name, g.Ops[op].Name, b)
			}
			src := &gb.Ops[j]
			for k, kind := range kinds {
				t, err := OpTime(src, kind)
				if err != nil {
					times[bi][op*e.nKinds+k] = math.Inf(1)
					continue
				}
				times[bi][op*e.nKinds+k] = t * meanNoise(rng, o.TimeSigma, o.Iterations)
			}
			mems[bi][op] = float64(src.OutputBytes+src.TempBytes) * meanNoise(rng, o.MemSigma, o.Iterations)
		}
	}
	x := make([]float64, len(batches))
	for i, b := range batches {
		x[i] = float64(b)
	}
	target := float64(g.Batch)
	y := make([]float64, len(batches))
	e.memFactor = make([]float64, n)
	for op := range g.Ops {
		for k := 0; k < e.nKinds; k++ {
			lo := math.Inf(1)
			for bi := range batches {
				y[bi] = times[bi][op*e.nKinds+k]
				lo = math.Min(lo, y[bi])
			}
			if math.IsInf(lo, 1) {
				e.opTime[op*e.nKinds+k] = lo
				continue
			}
			e.opTime[op*e.nKinds+k] = math.Max(lo, extrapolate(x, y, target))
		}
		for bi := range batches {
			y[bi] = mems[bi][op]
		}
		m := math.Max(0, extrapolate(x, y, target))
		e.memFactor[op] = 1
		if tr := g.Ops[op].OutputBytes + g.Ops[op].TempBytes; tr > 0 {
			e.memFactor[op] = m / float64(tr)
		}
	}
	rep := &StandardEvalReport{Target: g.Batch, Batches: batches, Kind: kinds[0].Name}
	var st, sm float64
	for op := range g.Ops {
		if t, err := OpTime(&g.Ops[op], kinds[0]); err == nil && t > 0 {
			d := math.Abs(e.opTime[op*e.nKinds]-t) / t
			rep.TimeDevs = append(rep.TimeDevs, d)
			st += d
		}
		if tr := g.Ops[op].OutputBytes + g.Ops[op].TempBytes; tr > 0 {
			d := math.Abs(e.memFactor[op] - 1)
			rep.MemDevs = append(rep.MemDevs, d)
			sm += d
		}
	}
	if len(rep.TimeDevs) > 0 {
		rep.TimeDev = st / float64(len(rep.TimeDevs))
	}
	if len(rep.MemDevs) > 0 {
		rep.MemDev = sm / float64(len(rep.MemDevs))
	}
	return e, rep, nil
}

// meanNoise is the mean of k draws of max(0.1, 1 + sigma*N(0,1)).
func meanNoise(r *rand.Rand, sigma float64, k int) float64 {
	s := 0.0
	for i := 0; i < k; i++ {
		s += noise(r, sigma)
	}
	return s / float64(k)
}

// extrapolate fits y = a + b*x by least squares and returns a + b*at (the
// mean of y when all x are equal).
func extrapolate(x, y []float64, at float64) float64 {
	n := float64(len(x))
	var sx, sy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return my
	}
	b := sxy / sxx
	return my + b*(at-mx)
}

// footprint is a graph's memory on one device as Standard Evaluation
// judges whether a batch fits: parameters, every forward op's output (kept
// for the backward pass in training) and the largest workspace.
func footprint(g *workloads.Graph) int64 {
	var s, t int64
	for i := range g.Ops {
		o := &g.Ops[i]
		s += o.ParamBytes
		if o.Role == workloads.Forward {
			s += o.OutputBytes
		}
		t = max(t, o.TempBytes)
	}
	return s + t
}

// smallBatches picks the profiled batch sizes (see StandardEvalOptions).
func smallBatches(g *workloads.Graph, c *Cluster, build func(int) (*workloads.Graph, error)) ([]int, error) {
	capacity := c.Devices[0].Memory
	for _, d := range c.Devices {
		capacity = min(capacity, d.Memory)
	}
	if footprint(g) <= capacity {
		return []int{g.Batch}, nil
	}
	b := g.Batch
	for b > 1 {
		b /= 2
		gb, err := build(b)
		if err != nil {
			return nil, fmt.Errorf("standard evaluation of %q at batch %d: %w", g.Name, b, err)
		}
		if footprint(gb) <= capacity {
			break
		}
	}
	var bs []int
	for _, x := range []int{b, b / 2, b / 4} {
		if x >= 1 && (len(bs) == 0 || x != bs[len(bs)-1]) {
			bs = append(bs, x)
		}
	}
	if len(bs) < 2 && g.Batch > 2 {
		bs = []int{2, 1} // nothing smaller fits: profile the smallest batches anyway
	}
	return bs, nil
}

// checkBatches requires one batch equal to the target, or at least two
// distinct batches below it.
func checkBatches(bs []int, target int) error {
	if len(bs) == 1 && bs[0] == target {
		return nil
	}
	seen := map[int]bool{}
	for _, b := range bs {
		if b < 1 || b >= target {
			return fmt.Errorf("standard evaluation: batch %d (valid range: [1, %d) below the target batch)", b, target)
		}
		seen[b] = true
	}
	if len(seen) < 2 {
		return fmt.Errorf("standard evaluation: batches %v (want at least two distinct batch sizes)", bs)
	}
	return nil
}
