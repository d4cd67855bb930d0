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
	// RoughOnly stops after the first step (the small-batch regression),
	// skipping the profiling of the target batch on a sequential
	// placement.
	RoughOnly bool
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
	// RoughTimeDev and RoughMemDev are the deviations after the first step
	// alone (the regression from small batches).
	RoughTimeDev float64 `json:"roughTimeDev"`
	RoughMemDev  float64 `json:"roughMemDev"`
	// Profiled is true when the second step ran: the target batch fitted
	// the cluster on a sequential placement over Devices devices, and its
	// ops were profiled there.
	Profiled bool `json:"profiled"`
	Devices  int  `json:"devices,omitempty"`
	// LargeBatch, when the target batch does not fit the cluster, is the
	// largest batch B/2^k that does, profiled on the sequential placement
	// and added to the regression (0: none).
	LargeBatch int `json:"largeBatch,omitempty"`
}

// StandardEvaluation returns the estimates of g on c that Celeritas'
// Standard Evaluation makes (section 4.2.1, both steps). First step: the
// model is
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
//
// Second step ("we acquire accurate operation information by running the
// large-batch model for a few iterations using a sequential placement
// strategy based on memory constraints"): the target-batch graph is
// placed in topological order on the first device until the first step's
// memory estimates fill it, then on the next, and so on; when it fits the
// cluster, each op is profiled where it was placed (its true time and
// memory under the same noise, averaged over the iterations). Those
// measurements replace the first step's estimates on the profiled device
// kinds; on the other kinds the first step's time is scaled by the same
// correction. When the model does not fit, the first step's estimates are
// kept (the report says so).
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
	rng := rand.New(rand.NewPCG(o.Seed, 0x5e1ec7ed))
	// measure profiles every op of g as rebuilt at batch b: times
	// [op*nKinds+k] and memories [op], averaged over the iterations
	measure := func(b int) (times, mems []float64, err error) {
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
		times = make([]float64, n*e.nKinds)
		mems = make([]float64, n)
		for op := range g.Ops {
			j, ok := idx[g.Ops[op].Name]
			if !ok {
				return nil, nil, fmt.Errorf("standard evaluation of %q: op %q is missing from the graph at batch %d", g.Name, g.Ops[op].Name, b)
			}
			src := &gb.Ops[j]
			for k, kind := range kinds {
				t, err := OpTime(src, kind)
				if err != nil {
					times[op*e.nKinds+k] = math.Inf(1)
					continue
				}
				times[op*e.nKinds+k] = t * meanNoise(rng, o.TimeSigma, o.Iterations)
			}
			mems[op] = float64(src.OutputBytes+src.TempBytes) * meanNoise(rng, o.MemSigma, o.Iterations)
		}
		return times, mems, nil
	}
	var times, mems [][]float64
	for _, b := range batches {
		t, m, err := measure(b)
		if err != nil {
			return nil, nil, err
		}
		times, mems = append(times, t), append(mems, m)
	}
	e.memFactor = make([]float64, n)
	fitRegressions(g, e, batches, times, mems)
	rep := &StandardEvalReport{Target: g.Batch, Kind: kinds[0].Name}
	rep.RoughTimeDev, rep.RoughMemDev, _, _ = deviations(g, e, kinds[0])
	if len(batches) > 1 && !o.RoughOnly {
		if err := profileTarget(g, c, e, kinds, o, rng, rep); err != nil {
			return nil, nil, err
		}
		// the target does not fit the cluster: profile the largest batch
		// that does, on the sequential placement, and fit again with it
		for b := g.Batch / 2; !rep.Profiled && b > batches[0]; b /= 2 {
			if !fitsSequentially(g, c, e, float64(b)/float64(g.Batch)) {
				continue
			}
			t, m, err := measure(b)
			if err != nil {
				return nil, nil, err
			}
			batches = append([]int{b}, batches...)
			times, mems = append([][]float64{t}, times...), append([][]float64{m}, mems...)
			fitRegressions(g, e, batches, times, mems)
			rep.LargeBatch = b
			break
		}
	}
	rep.Batches = batches
	rep.TimeDev, rep.MemDev, rep.TimeDevs, rep.MemDevs = deviations(g, e, kinds[0])
	return e, rep, nil
}

