package devices

import (
	"fmt"
	"math"
	"math/rand/v2"

	"placesim/workloads"
)

// EstimateMode selects how Estimates relate to the true costs.
type EstimateMode string

// Estimate modes.
const (
	// Exact estimates equal the engine's true costs.
	Exact EstimateMode = "exact"
	// Noisy estimates multiply each op's time (per device kind) and each
	// device pair's transfer time by 1 + sigma*N(0,1), clamped to >= 0.1,
	// drawn from a seeded generator: a profiler's error.
	Noisy EstimateMode = "noise"
)

// EstimateOptions configures NewEstimates.
type EstimateOptions struct {
	Mode  EstimateMode
	Sigma float64 // relative standard deviation for Noisy
	Seed  uint64
}

// Estimates are the costs a placer sees: op times per device, transfer
// times per device pair and op memory. They may carry profiling error, so
// a placer never sees the engine's true costs. Read-only after creation.
type Estimates struct {
	Graph   *workloads.Graph
	Cluster *Cluster
	// kindOf maps a device to its kind's index in the op-time table.
	kindOf []int
	nKinds int
	opTime []float64 // [op*nKinds + kind]; +Inf where unsupported
	// commFactor scales transfer times per (src, dst) device pair; nil
	// for exact estimates (all 1), so a 16,384-GPU system needs no
	// n x n table.
	commFactor []float64
	// memFactor scales op memory (output and temp) per op; nil = exact.
	memFactor []float64
}

// NewEstimates computes the estimates of every op on every device kind.
func NewEstimates(g *workloads.Graph, c *Cluster, o EstimateOptions) (*Estimates, error) {
	if o.Mode == "" {
		o.Mode = Exact
	}
	if o.Mode != Exact && o.Mode != Noisy {
		return nil, fmt.Errorf("estimate mode %q (valid: exact, noise)", o.Mode)
	}
	if o.Mode == Noisy && !(o.Sigma >= 0 && o.Sigma <= 1) {
		return nil, fmt.Errorf("estimate noise sigma %g (valid range: [0, 1])", o.Sigma)
	}
	e := &Estimates{Graph: g, Cluster: c, kindOf: make([]int, len(c.Devices))}
	kinds := map[string]int{}
	var kindList []*Kind
	for i := range c.Devices {
		k := &c.Devices[i].Kind
		id, ok := kinds[k.Name]
		if !ok {
			id = len(kindList)
			kinds[k.Name] = id
			kindList = append(kindList, k)
		}
		e.kindOf[i] = id
	}
	e.nKinds = len(kindList)
	e.opTime = make([]float64, len(g.Ops)*e.nKinds)
	var rng *rand.Rand
	if o.Mode == Noisy {
		rng = rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	}
	for i := range g.Ops {
		for k, kind := range kindList {
			t, err := OpTime(&g.Ops[i], kind)
			if err != nil {
				t = math.Inf(1)
			}
			if rng != nil {
				t *= noise(rng, o.Sigma)
			}
			e.opTime[i*e.nKinds+k] = t
		}
	}
	if rng != nil {
		n := len(c.Devices)
		if n > maxNoisyDevices {
			return nil, fmt.Errorf("estimate mode %q: %d devices (valid range: <= %d; the noise is drawn per device pair)", o.Mode, n, maxNoisyDevices)
		}
		e.commFactor = make([]float64, n*n)
		for i := range e.commFactor {
			e.commFactor[i] = noise(rng, o.Sigma)
		}
	}
	return e, nil
}

func noise(r *rand.Rand, sigma float64) float64 {
	return math.Max(0.1, 1+sigma*r.NormFloat64())
}

// OpTime is the estimated time of op on device d (+Inf if it cannot run there).
func (e *Estimates) OpTime(op, d int) float64 { return e.opTime[op*e.nKinds+e.kindOf[d]] }

// MinOpTime is the op's smallest estimated time over the devices.
func (e *Estimates) MinOpTime(op int) float64 {
	m := math.Inf(1)
	for k := 0; k < e.nKinds; k++ {
		m = math.Min(m, e.opTime[op*e.nKinds+k])
	}
	return m
}

// TransferTime is the estimated uncontended time to move b bytes from
// device src to device dst (0 on the same device).
func (e *Estimates) TransferTime(src, dst int, b int64) float64 {
	if src == dst {
		return 0
	}
	t := e.Cluster.TransferTime(src, dst, b)
	if e.commFactor != nil {
		t *= e.commFactor[src*len(e.Cluster.Devices)+dst]
	}
	return t
}

// maxNoisyDevices bounds the devices of noisy estimates: their per-pair
// noise table has n^2 entries (8 bytes each: 512 MiB at 8,192).
const maxNoisyDevices = 8192

// OpMemory is the estimated memory an op pins on its device: parameters,
// output and workspace.
func (e *Estimates) OpMemory(op int) (params, output, temp int64) {
	o := &e.Graph.Ops[op]
	params, output, temp = o.ParamBytes, o.OutputBytes, o.TempBytes
	if e.memFactor != nil {
		f := e.memFactor[op]
		output = int64(float64(output) * f)
		temp = int64(float64(temp) * f)
	}
	return
}

// CanRun reports whether op may be placed on device d.
func (e *Estimates) CanRun(op, d int) bool { return !math.IsInf(e.OpTime(op, d), 1) }
