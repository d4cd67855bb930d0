package workloads

import (
	"fmt"
	"math"

	"placesim/internal/checked"
)

// Role says which part of a training step an op belongs to.
type Role uint8

// Roles of ops.
const (
	Forward Role = iota
	Backward
	Update
)

func (r Role) String() string {
	switch r {
	case Forward:
		return "forward"
	case Backward:
		return "backward"
	case Update:
		return "update"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// Keys of Op.Measured besides device kind names: a device class, or any.
const (
	MeasuredAccelerator = "accelerator"
	MeasuredCPU         = "cpu"
	MeasuredAny         = "*"
)

// Op is an operator. FLOPs count 1 multiply-add as 2 FLOPs. All sizes are
// bytes. An op has one output buffer of OutputBytes (all its output tensors
// together), allocated when it starts and freed after its last consumer.
type Op struct {
	// ID is the op's index in Graph.Ops.
	ID int
	// Name is unique within the graph.
	Name string
	// Type is the placer-independent op class ("matmul", "conv2d", "relu",
	// "send"...), used for colouring and statistics.
	Type string
	// Layer names the model layer the op belongs to (may be empty).
	Layer string
	// Role is forward, backward or update.
	Role Role
	// FLOPs is the floating-point work (1 MAC = 2 FLOPs).
	FLOPs float64
	// BytesAccessed is the device-memory traffic (reads + writes), for the
	// memory side of the roofline.
	BytesAccessed int64
	// FixedBytes is the part of BytesAccessed that does not shrink with
	// the op's batch: whole parameter-sized tensors it reads or writes
	// however few samples it processes (a table's dense gradient, zeroed
	// and accumulated into whole). Data parallelism and micro-batching give
	// an instance BytesAccessed - FixedBytes divided among them plus all of
	// FixedBytes (BatchShareBytes). 0 <= FixedBytes <= BytesAccessed.
	FixedBytes int64
	// OutputBytes is the size of the op's outputs.
	OutputBytes int64
	// ParamBytes is the size of the parameters the op owns; they are
	// resident on its device for the whole run.
	ParamBytes int64
	// TempBytes is scratch memory held only while the op runs.
	TempBytes int64
	// Precision is the arithmetic the op's kernel runs in (FP32 unless the
	// workload says otherwise): it picks the device's peak. Its sizes
	// (bytes accessed, output, parameters) are already in the precision
	// of each tensor.
	Precision DType
	// GradBytes is the size of the parameter gradient that a data-parallel
	// all-reduce carries for this op, in the gradient's precision. It is set
	// on the update op of each trainable parameter tensor (DeriveTraining);
	// 0 elsewhere. Optimizer state and gradient buffers (ParamBytes of the
	// update ops) are never all-reduced.
	GradBytes int64
	// Measured holds measured run times in seconds keyed by device kind
	// name, device class (MeasuredAccelerator, MeasuredCPU) or MeasuredAny.
	// When present it overrides the roofline model.
	Measured map[string]float64
	// Colocation names a group of ops that must share a device ("" = none).
	Colocation string
	// CPUOnly marks an op that cannot run on an accelerator.
	CPUOnly bool
}

// Edge carries Bytes of From's output to To. When the two ops are on
// different devices the engine sends the bytes over the links, once per
// producer and destination device.
type Edge struct {
	From, To int
	Bytes    int64
}

// Graph is a dataflow graph. Build it with AddOp and AddEdge (adjacency is
// kept up to date), then call Validate before simulating or placing it.
// A validated graph that is no longer modified is safe for concurrent reads.
type Graph struct {
	// Name of the workload, e.g. "mlp" or "zoo:bert?layers=3".
	Name string
	// Batch is the number of samples a step processes (for throughput).
	Batch int
	// Training is true for a training step (forward, backward, update).
	Training bool
	// Precision is the precision setting the workload was built with (""
	// is FP32); each op's Precision and sizes follow it.
	Precision Precision
	// Framework is the execution profile (which ops run fused) the
	// workload was built for, "" when unknown (a file).
	Framework string
	// Ops indexed by ID.
	Ops []Op
	// Edges in insertion order.
	Edges []Edge
	// Hint, when set, is the machine the workload file describes (an
	// msr-fiddle file names k accelerators, l CPUs and a memory limit); it
	// is used when no cluster is given.
	Hint *ClusterHint
	// Warnings say where an importer could not represent the file
	// exactly (a lenient ONNX import's placeholder ops); commands print
	// them. They are not part of the native format.
	Warnings []string

	in, out  [][]int32
	adjEdges int // number of edges reflected in in/out
}

// ClusterHint is the machine a workload file describes.
type ClusterHint struct {
	Accelerators, CPUs int
	// AcceleratorMemory is each accelerator's capacity in bytes.
	AcceleratorMemory int64
}

// NewGraph returns an empty graph with the given name and batch size.
func NewGraph(name string, batch int) *Graph { return &Graph{Name: name, Batch: batch} }

// AddOp appends op (its ID is overwritten) and returns its ID.
func (g *Graph) AddOp(op Op) int {
	op.ID = len(g.Ops)
	stale := len(g.in) != len(g.Ops)
	g.Ops = append(g.Ops, op)
	if !stale {
		g.in = append(g.in, nil)
		g.out = append(g.out, nil)
	}
	return op.ID
}

// AddEdge adds an edge carrying bytes from op from to op to. Indices out of
// range are reported by Validate, not here.
func (g *Graph) AddEdge(from, to int, bytes int64) {
	id := int32(len(g.Edges))
	g.Edges = append(g.Edges, Edge{From: from, To: to, Bytes: bytes})
	if g.adjEdges != int(id) || len(g.in) != len(g.Ops) {
		return // adjacency is stale anyway; ensureAdj rebuilds it
	}
	if from >= 0 && from < len(g.out) {
		g.out[from] = append(g.out[from], id)
	}
	if to >= 0 && to < len(g.in) {
		g.in[to] = append(g.in[to], id)
	}
	g.adjEdges++
}

// In lists the indices (into Edges) of op's incoming edges.
func (g *Graph) In(op int) []int32 { g.ensureAdj(); return g.in[op] }

// Out lists the indices (into Edges) of op's outgoing edges.
func (g *Graph) Out(op int) []int32 { g.ensureAdj(); return g.out[op] }

// ensureAdj rebuilds adjacency when Ops or Edges were assigned directly.
func (g *Graph) ensureAdj() {
	if len(g.in) == len(g.Ops) && g.adjEdges == len(g.Edges) {
		return
	}
	g.RebuildAdjacency()
}

// RebuildAdjacency recomputes adjacency after Ops or Edges were changed
// other than through AddOp and AddEdge, and renumbers op IDs.
func (g *Graph) RebuildAdjacency() {
	g.in = make([][]int32, len(g.Ops))
	g.out = make([][]int32, len(g.Ops))
	for i := range g.Ops {
		g.Ops[i].ID = i
	}
	for i, e := range g.Edges {
		if e.From >= 0 && e.From < len(g.Ops) {
			g.out[e.From] = append(g.out[e.From], int32(i))
		}
		if e.To >= 0 && e.To < len(g.Ops) {
			g.in[e.To] = append(g.in[e.To], int32(i))
		}
	}
	g.adjEdges = len(g.Edges)
}

// Clone returns a deep copy.
func (g *Graph) Clone() *Graph {
	c := &Graph{Name: g.Name, Batch: g.Batch, Training: g.Training, Hint: g.Hint, Precision: g.Precision, Framework: g.Framework,
		Ops: append([]Op(nil), g.Ops...), Edges: append([]Edge(nil), g.Edges...),
		Warnings: append([]string(nil), g.Warnings...)}
	for i := range c.Ops {
		if m := c.Ops[i].Measured; m != nil {
			c.Ops[i].Measured = make(map[string]float64, len(m))
			for k, v := range m {
				c.Ops[i].Measured[k] = v
			}
		}
	}
	c.RebuildAdjacency()
	return c
}

// ParamBytes is the total size of all parameters.
func (g *Graph) ParamBytes() int64 {
	var s int64
	for i := range g.Ops {
		s += g.Ops[i].ParamBytes
	}
	return s
}

// TotalFLOPs is the sum of all ops' FLOPs.
func (g *Graph) TotalFLOPs() float64 {
	var s float64
	for i := range g.Ops {
		s += g.Ops[i].FLOPs
	}
	return s
}

// Validate checks the graph: a name and batch >= 1, unique non-empty op
// names, edges between existing ops and no self-loops, no negative or
// non-finite size, FLOP count or measured time, and no cycle. Errors name
// the graph, the op or edge and the field with its valid range.
func (g *Graph) Validate() error {
	if g.Batch < 1 {
		return fmt.Errorf("%w: graph %q: field batch = %d (valid range: >= 1)", ErrInvalid, g.Name, g.Batch)
	}
	if len(g.Ops) == 0 {
		return fmt.Errorf("%w: graph %q has no ops", ErrInvalid, g.Name)
	}
	g.ensureAdj()
	names := make(map[string]int, len(g.Ops))
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.ID != i {
			return fmt.Errorf("%w: graph %q: ops[%d] has id %d (ids must equal the index; build with AddOp)", ErrInvalid, g.Name, i, op.ID)
		}
		if op.Name == "" {
			return fmt.Errorf("%w: graph %q: ops[%d]: field name is empty", ErrInvalid, g.Name, i)
		}
		if j, dup := names[op.Name]; dup {
			return fmt.Errorf("%w: graph %q: duplicate op name %q (ops[%d] and ops[%d])", ErrInvalid, g.Name, op.Name, j, i)
		}
		names[op.Name] = i
		if err := checkOp(op); err != nil {
			return fmt.Errorf("%w: graph %q: op %q (ops[%d]): %v", ErrInvalid, g.Name, op.Name, i, err)
		}
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Ops) || e.To < 0 || e.To >= len(g.Ops) {
			return fmt.Errorf("%w: graph %q: edges[%d] %d->%d: endpoint out of range [0, %d) (dangling edge)", ErrInvalid, g.Name, i, e.From, e.To, len(g.Ops))
		}
		if e.From == e.To {
			return fmt.Errorf("%w: graph %q: edges[%d]: self-loop on op %q", ErrInvalid, g.Name, i, g.Ops[e.From].Name)
		}
		if e.Bytes < 0 {
			return fmt.Errorf("%w: graph %q: edges[%d] %q->%q: field bytes = %d (valid range: >= 0)", ErrInvalid, g.Name, i, g.Ops[e.From].Name, g.Ops[e.To].Name, e.Bytes)
		}
	}
	if err := g.checkTotals(); err != nil {
		return err
	}
	g.ensureAdj()
	_, err := g.TopoOrder()
	return err
}