// fitRegressions sets e's op times and memory factors at g's batch from
// least-squares lines through the measurements at batches.
func fitRegressions(g *workloads.Graph, e *Estimates, batches []int, times, mems [][]float64) {
	x := make([]float64, len(batches))
	for i, b := range batches {
		x[i] = float64(b)
	}
	target := float64(g.Batch)
	y := make([]float64, len(batches))
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
}

// fitsSequentially reports whether g at frac of its batch fits c on the
// sequential placement of profileTarget (activation memory scaled by
// frac, parameters not).
func fitsSequentially(g *workloads.Graph, c *Cluster, e *Estimates, frac float64) bool {
	order, err := g.TopoOrder()
	if err != nil {
		return false
	}
	d := 0
	var used, temp int64
	for _, op := range order {
		p, out, tmp := e.OpMemory(op)
		out, tmp = int64(float64(out)*frac), int64(float64(tmp)*frac)
		for d < len(c.Devices) && (used+p+out+max(temp, tmp) > c.Devices[d].Memory || !e.CanRun(op, d)) {
			if used == 0 && e.CanRun(op, d) {
				return false
			}
			d++
			used, temp = 0, 0
		}
		if d == len(c.Devices) {
			return false
		}
		used += p + out
		temp = max(temp, tmp)
	}
	return true
}

// deviations are the mean and per-op relative deviations of e's op times
// on kind k and of its op memories from the true costs.
func deviations(g *workloads.Graph, e *Estimates, k *Kind) (timeDev, memDev float64, timeDevs, memDevs []float64) {
	var st, sm float64
	for op := range g.Ops {
		if t, err := OpTime(&g.Ops[op], k); err == nil && t > 0 {
			d := math.Abs(e.opTime[op*e.nKinds]-t) / t
			timeDevs = append(timeDevs, d)
			st += d
		}
		if tr := g.Ops[op].OutputBytes + g.Ops[op].TempBytes; tr > 0 {
			d := math.Abs(e.memFactor[op] - 1)
			memDevs = append(memDevs, d)
			sm += d
		}
	}
	if len(timeDevs) > 0 {
		timeDev = st / float64(len(timeDevs))
	}
	if len(memDevs) > 0 {
		memDev = sm / float64(len(memDevs))
	}
	return timeDev, memDev, timeDevs, memDevs
}

// profileTarget is the second step of StandardEvaluation: a sequential
// placement of the target graph by the first step's memory estimates (in
// topological order, parameters and outputs counted as resident, one
// device filled after the other), then the profiling of every op on its
// device. It leaves e as it is when the graph does not fit c.
func profileTarget(g *workloads.Graph, c *Cluster, e *Estimates, kinds []*Kind, o StandardEvalOptions, rng *rand.Rand, rep *StandardEvalReport) error {
	order, err := g.TopoOrder()
	if err != nil {
		return fmt.Errorf("standard evaluation of %q: %w", g.Name, err)
	}
	dev := make([]int, len(g.Ops))
	d := 0
	var used, temp int64
	for _, op := range order {
		p, out, tmp := e.OpMemory(op)
		for d < len(c.Devices) && (used+p+out+max(temp, tmp) > c.Devices[d].Memory || !e.CanRun(op, d)) {
			if used == 0 && e.CanRun(op, d) {
				return nil // one op alone does not fit a device
			}
			d++
			used, temp = 0, 0
		}
		if d == len(c.Devices) {
			return nil // the target batch does not fit the cluster
		}
		dev[op] = d
		used += p + out
		temp = max(temp, tmp)
	}
	rep.Profiled, rep.Devices = true, d+1
	for op := range g.Ops {
		k := e.kindOf[dev[op]]
		t, err := OpTime(&g.Ops[op], kinds[k])
		if err != nil {
			continue
		}
		measured := t * meanNoise(rng, o.TimeSigma, o.Iterations)
		rough := e.opTime[op*e.nKinds+k]
		for j := 0; j < e.nKinds; j++ {
			switch {
			case j == k:
				e.opTime[op*e.nKinds+j] = measured
			case rough > 0 && !math.IsInf(e.opTime[op*e.nKinds+j], 1):
				e.opTime[op*e.nKinds+j] *= measured / rough
			}
		}
		if tr := g.Ops[op].OutputBytes + g.Ops[op].TempBytes; tr > 0 {
			e.memFactor[op] = meanNoise(rng, o.MemSigma, o.Iterations)
		}
	}
	return nil
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
