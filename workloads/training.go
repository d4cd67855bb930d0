package workloads

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Optimizer is the update rule of a training step's update ops.
type Optimizer string

// Optimizers. Each keeps 0, 1 or 2 state tensors ("slots") per parameter.
const (
	// SGD: p -= lr·g (no slot).
	SGD Optimizer = "sgd"
	// Momentum: m = μm + g; p -= lr·m (one slot).
	Momentum Optimizer = "momentum"
	// Adam: first and second moments (two slots), Kingma and Ba 2015.
	Adam Optimizer = "adam"
)

// Optimizers lists the optimizers DeriveTrainingWith accepts.
func Optimizers() []Optimizer { return []Optimizer{SGD, Momentum, Adam} }

// optimizerCost is, per parameter element, the slots kept, the FLOPs of one
// update and the fp32 words read and written.
type optimizerCost struct {
	slots        int64
	flops, words float64
}

func (o Optimizer) cost() (optimizerCost, error) {
	switch o {
	case SGD, "":
		return optimizerCost{0, 2, 3}, nil // read p, g; write p
	case Momentum:
		return optimizerCost{1, 4, 5}, nil // read p, g, m; write p, m
	case Adam:
		return optimizerCost{2, 11, 7}, nil // read p, g, m, v; write p, m, v
	}
	return optimizerCost{}, fmt.Errorf("optimizer %q (valid: sgd, momentum, adam)", string(o))
}

// GradientMemory says how parameter gradients occupy memory.
type GradientMemory string

// Gradient memory models.
const (
	// PersistentGradients: every parameter has a gradient buffer resident
	// for the whole run (PyTorch DDP buckets, Megatron-LM's main_grad,
	// the "model states" of ZeRO), held by its update op; gradient ops
	// write or accumulate into it in place.
	PersistentGradients GradientMemory = "persistent"
	// TransientGradients: a parameter's gradient is an ordinary output of
	// its gradient op, freed once the update op has read it (TensorFlow 1.x).
	TransientGradients GradientMemory = "transient"
)

// TrainingOptions tune DeriveTrainingWith. The zero value is SGD with
// persistent gradient buffers and one parameter tensor per op.
type TrainingOptions struct {
	// Optimizer of the update ops ("" = SGD).
	Optimizer Optimizer
	// Gradients is the gradient memory model ("" = PersistentGradients).
	Gradients GradientMemory
	// ParamTensors lists, by forward op ID, the byte sizes of the op's
	// trainable parameter tensors (a batch norm's scale and offset are
	// two); they must add up to its trainable bytes. An op not listed has
	// one tensor.
	ParamTensors map[int][]int64
	// State gives, by forward op ID, the bytes of the op's ParamBytes that
	// are resident state but not trained (batch-norm moving statistics):
	// they get no gradient and no update. The rest is trainable.
	State map[int]int64
	// Precision of the step ("" = FP32): update ops count parameters of
	// Precision.ParamBytes() bytes and run in Precision.Update(); gradient
	// ops run in the precision of their forward op.
	Precision Precision
}

// DeriveTraining is DeriveTrainingWith with the zero TrainingOptions.
func DeriveTraining(fwd *Graph) (*Graph, error) {
	return DeriveTrainingWith(fwd, TrainingOptions{})
}

// MaxDeriveBytes bounds the size total (Graph.SizeTotal) of a forward
// graph that DeriveTraining accepts: 2^56 bytes (64 PiB). The training
// step's gradients, optimizer slots and summed reads are each a small
// multiple of the forward sizes, so this leaves them far from int64
// overflow.
const MaxDeriveBytes = int64(1) << 56