// MaxTotalBytes bounds the sum of a graph's sizes (every op's
// outputBytes, paramBytes, tempBytes and gradBytes plus every edge's bytes,
// and separately the sum of bytesAccessed): 2^63-1, so that any total the
// engine, the placers or the statistics form from a valid graph fits an
// int64.
const MaxTotalBytes = math.MaxInt64

// checkTotals refuses a graph whose size totals overflow int64, naming the
// op or edge field at which the running total overflows, and a graph whose
// FLOPs sum to infinity.
func (g *Graph) checkTotals() error {
	var mem, acc checked.Acc
	var flops float64
	for i := range g.Ops {
		op := &g.Ops[i]
		for _, f := range []struct {
			name string
			v    int64
		}{{"outputBytes", op.OutputBytes}, {"paramBytes", op.ParamBytes}, {"tempBytes", op.TempBytes}, {"gradBytes", op.GradBytes}} {
			if !mem.Add(f.v) {
				return fmt.Errorf("%w: graph %q: op %q (ops[%d].%s = %d): the graph's total of outputBytes, paramBytes, tempBytes, gradBytes and edge bytes %w (valid range: total <= 2^63-1)", ErrInvalid, g.Name, op.Name, i, f.name, f.v, ErrOverflow)
			}
		}
		if !acc.Add(op.BytesAccessed) {
			return fmt.Errorf("%w: graph %q: op %q (ops[%d].bytesAccessed = %d): the graph's total bytesAccessed %w (valid range: total <= 2^63-1)", ErrInvalid, g.Name, op.Name, i, op.BytesAccessed, ErrOverflow)
		}
		if flops += op.FLOPs; !checked.Finite(flops) {
			return fmt.Errorf("%w: graph %q: op %q (ops[%d].flops = %g): the graph's total FLOPs is not finite (valid range: total < 1.8e308)", ErrInvalid, g.Name, op.Name, i, op.FLOPs)
		}
	}
	for i, e := range g.Edges {
		if !mem.Add(e.Bytes) {
			return fmt.Errorf("%w: graph %q: edges[%d].bytes = %d: the graph's total of outputBytes, paramBytes, tempBytes, gradBytes and edge bytes %w (valid range: total <= 2^63-1)", ErrInvalid, g.Name, i, e.Bytes, ErrOverflow)
		}
	}
	return nil
}

