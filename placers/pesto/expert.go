package pesto

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

var _ placers.Placer = (*Expert)(nil)

// Expert is Pesto's Expert baseline (section 5.2), derived from the zoo's
// layer names (workloads/zoo: "lstm_<i>", "layer_<i>", "embedding",
// "attention", "softmax", NASNet's "<cell>/branch_<k>"):
//
//   - NMT, RNNLM (stacked LSTM layers) and Transformer (stacked layers):
//     the layers of each stack (encoder, decoder) are split into k
//     contiguous runs, one per GPU, as Wu et al. place GNMT's layers; the
//     embedding goes with the first layer, attention and softmax with the
//     last.
//   - NASNet: within every cell, the parallel branches are dealt to the
//     GPUs so that each gets about the same estimated compute (largest
//     branch first to the least loaded GPU).
//   - Any other graph: its layers, in topological order, are cut into k
//     contiguous runs of about equal estimated compute ("assigning a
//     subset of layers to each GPU", section 1).
//
// Ops outside these layers (inputs, a cell's base and output, the stem)
// follow their first producer; CPU-only ops go to the CPU; a colocation
// group goes where its first op goes. Backward and update ops carry their
// forward op's layer, so they follow it. The plan leaves the order to the
// engine (TensorFlow's default scheduling).
type Expert struct{}

// NewExpert makes the Expert placer; it takes no options.
func NewExpert(placers.NoArgs) (placers.Placer, error) { return &Expert{}, nil }

// Name implements placers.Placer.
func (*Expert) Name() string { return "pesto-expert" }

var (
	lstmLayer  = regexp.MustCompile(`^(?:(.*)/)?lstm_(\d+)(?:_fw|_bw)?$`)
	stackLayer = regexp.MustCompile(`^(?:(.*)/)?layer_(\d+)(?:/.*)?$`)
	nasBranch  = regexp.MustCompile(`^((?:cell_stem|cell|reduction_cell)_\d+)/branch_(\d+)(?:/.*)?$`)
	firstLayer = regexp.MustCompile(`(^|/)embedding($|/)`)
	lastLayer  = regexp.MustCompile(`(^|/)(attention|softmax|loss|classifier)($|/)`)
)

// Place implements placers.Placer.
func (e *Expert) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil || req.Estimates == nil {
		return nil, fmt.Errorf("pesto-expert: the request needs a graph, a cluster and estimates")
	}
	g := req.Graph
	order, err := g.TopoOrder()
	if err != nil {
		return nil, fmt.Errorf("pesto-expert: %w", err)
	}
	acc, cpus := placers.Targets(req.Cluster)
	work := func(op int) float64 { // mean estimated time over the GPUs
		var s float64
		for _, d := range acc {
			if t := req.Estimates.OpTime(op, d); !math.IsInf(t, 1) {
				s += t
			}
		}
		return s / float64(len(acc))
	}
	dev := make([]int, len(g.Ops))
	for i := range dev {
		dev[i] = -1
	}
	switch {
	case anyLayer(g, lstmLayer):
		stackSplit(g, lstmLayer, acc, dev)
	case anyLayer(g, stackLayer):
		stackSplit(g, stackLayer, acc, dev)
	case anyLayer(g, nasBranch):
		branchSplit(g, acc, dev, work)
	default:
		layerSplit(g, order, acc, dev, work)
	}
	// the rest follows its first placed producer
	for _, op := range order {
		if dev[op] >= 0 {
			continue
		}
		dev[op] = acc[0]
		for _, eid := range g.In(op) {
			if d := dev[g.Edges[eid].From]; d >= 0 {
				dev[op] = d
				break
			}
		}
	}
	// colocation groups go with their first op; CPU-only groups to a CPU
	_, units := placers.Groups(g)
	plan := &engine.Plan{Device: make([]int, len(g.Ops))}
	for _, ops := range units {
		d := dev[ops[0]]
		if placers.UnitNeedsCPU(g, ops) {
			if len(cpus) == 0 {
				return nil, fmt.Errorf("pesto-expert: op %q is CPU-only and cluster %q has no CPU device", g.Ops[ops[0]].Name, req.Cluster.Name)
			}
			d = cpus[0]
		}
		for _, op := range ops {
			plan.Device[op] = d
		}
	}
	return plan, nil
}

