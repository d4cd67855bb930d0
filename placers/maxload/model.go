package maxload

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// Hyperedge is the communication a producer's output causes (section 3):
// Ops[0] is the producer u and Ops[1:] its consumers. Its Cost (c_u,
// seconds) is paid by every accelerator holding some but not all of Ops:
// as outgoing communication when it holds u, as incoming when it holds a
// consumer. A producer whose out-edges carry different sizes is
// subdivided (Appendix E, "non-uniform outgoing communication costs"): one
// hyperedge per out-edge, each with that edge's cost.
//
// The cost is counted per producer, not per edge: section 3 charges c_u
// once to the device that writes u's output to CPU memory and once to each
// device that reads it, as the IP's CommIn/CommOut (eqs. 18-20) do. The
// shared workloads' README speaks of "every edge entering or leaving its
// part"; counting every edge gives 33.8225 ms per sample on
// LayerGraphs/resnet50_inference.json, against the paper's optimum
// 33.7747 ms, which the per-producer count reproduces on all eight files.
type Hyperedge struct {
	Ops  []int32
	Cost float64
}

// Model is the input of the paper's algorithms, read from a placement
// request: times per op on an accelerator and on a CPU, sizes, hyperedges,
// k accelerators with their memory and l CPUs. Model device indices are
// 0..K-1 for the accelerators (cluster devices Acc) and K..K+L-1 for the
// CPUs (cluster devices CPU).
type Model struct {
	Graph   *workloads.Graph
	Cluster *devices.Cluster
	// Acc and CPU are the cluster device IDs of the accelerators and CPUs.
	Acc, CPU []int
	// AccMem is M, the smallest accelerator memory; CPUMem the smallest
	// CPU memory (the paper leaves CPU memory unbounded; a simulated CPU
	// device has a capacity, so it bounds CPU parts too).
	AccMem, CPUMem int64
	// AccTime and CPUTime are the estimated times (seconds) of each op on
	// an accelerator (+Inf when it cannot run there) and on a CPU (+Inf
	// when there is no CPU).
	AccTime, CPUTime []float64
	// Size is each op's memory m_v (parameters, output and workspace).
	Size []int64
	// Comm lists the hyperedges; CommOf[op] the ones op is in.
	Comm   []Hyperedge
	CommOf [][]int32
}

// K is the number of accelerators, L the number of CPUs.
func (m *Model) K() int { return len(m.Acc) }

// L is the number of CPUs.
func (m *Model) L() int { return len(m.CPU) }

// IsAcc reports whether model device d is an accelerator.
func (m *Model) IsAcc(d int) bool { return d < len(m.Acc) }

// deviceID maps a model device index to the cluster's device ID.
func (m *Model) deviceID(d int) int {
	if d < len(m.Acc) {
		return m.Acc[d]
	}
	return m.CPU[d-len(m.Acc)]
}

// DeviceName is the cluster name of model device d.
func (m *Model) DeviceName(d int) string { return m.Cluster.Devices[m.deviceID(d)].Name }

// New builds the model of req: accelerators are the cluster's accelerator
// devices, CPUs its CPU devices. Times come from req.Estimates (first
// accelerator and first CPU: the paper assumes one accelerator type). The
// communication cost of an output of b bytes is the time of the first hop
// from an accelerator towards CPU memory (the route to the first CPU device,
// or to a second accelerator when there is no CPU), scaled by the
// estimates' error on that route: on devices.AccCPU, the Tarnawski et al.
// machine, this is b / 15.75 GB/s, the file's edge cost exactly.
func New(req *placers.Request) (*Model, error) {
	g, c, est := req.Graph, req.Cluster, req.Estimates
	if g == nil || c == nil || est == nil {
		return nil, fmt.Errorf("max-load model: request needs a graph, a cluster and estimates")
	}
	m := &Model{Graph: g, Cluster: c, AccMem: math.MaxInt64, CPUMem: math.MaxInt64}
	for _, d := range c.Devices {
		if d.Kind.Class == devices.CPU {
			m.CPU = append(m.CPU, d.ID)
			m.CPUMem = min(m.CPUMem, d.Memory)
		} else {
			m.Acc = append(m.Acc, d.ID)
			m.AccMem = min(m.AccMem, d.Memory)
		}
	}
	if len(m.Acc) == 0 {
		return nil, fmt.Errorf("%w: cluster %q has %d CPU devices and no accelerator", ErrNoAccelerator, c.Name, len(m.CPU))
	}
	n := len(g.Ops)
	m.AccTime = make([]float64, n)
	m.CPUTime = make([]float64, n)
	m.Size = make([]int64, n)
	// A node's size: an msr-fiddle workload gives it (the file's size, as
	// parameters). A workload that models activations (outputs) would be
	// charged every output for the whole step that way, several times what
	// a step holds; there a node is charged what it keeps resident, as the
	// other memory-aware placers charge it (graphalg.OpMemories: parameters,
	// optimizer state, activations kept for backward), and each
	// accelerator keeps graphalg.Reserve free for transient tensors.
	var resident []int64
	if modelsActivations(g) {
		resident = graphalg.OpMemories(g, est)
		if m.AccMem != math.MaxInt64 {
			m.AccMem -= graphalg.Reserve(g, est, m.AccMem)
		}
	}
	for i := range g.Ops {
		m.AccTime[i] = est.OpTime(i, m.Acc[0])
		m.CPUTime[i] = math.Inf(1)
		if len(m.CPU) > 0 {
			m.CPUTime[i] = est.OpTime(i, m.CPU[0])
		}
		if resident != nil {
			m.Size[i] = resident[i]
			continue
		}
		p, o, t := est.OpMemory(i)
		m.Size[i] = p + o + t
	}
	cost := commCost(m, est)
	m.CommOf = make([][]int32, n)
	for u := range g.Ops {
		m.addHyperedges(u, cost)
	}
	return m, nil
}