// SizeTotal is the sum of every op's outputBytes, paramBytes, tempBytes
// and gradBytes and every edge's bytes, with ok false when it overflows
// int64 (Validate refuses such a graph).
func (g *Graph) SizeTotal() (total int64, ok bool) {
	var a checked.Acc
	for i := range g.Ops {
		op := &g.Ops[i]
		a.Add(op.OutputBytes)
		a.Add(op.ParamBytes)
		a.Add(op.TempBytes)
		a.Add(op.GradBytes)
	}
	for _, e := range g.Edges {
		a.Add(e.Bytes)
	}
	return a.Value()
}

// BatchShareBytes is the bytes an op of bytes accessed, fixed of them
// whole tensors that do not shrink with its batch (Op.FixedBytes), moves
// on 1/n of its batch: the fixed bytes whole and the rest divided by n,
// rounded up. The engine's data-parallel and micro-batched instances and
// FastT's replicas and batch splits share a batch this way.
func BatchShareBytes(bytes, fixed int64, n int) int64 {
	if n <= 1 {
		return bytes
	}
	return fixed + (bytes-fixed+int64(n)-1)/int64(n)
}

func checkOp(op *Op) error {
	if !(op.FLOPs >= 0) || math.IsInf(op.FLOPs, 0) {
		return fmt.Errorf("field flops = %g (valid range: finite, >= 0)", op.FLOPs)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"bytesAccessed", op.BytesAccessed}, {"outputBytes", op.OutputBytes}, {"paramBytes", op.ParamBytes}, {"tempBytes", op.TempBytes}} {
		if f.v < 0 {
			return fmt.Errorf("field %s = %d (valid range: >= 0)", f.name, f.v)
		}
	}
	if op.FixedBytes < 0 || op.FixedBytes > op.BytesAccessed {
		return fmt.Errorf("field fixedBytes = %d (valid range: 0..bytesAccessed = %d)", op.FixedBytes, op.BytesAccessed)
	}
	for k, v := range op.Measured {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("field measured[%q] = %g s (valid range: finite, >= 0)", k, v)
		}
	}
	return nil
}