func anyLayer(g *workloads.Graph, re *regexp.Regexp) bool {
	for i := range g.Ops {
		if re.MatchString(g.Ops[i].Layer) {
			return true
		}
	}
	return false
}

// stackSplit places stacked layers (re's groups: the stack's prefix and the
// layer index) in k contiguous runs per stack, the embedding with the first
// layer and attention, softmax and loss with the last.
func stackSplit(g *workloads.Graph, re *regexp.Regexp, acc []int, dev []int) {
	depth := map[string]int{} // layers per stack
	for i := range g.Ops {
		if m := re.FindStringSubmatch(g.Ops[i].Layer); m != nil {
			l, _ := strconv.Atoi(m[2])
			depth[m[1]] = max(depth[m[1]], l+1)
		}
	}
	k := len(acc)
	for i := range g.Ops {
		layer := g.Ops[i].Layer
		if m := re.FindStringSubmatch(layer); m != nil {
			l, _ := strconv.Atoi(m[2])
			dev[i] = acc[l*k/depth[m[1]]]
			continue
		}
		switch {
		case firstLayer.MatchString(layer):
			dev[i] = acc[0]
		case lastLayer.MatchString(layer):
			dev[i] = acc[k-1]
		}
	}
}

// branchSplit deals each NASNet cell's branches to the GPUs, largest
// estimated compute first to the least loaded.
func branchSplit(g *workloads.Graph, acc []int, dev []int, work func(int) float64) {
	type branch struct {
		cell string
		id   int
	}
	load := map[branch]float64{}
	ops := map[branch][]int{}
	var cells []string
	seen := map[string]bool{}
	for i := range g.Ops {
		m := nasBranch.FindStringSubmatch(g.Ops[i].Layer)
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[2])
		b := branch{m[1], id}
		load[b] += work(i)
		ops[b] = append(ops[b], i)
		if !seen[m[1]] {
			seen[m[1]] = true
			cells = append(cells, m[1])
		}
	}
	for _, cell := range cells {
		var bs []branch
		for b := range ops {
			if b.cell == cell {
				bs = append(bs, b)
			}
		}
		sort.Slice(bs, func(i, j int) bool {
			if load[bs[i]] != load[bs[j]] {
				return load[bs[i]] > load[bs[j]]
			}
			return bs[i].id < bs[j].id
		})
		gpu := make([]float64, len(acc))
		for _, b := range bs {
			best := 0
			for d := range gpu {
				if gpu[d] < gpu[best] {
					best = d
				}
			}
			gpu[best] += load[b]
			for _, op := range ops[b] {
				dev[op] = acc[best]
			}
		}
	}
}

// layerSplit cuts the layers, in the topological order of their first op,
// into len(acc) contiguous runs of about equal estimated compute.
func layerSplit(g *workloads.Graph, order []int, acc []int, dev []int, work func(int) float64) {
	idx := map[string]int{}
	var loads []float64
	for _, op := range order {
		l := g.Ops[op].Layer
		if l == "" {
			l = g.Ops[op].Name
		}
		i, ok := idx[l]
		if !ok {
			i = len(loads)
			idx[l] = i
			loads = append(loads, 0)
		}
		loads[i] += work(op)
	}
	var total float64
	for _, x := range loads {
		total += x
	}
	k := len(acc)
	runOf := make([]int, len(loads))
	var sum float64
	for i, x := range loads {
		// the run whose share the layer's midpoint falls in
		r := 0
		if total > 0 {
			r = int((sum + x/2) / total * float64(k))
		}
		runOf[i] = min(r, k-1)
		sum += x
	}
	for op := range g.Ops {
		l := g.Ops[op].Layer
		if l == "" {
			l = g.Ops[op].Name
		}
		dev[op] = acc[runOf[idx[l]]]
	}
}