// DeriveTrainingWith returns the training step of a forward graph: the
// forward ops (IDs unchanged), their gradient ops (role Backward) in reverse
// dependency order, and one optimizer update op (role Update) per parameter
// tensor. The rules per op type are in GradRuleFor:
//
//   - Gradients flow from every sink that needs a gradient (the losses)
//     back to the ops with trainable parameters; ops off those paths
//     (inputs, random masks, moving-average assignments) get none.
//   - An op's gradient reads the gradient of its output (the sum of its
//     consumers' contributions, an "add-n" op when there are several) and
//     the forward tensors its rule saves (edges from forward ops to
//     backward ops: the engine keeps those activations alive until the
//     gradient has run). Gradient ops cost the rule's multiple of the
//     forward FLOPs (about 2x in all) and output the gradients w.r.t. the
//     op's inputs (and, with TransientGradients, its parameters).
//   - Parameter gradients are the size of the trainable parameters
//     (ParamBytes less State); the update op of each tensor reads its
//     gradient and holds the optimizer's slots as resident memory (with
//     PersistentGradients, also the gradient buffer), so a training graph's
//     ParamBytes() is parameters + gradients + optimizer state.
//   - Weights shared by several ops are "variable" ops: each reader adds its
//     contribution in place into the variable's gradient, an
//     "accumulate-gradients" op that the update reads.
//   - An op, its gradient ops, its gradient sum and its update ops form one
//     colocation group (named by the op's Colocation, else its name).
//
// It is an error if fwd is already a training graph, has a cycle, or the
// options are invalid.
func DeriveTrainingWith(fwd *Graph, o TrainingOptions) (*Graph, error) {
	if fwd.Training {
		return nil, fmt.Errorf("derive training of %q: it is already a training graph", fwd.Name)
	}
	oc, err := o.Optimizer.cost()
	if err != nil {
		return nil, fmt.Errorf("derive training of %q: %w", fwd.Name, err)
	}
	persistent := true
	switch o.Gradients {
	case PersistentGradients, "":
	case TransientGradients:
		persistent = false
	default:
		return nil, fmt.Errorf("derive training of %q: gradient memory %q (valid: persistent, transient)", fwd.Name, string(o.Gradients))
	}
	order, err := fwd.TopoOrder()
	if err != nil {
		return nil, fmt.Errorf("derive training of %q: %w", fwd.Name, err)
	}
	if total, ok := fwd.SizeTotal(); !ok || total > MaxDeriveBytes {
		return nil, fmt.Errorf("%w: derive training of %q: the forward graph's sizes (outputs, parameters, temporaries, edges) total more than 2^56 bytes (valid range: <= 64 PiB, so that the training step's sums cannot overflow)", ErrInvalid, fwd.Name)
	}
	for i := range fwd.Ops {
		if fwd.Ops[i].Role != Forward {
			return nil, fmt.Errorf("derive training of %q: op %q has role %s (a forward graph has only forward ops)", fwd.Name, fwd.Ops[i].Name, fwd.Ops[i].Role)
		}
	}
	for id, b := range o.State {
		if id < 0 || id >= len(fwd.Ops) {
			return nil, fmt.Errorf("derive training of %q: state given for op %d, graph has ops 0..%d", fwd.Name, id, len(fwd.Ops)-1)
		}
		if b < 0 || b > fwd.Ops[id].ParamBytes {
			return nil, fmt.Errorf("derive training of %q: op %q: state of %d bytes (valid range: 0..paramBytes = %d)", fwd.Name, fwd.Ops[id].Name, b, fwd.Ops[id].ParamBytes)
		}
	}
	for id, ts := range o.ParamTensors {
		if id < 0 || id >= len(fwd.Ops) {
			return nil, fmt.Errorf("derive training of %q: parameter tensors given for op %d, graph has ops 0..%d", fwd.Name, id, len(fwd.Ops)-1)
		}
		var s int64
		for _, b := range ts {
			if b <= 0 {
				return nil, fmt.Errorf("derive training of %q: op %q: parameter tensor of %d bytes (valid range: > 0)", fwd.Name, fwd.Ops[id].Name, b)
			}
			s += b
		}
		if want := fwd.Ops[id].ParamBytes - o.State[id]; s != want {
			return nil, fmt.Errorf("derive training of %q: op %q: parameter tensors add up to %d bytes, its trainable bytes are %d", fwd.Name, fwd.Ops[id].Name, s, want)
		}
	}
	d := &deriver{fwd: fwd, o: o, oc: oc, persistent: persistent}
	d.analyse(order)
	d.g = d.cloneForTraining()
	d.contrib = make([][]contribution, len(fwd.Ops))
	for k := len(order) - 1; k >= 0; k-- {
		if u := order[k]; d.has[u] {
			d.differentiate(u)
		}
	}
	return d.g, nil
}

// contribution is one gradient flowing into an op's output.
type contribution struct {
	op    int
	bytes int64
}