// addHyperedges adds u's output hyperedge(s): one over u and its distinct
// consumers when every consumer receives the same bytes, else one per
// consumer (subdivision). Several edges to one consumer count once, with
// their largest size, as the engine sends them.
func (m *Model) addHyperedges(u int, cost func(int64) float64) {
	g := m.Graph
	var succ []int32
	var bytes []int64
	for _, eid := range g.Out(u) {
		e := g.Edges[eid]
		found := false
		for j, s := range succ {
			if int(s) == e.To {
				bytes[j] = max(bytes[j], e.Bytes)
				found = true
			}
		}
		if !found {
			succ = append(succ, int32(e.To))
			bytes = append(bytes, e.Bytes)
		}
	}
	if len(succ) == 0 {
		return
	}
	uniform := true
	for _, b := range bytes {
		uniform = uniform && b == bytes[0]
	}
	add := func(ops []int32, c float64) {
		id := int32(len(m.Comm))
		m.Comm = append(m.Comm, Hyperedge{Ops: ops, Cost: c})
		for _, op := range ops {
			m.CommOf[op] = append(m.CommOf[op], id)
		}
	}
	if uniform {
		add(append([]int32{int32(u)}, succ...), cost(bytes[0]))
		return
	}
	for j, s := range succ {
		add([]int32{int32(u), s}, cost(bytes[j]))
	}
}

// commCost returns the transfer time between accelerator and CPU memory
// of b bytes (see New).
func commCost(m *Model, est *devices.Estimates) func(int64) float64 {
	a, d := m.Acc[0], -1
	switch {
	case len(m.CPU) > 0:
		d = m.CPU[0]
	case len(m.Acc) > 1:
		d = m.Acc[1]
	}
	if d < 0 {
		return func(int64) float64 { return 0 } // one device: nothing moves
	}
	c := m.Cluster
	route := c.Route(a, d)
	first := c.Topology.Links[route[0]]
	return func(b int64) float64 {
		t := first.HopTime(b)
		if full := c.TransferTime(a, d, b); full > 0 {
			t *= est.TransferTime(a, d, b) / full
		}
		return t
	}
}

// Plan turns an assignment (model device per op) into an engine plan.
func (m *Model) Plan(assign []int) *engine.Plan {
	p := placers.NewPlan(m.Graph)
	for op, d := range assign {
		p.Device[op] = m.deviceID(d)
	}
	return p
}

// Assignment maps a plan's devices back to model device indices (-1 for a
// device outside the model, which cannot happen for a plan of this cluster).
func (m *Model) Assignment(p *engine.Plan) []int {
	idx := make(map[int]int, len(m.Acc)+len(m.CPU))
	for i := 0; i < m.K()+m.L(); i++ {
		idx[m.deviceID(i)] = i
	}
	a := make([]int, len(p.Device))
	for op, d := range p.Device {
		if i, ok := idx[d]; ok {
			a[op] = i
		} else {
			a[op] = -1
		}
	}
	return a
}

// modelsActivations reports whether the workload gives ops output sizes
// (the zoo, ONNX, native files) rather than only node sizes (msr-fiddle).
func modelsActivations(g *workloads.Graph) bool {
	for i := range g.Ops {
		if g.Ops[i].OutputBytes > 0 {
			return true
		}
	}
	return false
}
