package onnx

import (
	"fmt"
	"sort"
)

// unrolls reports whether recurrent nodes import as one op per step.
func (imp *importer) unrolls() bool { return imp.opts.RNN != RNNFused }

// setLazy makes v the concatenation of parts (by time step along axis,
// or one group with axis -1): an alias of the one part's op when there is
// a single part of v's size, else a lazy value whose concat op, named
// name, is made when a consumer reads v whole.
func (imp *importer) setLazy(v *value, parts [][]*value, axis int, name, layer string) {
	var all []*value
	for _, g := range parts {
		all = append(all, g...)
	}
	if len(all) == 1 && all[0].bytes() == v.bytes() && all[0].lazy == nil {
		v.producer, v.lazy = all[0].producer, nil
		return
	}
	v.producer = lazyProducer
	v.lazy = &lazyValue{parts: parts, axis: axis, name: name, layer: layer}
}

// materialize makes the concat op that computes a lazy value whole.
func (imp *importer) materialize(v *value) {
	lz := v.lazy
	if lz == nil {
		return
	}
	op := pendingOp{name: lz.name, typ: "concat", layer: lz.layer, outputBytes: v.bytes()}
	var inBytes int64
	for _, g := range lz.parts {
		for _, p := range g {
			op.inputs = append(op.inputs, p)
			inBytes += p.bytes()
		}
	}
	op.bytesAccessed = inBytes + op.outputBytes
	v.lazy, v.producer = nil, len(imp.ops)
	imp.ops = append(imp.ops, op)
}

// keepsTimeAxis reports whether a view node (Identity, Transpose,
// Reshape, Flatten, Squeeze, Unsqueeze) maps the time slices of its lazy
// input x one to one onto slices of its output, and along which axis: a
// transpose moves the axis; a reshape keeps the slices when the output has
// an axis of the same size after dimensions of the same product (row-major
// order).
func keepsTimeAxis(opType string, x *value, c *nodeCtx) (int, bool) {
	a := x.lazy.axis
	if a < 0 || len(c.out) != 1 || c.out[0] == nil {
		return 0, false
	}
	out := c.out[0].shape
	switch opType {
	case "Identity":
		return a, true
	case "Transpose":
		perm, ok, err := c.attrInts("perm")
		if err != nil {
			return 0, false
		}
		if !ok {
			perm = make([]int64, len(x.shape))
			for i := range perm {
				perm[i] = int64(len(perm) - 1 - i)
			}
		}
		for b, p := range perm {
			if p == int64(a) && b < len(out) && out[b] == x.shape[a] {
				return b, true
			}
		}
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze":
		prefix := prod(x.shape[:a])
		q := int64(1)
		for b, d := range out {
			if q == prefix && d == x.shape[a] {
				return b, true
			}
			if q *= d; q > prefix {
				break
			}
		}
	}
	return 0, false
}

// placeholder imports a node of an unsupported op type (or one that reads
// an output of unknown shape) as a zero-cost op of type "unsupported"
// (lenient import). Its outputs take their shapes from value_info where
// it gives them; the others are unknown.
func (imp *importer) placeholder(c *nodeCtx, downstream bool) error {
	name := c.name()
	if downstream {
		imp.downstream = append(imp.downstream, name)
	} else {
		key := c.n.opType
		if c.n.domain != "" && c.n.domain != "ai.onnx" {
			key = c.n.domain + "." + key
		}
		imp.placeholders[key] = append(imp.placeholders[key], name)
	}
	op := pendingOp{name: name, typ: "unsupported", layer: layerOf(c.n.name)}
	seen := map[*value]bool{}
	for _, v := range c.in {
		if v != nil && !seen[v] {
			seen[v] = true
			imp.materialize(v)
			op.inputs = append(op.inputs, v)
		}
	}
	id := len(imp.ops)
	for _, v := range c.out {
		if v == nil {
			continue
		}
		v.unknown = true
		if vi, ok := imp.valueInfo[v.name]; ok && vi.isTensor && vi.hasShape {
			if shape, _, ok := imp.resolveDims(vi, false); ok && checkShape(shape) == nil && checkDtype(vi.elemType) == nil {
				v.shape, v.dtype, v.unknown = shape, vi.elemType, false
			}
		}
		v.producer = id
		op.outputBytes += v.bytes()
		imp.vals[v.name] = v
	}
	imp.ops = append(imp.ops, op)
	return nil
}

// warnings are the lenient import's warnings: one per unsupported op
// type, and one for the nodes made placeholders because they read an
// output of unknown shape.
func (imp *importer) warnings() []string {
	types := make([]string, 0, len(imp.placeholders))
	for k := range imp.placeholders {
		types = append(types, k)
	}
	sort.Strings(types)
	var w []string
	for _, k := range types {
		nodes := imp.placeholders[k]
		w = append(w, fmt.Sprintf("onnx model %q: unsupported op type %s: %d node(s) imported as zero-cost placeholders (first %q); costs and parameters of those nodes are missing", imp.file, k, len(nodes), nodes[0]))
	}
	if n := len(imp.downstream); n > 0 {
		w = append(w, fmt.Sprintf("onnx model %q: %d node(s) read an output of an unsupported op whose shape no value_info gives, imported as zero-cost placeholders too (first %q)", imp.file, n, imp.downstream[0]))
	}
	return w
}