// deriver holds the state of one DeriveTrainingWith call.
type deriver struct {
	fwd, g     *Graph
	o          TrainingOptions
	oc         optimizerCost
	persistent bool
	rules      []GradRule
	// rg: the op's output depends on trainable parameters; has: a gradient
	// reaches the op's output from a loss.
	rg, has []bool
	contrib [][]contribution
}

// trainBytes is the size of u's trainable parameters.
func (d *deriver) trainBytes(u int) int64 {
	if d.rules[u].NoGradient {
		return 0
	}
	return d.fwd.Ops[u].ParamBytes - d.o.State[u]
}

func (d *deriver) trainable(u int) bool { return d.trainBytes(u) > 0 }

// analyse finds the ops that need a gradient: those whose output depends
// on a trainable parameter (forward sweep) and from which a loss is
// reachable through differentiable ops (backward sweep). A sink that needs
// a gradient is a loss.
func (d *deriver) analyse(order []int) {
	f := d.fwd
	n := len(f.Ops)
	d.rules = make([]GradRule, n)
	d.rg = make([]bool, n)
	d.has = make([]bool, n)
	for _, u := range order {
		d.rules[u] = GradRuleFor(f.Ops[u].Type)
		if d.rules[u].NoGradient {
			continue
		}
		if d.trainable(u) {
			d.rg[u] = true
			continue
		}
		for _, eid := range f.In(u) {
			if d.rg[f.Edges[eid].From] {
				d.rg[u] = true
				break
			}
		}
	}
	for k := n - 1; k >= 0; k-- {
		u := order[k]
		if !d.rg[u] {
			continue
		}
		out := f.Out(u)
		if len(out) == 0 {
			d.has[u] = true
			continue
		}
		for _, eid := range out {
			if d.has[f.Edges[eid].To] {
				d.has[u] = true
				break
			}
		}
	}
}

// cloneForTraining copies the forward graph with room for the backward
// pass. Ops and edges are appended directly: the adjacency is rebuilt once,
// when the training graph is first traversed.
func (d *deriver) cloneForTraining() *Graph {
	f := d.fwd
	// a training step has about 2.5x the ops and 3x the edges
	g := &Graph{Name: f.Name, Batch: f.Batch, Training: true, Hint: f.Hint, Warnings: append([]string(nil), f.Warnings...),
		Precision: f.Precision, Framework: f.Framework,
		Ops:   append(make([]Op, 0, 3*len(f.Ops)), f.Ops...),
		Edges: append(make([]Edge, 0, 3*len(f.Edges)), f.Edges...)}
	for i := range g.Ops {
		if m := g.Ops[i].Measured; m != nil {
			g.Ops[i].Measured = maps.Clone(m)
		}
	}
	return g
}

// addOp appends op to the training graph and returns its ID.
func (d *deriver) addOp(op Op) int {
	op.ID = len(d.g.Ops)
	d.g.Ops = append(d.g.Ops, op)
	return op.ID
}

// addEdge appends an edge to the training graph.
func (d *deriver) addEdge(from, to int, bytes int64) {
	d.g.Edges = append(d.g.Edges, Edge{From: from, To: to, Bytes: bytes})
}

// gradBytes is the size of the gradient w.r.t. u's output.
func (d *deriver) gradBytes(u int) int64 {
	op := &d.fwd.Ops[u]
	if d.rules[u].Variable {
		return d.trainBytes(u)
	}
	if op.OutputBytes > 0 {
		return op.OutputBytes
	}
	var m int64
	for _, eid := range d.fwd.Out(u) {
		m = max(m, d.fwd.Edges[eid].Bytes)
	}
	return m
}

// newOp adds a backward or update op of forward op u's colocation group.
func (d *deriver) newOp(u int, suffix, typ string, role Role) *Op {
	f := &d.fwd.Ops[u]
	id := d.addOp(Op{Name: f.Name + "/" + suffix, Type: typ, Layer: f.Layer, Role: role,
		Colocation: d.g.Ops[u].Colocation, CPUOnly: f.CPUOnly, Precision: f.Precision})
	return &d.g.Ops[id]
}

// scaleMeasured gives a gradient op the forward op's measured times times k.
func scaleMeasured(dst *Op, src *Op, k float64) {
	if src.Measured == nil {
		return
	}
	dst.Measured = make(map[string]float64, len(src.Measured))
	for key, t := range src.Measured {
		dst.Measured[key] = k * t
	}
}

