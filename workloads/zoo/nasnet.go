package zoo

import (
	"fmt"
	"strconv"
	"strings"
)

// nasCell is a NASNet-A cell: five combinations, each adding the results of
// two operations on two hidden states (Zoph et al. 2018, Figure 4), as
// TF-slim's nasnet_utils encodes them.
type nasCell struct {
	ops  [10]string
	idx  [10]int
	used [7]bool
}

var (
	nasNormal = nasCell{
		ops:  [10]string{"sep_5", "sep_3", "sep_5", "sep_3", "avg_3", "none", "avg_3", "avg_3", "sep_3", "none"},
		idx:  [10]int{0, 1, 1, 1, 0, 1, 1, 1, 0, 0},
		used: [7]bool{true},
	}
	nasReduction = nasCell{
		ops:  [10]string{"sep_5", "sep_7", "max_3", "sep_7", "avg_3", "sep_5", "none", "avg_3", "sep_3", "max_3"},
		idx:  [10]int{0, 1, 0, 1, 0, 1, 3, 2, 2, 0},
		used: [7]bool{true, true, true},
	}
)

// buildNASNet is NASNet-A for ImageNet (Zoph et al. 2018, "Learning
// Transferable Architectures for Scalable Image Recognition", Figures 2 and
// 4, as TF-slim's nasnet.py builds it): a 3x3 stem convolution, two
// reduction cells as stem, then three stacks of cells normal cells with a
// reduction cell between stacks, doubling the filters; ReLU, separable
// convolutions and batch norm inside the cells, drop path in training, an
// auxiliary head before the second reduction (training, aux=true), global
// average pool, dropout and the classifier. cells=6, filters=168 at 331x331
// is NASNet-A Large (6@4032); cells=4, filters=44 at 224 is Mobile. Layers:
// stem/conv_0, cell_stem_<i>, cell_<i>, reduction_cell_<i>, each with
// base, branch_<k>/{left,right,combine} and output.
func buildNASNet(p *Params) (*net, error) {
	perStack, err := p.Int("cells", 6, 1, 32)
	if err != nil {
		return nil, err
	}
	filters, err := p.Int("filters", 168, 8, 4096)
	if err != nil {
		return nil, err
	}
	n, x, labels, classes, err := imageInput(p, "nasnet", 331, 64, true)
	if err != nil {
		return nil, err
	}
	aux, err := p.Bool("aux", true)
	if err != nil {
		return nil, err
	}

	n.in("stem/conv_0", "conv-block")
	x = n.convBN("", x, 3*32, 3, 3, 2, valid, true, false)
	outs := []tensor{{op: -1}, x}
	scaling := 0.25
	for i := 0; i < 2; i++ {
		x = n.nasnetCell(fmt.Sprintf("cell_stem_%d", i), nasReduction, x, outs[len(outs)-2], int(float64(filters)*scaling), 2)
		outs = append(outs, x)
		scaling *= 2
	}
	numCells := 3 * perStack
	reductions := []int{numCells / 3, 2 * numCells / 3}
	scaling = 1
	var auxLoss tensor
	withAux := aux && n.train
	for c := 0; c < numCells; c++ {
		prev := outs[len(outs)-2] // TF-slim's skip_reduction_layer_input
		if r := indexOf(reductions, c); r >= 0 {
			scaling *= 2
			x = n.nasnetCell(fmt.Sprintf("reduction_cell_%d", r), nasReduction, x, outs[len(outs)-2], int(float64(filters)*scaling), 2)
			outs = append(outs, x)
		}
		x = n.nasnetCell(fmt.Sprintf("cell_%d", c), nasNormal, x, prev, int(float64(filters)*scaling), 1)
		outs = append(outs, x)
		if withAux && c == reductions[1]-1 {
			auxLoss = n.nasnetAux(x, labels, classes)
		}
	}
	n.in("classifier/relu", "relu")
	x = n.relu("relu", x)
	loss := classifier(n, x, labels, classes, true)
	if withAux {
		totalLoss(n, loss, auxLoss)
	}
	return n, nil
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// nasnetCell builds one cell; prev.op < 0 means there is no previous layer.
func (n *net) nasnetCell(scope string, spec nasCell, x, prev tensor, filters, stride int) tensor {
	n.in(scope+"/base", "cell-base")
	if prev.op < 0 {
		prev = x
	} else if prev.shape[2] != x.shape[2] {
		prev = n.factorizedReduction("prev", n.relu("prev_relu", prev), filters, 2)
	} else if prev.dim() != filters {
		prev = n.convBN("prev_1x1", n.relu("prev_relu", prev), filters, 1, 1, 1, same, true, false)
	}
	h := n.convBN("1x1", n.relu("relu", x), filters, 1, 1, 1, same, true, false)
	states := []tensor{h, prev}
	for i := 0; i < 5; i++ {
		pre := fmt.Sprintf("%s/branch_%d", scope, i)
		var sides [2]tensor
		for s, side := range []string{"left", "right"} {
			k := 2*i + s
			n.in(pre+"/"+side, "cell-op")
			sides[s] = n.nasnetOp(states[spec.idx[k]], spec.ops[k], stride, spec.idx[k] < 2, filters)
		}
		n.in(pre+"/combine", "add")
		states = append(states, n.add("add", sides[0], sides[1]))
	}
	n.in(scope+"/output", "concat")
	last := states[len(states)-1]
	var unused []tensor
	for i, st := range states {
		if spec.used[i] {
			continue
		}
		if st.shape[2] != last.shape[2] || st.dim() != last.dim() {
			s := 1
			if st.shape[2] != last.shape[2] {
				s = 2
			}
			st = n.factorizedReduction(fmt.Sprintf("reduction_%d", i), st, last.dim(), s)
		}
		unused = append(unused, st)
	}
	return n.concat("concat", unused...)
}

// nasnetOp applies one of a cell's operations (TF-slim _apply_conv_operation).
func (n *net) nasnetOp(x tensor, op string, stride int, original bool, filters int) tensor {
	if stride > 1 && !original {
		stride = 1
	}
	kind, ks, _ := strings.Cut(op, "_")
	k, _ := strconv.Atoi(ks)
	switch kind {
	case "sep": // two stacked ReLU, separable convolution, batch norm
		for l := 1; l <= 2; l++ {
			name := fmt.Sprintf("separable_%dx%d_%d", k, k, l)
			x = n.relu(name+"/relu", x)
			x = n.separable(name, x, filters, k, stride)
			x = n.batchNorm(name+"/batchnorm", x, true)
			stride = 1
		}
	case "none":
		if stride > 1 || x.dim() != filters {
			x = n.convBN("1x1", n.relu("relu", x), filters, 1, 1, stride, same, true, false)
		}
		return x
	case "avg", "max":
		x = n.pool(kind+"_pool", kind+"-pool", x, k, stride, same)
		if x.dim() != filters {
			x = n.convBN("1x1", x, filters, 1, 1, 1, same, true, false)
		}
	default:
		n.fail("unknown NASNet operation %q", op)
		return x
	}
	return n.dropout("drop_path", x, []int{x.shape[0], 1, 1, 1})
}

// factorizedReduction halves the grid with two offset 1x1 paths (TF-slim
// nasnet_utils.factorized_reduction), or is a 1x1 conv at stride 1.
func (n *net) factorizedReduction(name string, x tensor, out, stride int) tensor {
	if stride == 1 {
		return n.convBN(name+"/path", x, out, 1, 1, 1, same, true, false)
	}
	p1 := n.pool(name+"/path1/avg_pool", "avg-pool", x, 1, 2, valid)
	p1 = n.conv2d(name+"/path1/conv2d", p1, out/2, 1, 1, 1, same)
	b, h, w, c := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	p2 := n.op(name+"/path2/pad", "pad", 0, []int{b, h + 1, w + 1, c}, nil, x)
	p2 = n.op(name+"/path2/slice", "slice", 0, []int{b, h, w, c}, nil, p2)
	p2 = n.pool(name+"/path2/avg_pool", "avg-pool", p2, 1, 2, valid)
	p2 = n.conv2d(name+"/path2/conv2d", p2, out/2+out%2, 1, 1, 1, same)
	return n.batchNorm(name+"/batchnorm", n.concat(name+"/concat", p1, p2), true)
}

// nasnetAux is TF-slim's auxiliary head: ReLU, 5x5/3 average pool, 1x1
// conv 128 with batch norm and ReLU, a conv over the whole grid to 768
// with batch norm and ReLU, the classifier and its loss (returned).
func (n *net) nasnetAux(x, labels tensor, classes int) tensor {
	n.in("aux/pool", "avg-pool")
	a := n.pool("avg_pool", "avg-pool", n.relu("relu", x), 5, 3, valid)
	n.in("aux/conv_1", "conv-block")
	a = n.convBN("", a, 128, 1, 1, 1, same, true, true)
	n.in("aux/conv_2", "conv-block")
	a = n.convBN("", a, 768, a.shape[1], a.shape[2], 1, valid, true, true)
	n.in("aux/fc", "dense")
	a = n.reshape("flatten", "reshape", a, a.shape[0], a.dim())
	logits := n.dense("fc", a, classes, "")
	n.in("aux/loss", "loss")
	return n.xentLoss("loss", logits, labels)
}
