package fastt

import (
	"fmt"
	"sort"
	"strings"

	"placesim/workloads"
)

// Dim is a dimension along which an op is split (FastT section 5.2).
type Dim string

// Split dimensions.
const (
	// Batch splits the samples: fine-grained data parallelism within the
	// op. Each part reads a slice of every per-sample input and the whole
	// of the weights (parameters are replicated, not divided); the parts'
	// outputs are concatenated, or summed for a parameter gradient (a sum
	// over the batch).
	Batch Dim = "batch"
	// Channel splits the output channels (conv2d) or features (matmul):
	// fine-grained model parallelism. Each part reads the whole input and
	// 1/n of the weights; the outputs are concatenated along the channels.
	Channel Dim = "channel"
)

// Dims lists the split dimensions.
func Dims() []Dim { return []Dim{Batch, Channel} }

// ParseDim checks a dimension name.
func ParseDim(s string) (Dim, error) {
	for _, d := range Dims() {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: dimension %q (valid: batch, channel)", ErrBadSplit, s)
}

// splitRule says how ops of one type may be split.
type splitRule struct {
	// batch: along the batch; sum: the batch parts are summed (the op's
	// output is a parameter gradient) rather than concatenated.
	batch, sum bool
	// channel: along the output channels (needs the channel count).
	channel bool
}

// splitRules are the op types FastT splits: the compute-heavy per-sample
// ops (Table 5 and 6: Conv2D, Conv2D backprop, MatMul) and the cheap
// per-sample ops around them. Ops that reduce over the batch (batch-norm
// statistics, losses), update ops and shared variables are not split.
var splitRules = map[string]splitRule{
	"conv2d":             {batch: true, channel: true},
	"conv2d-grad":        {batch: true},
	"conv2d-grad-weight": {batch: true, sum: true},
	"depthwise-conv2d":   {batch: true},
	"matmul":             {batch: true, channel: true},
	"matmul-grad":        {batch: true},
	"matmul-grad-weight": {batch: true, sum: true},
	"batch-matmul":       {batch: true},
	"batch-matmul-grad":  {batch: true},
	"max-pool":           {batch: true},
	"max-pool-grad":      {batch: true},
	"avg-pool":           {batch: true},
	"avg-pool-grad":      {batch: true},
	"relu":               {batch: true},
	"relu-grad":          {batch: true},
	"softmax":            {batch: true},
	"softmax-grad":       {batch: true},
}

// dimsOf lists the dimensions op v of w may be split along (possibly
// none), with the size of each.
func dimsOf(w *work, v int) (dims []Dim, sizes []int) {
	op := &w.g.Ops[v]
	r, ok := splitRules[op.Type]
	in := w.info[v]
	if !ok || in.batch == 0 {
		return nil, nil
	}
	if r.batch && (r.sum || (in.perSample && op.OutputBytes > 0)) {
		dims, sizes = append(dims, Batch), append(sizes, in.batch)
	}
	if r.channel && in.chans > 0 {
		dims, sizes = append(dims, Channel), append(sizes, in.chans)
	}
	return dims, sizes
}

// checkSplit reports why op v cannot be split along d into n parts.
func checkSplit(w *work, v int, d Dim, n int) error {
	if v < 0 || v >= len(w.g.Ops) {
		return fmt.Errorf("%w: op %d (valid range: 0..%d)", ErrBadSplit, v, len(w.g.Ops)-1)
	}
	op := &w.g.Ops[v]
	if n < 2 {
		return fmt.Errorf("%w: op %q into n = %d parts (valid range: n >= 2)", ErrBadSplit, op.Name, n)
	}
	dims, sizes := dimsOf(w, v)
	for i, x := range dims {
		if x != d {
			continue
		}
		if sizes[i]%n != 0 {
			return fmt.Errorf("%w: op %q: its %s dimension of %d is not divisible by n = %d (valid: a divisor of %d)", ErrBadSplit, op.Name, d, sizes[i], n, sizes[i])
		}
		return nil
	}
	var valid []string
	for _, x := range dims {
		valid = append(valid, string(x))
	}
	if len(valid) == 0 {
		valid = []string{"none: the op is not splittable"}
	}
	return fmt.Errorf("%w: op %q of type %q along %q (valid: %s)", ErrBadSplit, op.Name, op.Type, d, strings.Join(valid, ", "))
}

// splitOperation is Algorithm 2's SplitOperation: op v of w is replaced by
// n sub-ops "<name>/part<i>" along dimension d; each per-sample input of a
// batch split goes through a split node "<name>/split<k>" (one per
// predecessor) whose parts feed the sub-ops, other inputs go whole to every
// part; the parts' outputs go to a concat node "<name>/concat" (or, for a
// parameter gradient split along the batch, a sum "<name>/sum") that
// feeds every successor with the bytes the op sent it. An op that owned its
// weights gets a variable "<name>/weights" holding them, which sends each
// part the whole weights (batch) or a 1/n slice (channel). A part has 1/n
// of the op's FLOPs and measured times; the concat or sum node takes the
// op's colocation group and its output size, so the rewritten graph's
// outputs are the same tensors. It returns the new work graph and the map
// from w's op IDs to the new ones (-1 for v).
func splitOperation(w *work, v int, d Dim, n int) (*work, []int, error) {
	if err := checkSplit(w, v, d, n); err != nil {
		return nil, nil, err
	}
	g := w.g
	u := g.Ops[v]
	in := w.info[v]
	ng := &workloads.Graph{Name: g.Name, Batch: g.Batch, Training: g.Training, Hint: g.Hint,
		Ops: make([]workloads.Op, 0, len(g.Ops)+n+4), Edges: make([]workloads.Edge, 0, len(g.Edges)+3*n+4)}
	nw := &work{g: ng, replicas: w.replicas, info: make([]opInfo, 0, len(g.Ops)+n+4)}
	add := func(op workloads.Op, oi opInfo) int {
		id := len(ng.Ops)
		op.ID = id
		ng.Ops = append(ng.Ops, op)
		nw.info = append(nw.info, oi)
		return id
	}
	edge := func(a, b int, bytes int64) { ng.Edges = append(ng.Edges, workloads.Edge{From: a, To: b, Bytes: bytes}) }
	div := func(x int64) int64 { return (x + int64(n) - 1) / int64(n) }
	idMap := make([]int, len(g.Ops))
	for x := range g.Ops {
		if x == v {
			idMap[x] = -1
			continue
		}
		idMap[x] = add(g.Ops[x], w.info[x])
	}
	for x := range nw.info {
		if wv := nw.info[x].weights; wv >= 0 {
			nw.info[x].weights = idMap[wv]
		}
	}
	for _, e := range g.Edges {
		if e.From != v && e.To != v {
			edge(idMap[e.From], idMap[e.To], e.Bytes)
		}
	}
	sum := d == Batch && splitRules[u.Type].sum
	// the weights: a shared variable already, or one made now
	weights := -1
	if in.weights >= 0 {
		weights = idMap[in.weights]
	} else if u.ParamBytes > 0 {
		weights = add(workloads.Op{Name: u.Name + "/weights", Type: "variable", Layer: u.Layer, Role: u.Role,
			ParamBytes: u.ParamBytes, Colocation: u.Colocation}, opInfo{origin: -1, weights: -1, replica: -1})
	}
	// the parts
	var inAct int64 // activation bytes the op reads
	for _, eid := range g.In(v) {
		if e := g.Edges[eid]; in.weights < 0 || e.From != in.weights {
			inAct += e.Bytes
		}
	}
	wBytes := u.ParamBytes
	if in.weights >= 0 {
		for _, eid := range g.In(v) {
			if e := g.Edges[eid]; e.From == in.weights {
				wBytes = max(wBytes, e.Bytes)
			}
		}
	}
	var outBytes int64 // what the op sends its heaviest consumer
	for _, eid := range g.Out(v) {
		outBytes = max(outBytes, g.Edges[eid].Bytes)
	}
	outBytes = max(outBytes, u.OutputBytes)
	parts := make([]int, n)
	for i := range parts {
		p := u
		p.Name = fmt.Sprintf("%s/part%d", u.Name, i)
		p.FLOPs = u.FLOPs / float64(n)
		p.ParamBytes = 0
		p.TempBytes = div(u.TempBytes)
		p.Colocation = ""
		pi := in
		pi.weights = weights
		switch d {
		case Batch:
			p.BytesAccessed, p.FixedBytes = batchShare(&u, wBytes, n)
			pi.batch = in.batch / n
		case Channel:
			p.BytesAccessed = min(u.BytesAccessed, inAct) + div(max(u.BytesAccessed-inAct, 0))
			// a channel part reads the batch's input whole and its share
			// of the weights: none of it is a whole parameter tensor
			p.FixedBytes = 0
			pi.chans = in.chans / n
		}
		if sum {
			p.OutputBytes = outBytes // a partial gradient of the whole size
			pi.perSample = false
		} else {
			p.OutputBytes = div(u.OutputBytes)
		}
		p.Measured = measuredOver(u.Measured, n)
		parts[i] = add(p, pi)
	}
	// inputs, one split node per per-sample predecessor of a batch split
	preds := map[int]int64{}
	for _, eid := range g.In(v) {
		e := g.Edges[eid]
		preds[e.From] = max(preds[e.From], e.Bytes)
	}
	keys := make([]int, 0, len(preds))
	for a := range preds {
		keys = append(keys, a)
	}
	sort.Ints(keys)
	for k, a := range keys {
		bytes := preds[a]
		switch {
		case a == in.weights:
			wb := bytes
			if d == Channel {
				wb = div(bytes)
			}
			for _, p := range parts {
				edge(weights, p, wb)
			}
		case d == Batch && w.info[a].perSample && w.info[a].batch > 0:
			sp := add(workloads.Op{Name: fmt.Sprintf("%s/split%d", u.Name, k), Type: "split", Layer: u.Layer, Role: u.Role,
				BytesAccessed: 2 * bytes, OutputBytes: bytes, CPUOnly: u.CPUOnly},
				opInfo{origin: -1, batch: in.batch, perSample: true, weights: -1, replica: in.replica})
			edge(idMap[a], sp, bytes)
			for _, p := range parts {
				edge(sp, p, div(bytes))
			}
		default:
			for _, p := range parts {
				edge(idMap[a], p, bytes)
			}
		}
	}
	if in.weights < 0 && weights >= 0 {
		wb := u.ParamBytes
		if d == Channel {
			wb = div(wb)
		}
		for _, p := range parts {
			edge(weights, p, wb)
		}
	}
	// the output: concat (or sum) in the op's colocation group
	comb := workloads.Op{Name: u.Name + "/concat", Type: "concat", Layer: u.Layer, Role: u.Role,
		BytesAccessed: 2 * u.OutputBytes, OutputBytes: u.OutputBytes, Colocation: u.Colocation, CPUOnly: u.CPUOnly}
	partOut := div(outBytes)
	if sum {
		comb.Name, comb.Type = u.Name+"/sum", "add-n"
		comb.FLOPs = float64(n-1) * float64(outBytes/4)
		comb.BytesAccessed = int64(n+1) * outBytes
		partOut = outBytes
	}
	ci := in
	ci.origin, ci.weights = -1, -1
	c := add(comb, ci)
	for _, p := range parts {
		edge(p, c, partOut)
	}
	for _, eid := range g.Out(v) {
		e := g.Edges[eid]
		edge(c, idMap[e.To], e.Bytes)
	}
	ng.RebuildAdjacency()
	return nw, idMap, nil
}