// differentiate adds u's gradient ops and update ops; every consumer of u
// has been differentiated already (reverse topological order).
func (d *deriver) differentiate(u int) {
	f, g := d.fwd, d.g
	fo := &f.Ops[u]
	r := d.rules[u]
	if g.Ops[u].Colocation == "" {
		g.Ops[u].Colocation = fo.Name
	}
	cs := d.contrib[u]
	dyBytes := d.gradBytes(u)

	if r.Variable {
		// the readers accumulated their contributions in place; this op
		// marks the gradient complete and holds it (transient model)
		agg := d.newOp(u, "grad", "accumulate-gradients", Backward)
		if !d.persistent {
			agg.OutputBytes = d.trainBytes(u)
		}
		id := agg.ID
		for _, c := range cs {
			d.addEdge(c.op, id, c.bytes)
		}
		d.addUpdates(u, id)
		return
	}

	// dY: the gradient of u's output, as edges to add to each gradient op
	var dy []contribution
	switch {
	case len(cs) > 1 && !r.MultiOutput:
		sum := d.newOp(u, "grad_sum", "add-n", Backward)
		k := float64(len(cs))
		sum.FLOPs = (k - 1) * float64(dyBytes/d.o.Precision.ActivationBytes())
		sum.Precision = fo.Precision
		sum.BytesAccessed = int64(k+1) * dyBytes
		sum.OutputBytes = dyBytes
		id := sum.ID
		for _, c := range cs {
			d.addEdge(c.op, id, c.bytes)
		}
		dy = []contribution{{id, dyBytes}}
	default:
		dy = cs // none (a loss), one, or a multi-output op's parts
	}
	var dyRead int64
	for _, c := range dy {
		dyRead += c.bytes
	}

	in := f.In(u)
	var rgIn []int32 // input edges that need a gradient
	for _, eid := range in {
		if d.rg[f.Edges[eid].From] {
			rgIn = append(rgIn, eid)
		}
	}
	trainable := d.trainable(u)
	pb := d.trainBytes(u)
	separateWeight := trainable && (r.WeightGrad || r.PerInput)
	paramGrad := -1 // the op that produces u's parameter gradient

	// dxBytes is what a gradient w.r.t. input edge eid outputs: nothing for
	// a variable, whose readers accumulate in place into its buffer.
	dxBytes := func(eid int32) int64 {
		if e := f.Edges[eid]; !d.rules[e.From].Variable {
			return e.Bytes
		}
		return 0
	}
	// connect adds the dY edges and the saved-tensor edges of gradient op
	// id, whose gradient is w.r.t. input edges grads; it returns the bytes
	// of saved tensors read.
	connect := func(id int, grads []int32, saved Saved) int64 {
		for _, c := range dy {
			d.addEdge(c.op, id, c.bytes)
		}
		var read int64
		readIn := func(eid int32) {
			e := f.Edges[eid]
			d.addEdge(e.From, id, e.Bytes)
			read += e.Bytes
		}
		switch saved {
		case SavedInputs, SavedInputsOutput:
			for _, eid := range in {
				readIn(eid)
			}
		case SavedOthers:
			for _, eid := range in {
				if len(grads) >= 2 || !slices.Contains(grads, eid) {
					readIn(eid)
				}
			}
		}
		if (saved == SavedOutput || saved == SavedInputsOutput) && fo.OutputBytes > 0 {
			d.addEdge(u, id, fo.OutputBytes)
			read += fo.OutputBytes
		}
		return read
	}

	// the loss's gradient (the seed) starts once the loss is known
	seed := func(id int) {
		if len(dy) == 0 && r.Saved != SavedOutput && r.Saved != SavedInputsOutput {
			d.addEdge(u, id, fo.OutputBytes)
		}
	}
	if r.PerInput {
		for k, eid := range rgIn {
			suffix := "grad"
			if len(rgIn) > 1 {
				suffix = fmt.Sprintf("grad_%d", k)
			}
			op := d.newOp(u, suffix, fo.Type+"-grad", Backward)
			op.FLOPs = r.FLOPs * fo.FLOPs
			op.OutputBytes = dxBytes(eid)
			op.TempBytes = fo.TempBytes
			scaleMeasured(op, fo, r.FLOPs)
			id := op.ID
			read := connect(id, []int32{eid}, r.Saved)
			seed(id)
			own := int64(0)
			if r.Saved == SavedOthers {
				own = pb // the weights, resident
			}
			g.Ops[id].BytesAccessed = dyRead + read + own + f.Edges[eid].Bytes
			g.Ops[id].FixedBytes = own
			d.contrib[f.Edges[eid].From] = append(d.contrib[f.Edges[eid].From], contribution{id, f.Edges[eid].Bytes})
		}
	} else if len(rgIn) > 0 || (trainable && !separateWeight) {
		op := d.newOp(u, "grad", fo.Type+"-grad", Backward)
		op.FLOPs = r.FLOPs * fo.FLOPs
		op.TempBytes = fo.TempBytes
		scaleMeasured(op, fo, r.FLOPs)
		var out, written int64
		for _, eid := range rgIn {
			out += dxBytes(eid)
			written += f.Edges[eid].Bytes
		}
		if trainable && !separateWeight {
			written += pb
			if !d.persistent {
				out += pb
			}
		}
		op.OutputBytes = out
		id := op.ID
		read := connect(id, rgIn, r.Saved)
		seed(id)
		g.Ops[id].BytesAccessed = dyRead + read + written
		if trainable && !separateWeight {
			g.Ops[id].FixedBytes = pb // the parameter gradient, whole
		}
		for _, eid := range rgIn {
			e := f.Edges[eid]
			d.contrib[e.From] = append(d.contrib[e.From], contribution{id, e.Bytes})
		}
		if trainable && !separateWeight {
			paramGrad = id
		}
	}
	if separateWeight {
		op := d.newOp(u, "grad_weight", fo.Type+"-grad-weight", Backward)
		k := r.FLOPs
		if k == 0 {
			k = 1
		}
		op.FLOPs = k * fo.FLOPs
		op.TempBytes = fo.TempBytes
		if !d.persistent {
			op.OutputBytes = pb
		}
		scaleMeasured(op, fo, k)
		id := op.ID
		// dW reads the data inputs (conv2d: dW = X * dY)
		read := connect(id, nil, SavedInputs)
		seed(id)
		g.Ops[id].BytesAccessed = dyRead + read + pb
		g.Ops[id].FixedBytes = pb // the parameter gradient, whole
		paramGrad = id
	}
	if trainable && paramGrad >= 0 {
		d.addUpdates(u, paramGrad)
	}
}

// ampWords is what mixed precision adds to each step's passes over a
// parameter tensor, in FP32 words per element, beyond the optimizer's:
// the FP16 copy of the weights the forward reads (read FP32, write FP16:
// 1.5; autocast casts each parameter once per forward, torch.amp's cast
// cache), its backward (read the FP16 gradient, write the FP32 one: 1.5),
// and the loss scaler's unscale of the FP32 gradients (read, write: 2;
// GradScaler.unscale_, _amp_foreach_non_finite_check_and_unscale_). apex's
// O2 (FP16 model, FP32 master copy) makes the same passes the other way
// round: gradients copied and unscaled into the master (1.5), the master
// weights copied back (1.5), the gradients divided and zeroed (2). They
// are streaming kernels over the parameters like the update, so they are
// charged to the update op.
const ampWords = 5

// addUpdates adds one update op per parameter tensor of u, reading the
// parameter gradient from op src.
func (d *deriver) addUpdates(u, src int) {
	ts := d.o.ParamTensors[u]
	if len(ts) == 0 {
		ts = []int64{d.trainBytes(u)}
	}
	opt := d.o.Optimizer
	if opt == "" {
		opt = SGD
	}
	typ := "apply-" + strings.ToLower(string(opt))
	for i, b := range ts {
		suffix := "update"
		if len(ts) > 1 {
			suffix = fmt.Sprintf("update_%d", i)
		}
		op := d.newOp(u, suffix, typ, Update)
		op.Precision = d.o.Precision.Update()
		elems := float64(b / d.o.Precision.ParamBytes())
		op.FLOPs = d.oc.flops * elems
		words := d.oc.words
		if d.o.Precision.Mixed() {
			words += ampWords
		}
		op.BytesAccessed = int64(words * float64(b))
		op.ParamBytes = d.oc.slots * b
		op.GradBytes = b
		if d.persistent {
			op.ParamBytes += b // the gradient buffer
		}
		d.addEdge(src, op.ID, b)
	}
}
