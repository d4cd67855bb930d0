package onnx

import (
	"fmt"
	"math"
	"sort"
)

func addShapeOps(h map[string]handler) {
	h["Reshape"] = handler{view: true, infer: inferReshape}
	h["Flatten"] = handler{view: true, infer: inferFlatten}
	h["Squeeze"] = handler{view: true, infer: inferSqueeze}
	h["Unsqueeze"] = handler{view: true, infer: inferUnsqueeze}
	h["Transpose"] = handler{infer: inferTranspose}
	h["Concat"] = handler{infer: inferConcat}
	h["Split"] = handler{infer: inferSplit}
	h["Slice"] = handler{infer: inferSlice}
	h["Gather"] = handler{infer: inferGather}
	h["Expand"] = handler{infer: inferExpand}
	h["Tile"] = handler{infer: inferTile}
	h["Pad"] = handler{infer: inferPad}
	h["Resize"] = handler{infer: inferResize}
	h["Range"] = handler{infer: inferRange}
	h["ConstantOfShape"] = handler{infer: inferConstantOfShape}
	h["Shape"] = handler{alwaysFold: true, infer: inferShape}
	h["Size"] = handler{alwaysFold: true, infer: inferSize}
	h["Constant"] = handler{alwaysFold: true, infer: inferConstant}
}

// shapeFromVals checks a shape given as values (Expand, Tile...).
func shapeFromVals(vals []int64, what string) ([]int64, error) {
	s := clone(vals)
	if err := checkShape(s); err != nil {
		return nil, fmt.Errorf("%s %v: %v", what, vals, err)
	}
	return s, nil
}

// inferReshape: a 0 copies the input dimension (unless allowzero), one -1
// is inferred from the element count.
func inferReshape(c *nodeCtx) error {
	if err := c.arity(1, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	target, err := c.requiredInts("shape", 1)
	if err != nil {
		return err
	}
	allowZero, err := c.attrInt("allowzero", 0)
	if err != nil {
		return err
	}
	out := make([]int64, len(target))
	infer := -1
	known := int64(1)
	for i, d := range target {
		switch {
		case d == 0 && allowZero == 0:
			if i >= len(x.shape) {
				return fmt.Errorf("target shape %v: 0 at index %d copies an input dimension, but the input %v has rank %d", target, i, x.shape, len(x.shape))
			}
			out[i] = x.shape[i]
		case d == -1:
			if infer >= 0 {
				return fmt.Errorf("target shape %v has more than one -1", target)
			}
			infer = i
			continue
		case d < -1:
			return fmt.Errorf("target shape %v: %d (valid: >= -1)", target, d)
		default:
			out[i] = d
		}
		if out[i] > maxElems {
			return fmt.Errorf("target shape %v: dimension %d is too large", target, out[i])
		}
		if out[i] != 0 {
			if known > maxElems/out[i] {
				return fmt.Errorf("target shape %v has more than 2^48 elements", target)
			}
			known *= out[i]
		} else {
			known = 0
		}
	}
	n := numel(x.shape)
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return fmt.Errorf("cannot reshape %v (%d elements) to %v", x.shape, n, target)
		}
		out[infer] = n / known
	} else if known != n {
		return fmt.Errorf("cannot reshape %v (%d elements) to %v (%d elements)", x.shape, n, target, known)
	}
	c.set(0, x.dtype, out, x.vals)
	return nil
}

// inferFlatten: (d0...dn) -> (d0*...*d(axis-1), daxis*...*dn).
func inferFlatten(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	axis, err := c.attrInt("axis", 1)
	if err != nil {
		return err
	}
	r := int64(len(x.shape))
	if axis < -r || axis > r {
		return fmt.Errorf("attribute axis = %d (valid range: [%d, %d])", axis, -r, r)
	}
	if axis < 0 {
		axis += r
	}
	c.set(0, x.dtype, []int64{prod(x.shape[:axis]), prod(x.shape[axis:])}, x.vals)
	return nil
}

// axesSet normalizes and de-duplicates axes for a rank.
func axesSet(axes []int64, rank int) (map[int]bool, error) {
	set := map[int]bool{}
	for _, a := range axes {
		n, err := normAxis(a, rank)
		if err != nil {
			return nil, fmt.Errorf("axes %v: %v", axes, err)
		}
		if set[n] {
			return nil, fmt.Errorf("axes %v: axis %d given twice", axes, n)
		}
		set[n] = true
	}
	return set, nil
}

func inferSqueeze(c *nodeCtx) error {
	if err := c.arity(1, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	axes, ok, err := c.intsAttrOrInput("axes", 1)
	if err != nil {
		return err
	}
	set := map[int]bool{}
	if ok {
		if set, err = axesSet(axes, len(x.shape)); err != nil {
			return err
		}
	} else {
		for i, d := range x.shape {
			set[i] = d == 1
		}
	}
	out := []int64{}
	for i, d := range x.shape {
		if !set[i] {
			out = append(out, d)
		} else if d != 1 {
			return fmt.Errorf("axes %v: dimension %d of %v is %d, not 1", axes, i, x.shape, d)
		}
	}
	c.set(0, x.dtype, out, x.vals)
	return nil
}

func inferUnsqueeze(c *nodeCtx) error {
	if err := c.arity(1, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	axes, err := c.requiredInts("axes", 1)
	if err != nil {
		return err
	}
	rank := len(x.shape) + len(axes)
	set, err := axesSet(axes, rank)
	if err != nil {
		return err
	}
	out := make([]int64, 0, rank)
	k := 0
	for i := 0; i < rank; i++ {
		if set[i] {
			out = append(out, 1)
		} else {
			out = append(out, x.shape[k])
			k++
		}
	}
	c.set(0, x.dtype, out, x.vals)
	return nil
}

func inferTranspose(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	r := len(x.shape)
	perm, ok, err := c.attrInts("perm")
	if err != nil {
		return err
	}
	if !ok {
		for i := r - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != r {
		return fmt.Errorf("attribute perm = %v: want a permutation of 0..%d", perm, r-1)
	}
	out := make([]int64, r)
	seen := make([]bool, r)
	for i, p := range perm {
		if p < 0 || p >= int64(r) || seen[p] {
			return fmt.Errorf("attribute perm = %v: want a permutation of 0..%d", perm, r-1)
		}
		seen[p] = true
		out[i] = x.shape[p]
	}
	var vals []int64
	if numel(x.shape) <= 1 || r <= 1 {
		vals = x.vals
	}
	c.set(0, x.dtype, out, vals)
	return nil
}

func inferConcat(c *nodeCtx) error {
	if err := c.arity(1, 1<<16, 1, 1); err != nil {
		return err
	}
	if c.attr("axis") == nil {
		return fmt.Errorf("attribute axis is required")
	}
	first := c.in[0].shape
	a, err := c.attrAxis(0, len(first))
	if err != nil {
		return err
	}
	out := clone(first)
	out[a] = 0
	for i, v := range c.in {
		if v == nil {
			return fmt.Errorf("input %d is required", i)
		}
		if len(v.shape) != len(first) {
			return fmt.Errorf("input %d of shape %v: rank differs from input 0's %v", i, v.shape, first)
		}
		for d := range first {
			if d != a && v.shape[d] != first[d] {
				return fmt.Errorf("input %d of shape %v: dimension %d differs from input 0's %v", i, v.shape, d, first)
			}
		}
		if out[a] += v.shape[a]; out[a] > maxElems {
			return fmt.Errorf("concatenated dimension is too large")
		}
	}
	if err := checkShape(out); err != nil {
		return err
	}
	var vals []int64
	if len(first) == 1 && out[0] <= maxFold {
		vals = []int64{}
		for _, v := range c.in {
			if v.vals == nil {
				vals = nil
				break
			}
			vals = append(vals, v.vals...)
		}
	}
	c.set(0, c.in[0].dtype, out, vals)
	return nil
}

func inferSplit(c *nodeCtx) error {
	if err := c.arity(1, 2, 1, 1<<16); err != nil {
		return err
	}
	x := c.in[0]
	a, err := c.attrAxis(0, len(x.shape))
	if err != nil {
		return err
	}
	n := int64(len(c.out))
	dim := x.shape[a]
	split, ok, err := c.intsAttrOrInput("split", 1)
	if err != nil {
		return err
	}
	if ok {
		var sum int64
		for _, s := range split {
			if s < 0 || s > dim {
				return fmt.Errorf("split %v: %d (valid range: [0, %d])", split, s, dim)
			}
			sum += s
		}
		if int64(len(split)) != n || sum != dim {
			return fmt.Errorf("split %v: want %d parts summing to dimension %d = %d", split, n, a, dim)
		}
	} else {
		part := (dim + n - 1) / n
		for i := int64(0); i < n; i++ {
			split = append(split, max(0, min(part, dim-i*part)))
		}
	}
	var off int64
	for i, s := range split {
		out := clone(x.shape)
		out[a] = s
		var vals []int64
		if len(x.shape) == 1 && x.vals != nil {
			vals = x.vals[off : off+s]
		}
		off += s
		c.set(i, x.dtype, out, vals)
	}
	return nil
}

// sliceRange clamps a slice of a dimension as ONNX Slice does and returns
// the first index and the count.
func sliceRange(start, end, step, dim int64) (int64, int64) {
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	if step > 0 {
		start = min(max(start, 0), dim)
		end = min(max(end, 0), dim)
		if end <= start {
			return start, 0
		}
		return start, (end - start + step - 1) / step
	}
	start = min(max(start, 0), dim-1)
	end = min(max(end, -1), dim-1)
	if end >= start {
		return start, 0
	}
	return start, (start - end + (-step) - 1) / (-step)
}

func inferSlice(c *nodeCtx) error {
	if err := c.arity(1, 5, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	starts, ok, err := c.intsAttrOrInput("starts", 1)
	if err != nil {
		return err
	}
	ends, ok2, err := c.intsAttrOrInput("ends", 2)
	if err != nil {
		return err
	}
	if !ok || !ok2 {
		return fmt.Errorf("starts and ends (inputs 1, 2 or attributes) are required")
	}
	axes, hasAxes, err := c.intsAttrOrInput("axes", 3)
	if err != nil {
		return err
	}
	var steps []int64
	if c.opt(4) != nil {
		if steps, err = c.ints(4, "steps"); err != nil {
			return err
		}
	}
	if len(ends) != len(starts) || (hasAxes && len(axes) != len(starts)) || (steps != nil && len(steps) != len(starts)) {
		return fmt.Errorf("starts %v, ends %v, axes %v, steps %v: want equal lengths", starts, ends, axes, steps)
	}
	if !hasAxes {
		axes = make([]int64, len(starts))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	if _, err := axesSet(axes, len(x.shape)); err != nil {
		return err
	}
	out := clone(x.shape)
	first, stride := int64(0), int64(1)
	for i := range starts {
		a, _ := normAxis(axes[i], len(x.shape))
		step := int64(1)
		if steps != nil {
			step = steps[i]
		}
		if step == 0 || step == math.MinInt64 {
			return fmt.Errorf("steps %v: %d (valid: non-zero)", steps, step)
		}
		first, out[a] = sliceRange(starts[i], ends[i], step, x.shape[a])
		stride = step
	}
	var vals []int64
	if len(x.shape) == 1 && x.vals != nil {
		for k := int64(0); k < out[0]; k++ {
			vals = append(vals, x.vals[first+k*stride])
		}
	}
	c.set(0, x.dtype, out, vals)
	return nil
}

// inferGather: data[:axis] + indices.shape + data[axis+1:]. A gather from
// a parameter is an embedding lookup. Bytes: the indices, then the rows
// read and written.
func inferGather(c *nodeCtx) error {
	if err := c.arity(2, 2, 1, 1); err != nil {
		return err
	}
	data, idx := c.in[0], c.in[1]
	if !isInt(idx.dtype) || idx.dtype == dtBool {
		return fmt.Errorf("indices %q have data type %d (valid: an integer type)", idx.name, idx.dtype)
	}
	a, err := c.attrAxis(0, len(data.shape))
	if err != nil {
		return err
	}
	dim := data.shape[a]
	for _, i := range idx.vals {
		if i < -dim || i >= dim {
			return fmt.Errorf("index %d out of range [%d, %d] for dimension %d of %v", i, -dim, dim-1, a, data.shape)
		}
	}
	out := append(append(clone(data.shape[:a]), idx.shape...), data.shape[a+1:]...)
	if err := checkShape(out); err != nil {
		return err
	}
	var vals []int64
	if len(data.shape) == 1 && data.vals != nil && idx.vals != nil {
		for _, i := range idx.vals {
			if i < 0 {
				i += dim
			}
			vals = append(vals, data.vals[i])
		}
	}
	c.typ = "gather"
	if data.param {
		c.typ = "embedding"
	}
	outBytes := sizeBytes(data.dtype, numel(out))
	c.bytesAccessed = idx.bytes() + 2*outBytes
	c.set(0, data.dtype, out, vals)
	return nil
}

func inferExpand(c *nodeCtx) error {
	if err := c.arity(2, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	sv, err := c.ints(1, "shape")
	if err != nil {
		return err
	}
	s, err := shapeFromVals(sv, "shape")
	if err != nil {
		return err
	}
	out, err := broadcast(x.shape, s)
	if err != nil {
		return err
	}
	if err := checkShape(out); err != nil {
		return err
	}
	var vals []int64
	if x.vals != nil && len(x.vals) == 1 && numel(out) <= maxFold {
		vals = make([]int64, numel(out))
		for i := range vals {
			vals[i] = x.vals[0]
		}
	}
	c.set(0, x.dtype, out, vals)
	return nil
}

func inferTile(c *nodeCtx) error {
	if err := c.arity(2, 2, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	reps, err := c.ints(1, "repeats")
	if err != nil {
		return err
	}
	if len(reps) != len(x.shape) {
		return fmt.Errorf("repeats %v: want one per dimension of %v", reps, x.shape)
	}
	out := clone(x.shape)
	for i, r := range reps {
		if r < 0 || r > maxElems {
			return fmt.Errorf("repeats %v: %d (valid range: [0, 2^48])", reps, r)
		}
		if r != 0 && out[i] > maxElems/r {
			return fmt.Errorf("repeats %v make the result too large", reps)
		}
		out[i] *= r
	}
	if err := checkShape(out); err != nil {
		return err
	}
	c.set(0, x.dtype, out, nil)
	return nil
}

func inferPad(c *nodeCtx) error {
	if err := c.arity(1, 4, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	pads, err := c.requiredInts("pads", 1)
	if err != nil {
		return err
	}
	axes := make([]int64, len(x.shape))
	for i := range axes {
		axes[i] = int64(i)
	}
	if c.opt(3) != nil {
		if axes, err = c.ints(3, "axes"); err != nil {
			return err
		}
		if _, err := axesSet(axes, len(x.shape)); err != nil {
			return err
		}
	}
	if len(pads) != 2*len(axes) {
		return fmt.Errorf("pads %v: want %d values (begin and end per padded axis)", pads, 2*len(axes))
	}
	out := clone(x.shape)
	for i, ax := range axes {
		a, _ := normAxis(ax, len(x.shape))
		b, e := pads[i], pads[i+len(axes)]
		if b < -maxElems || b > maxElems || e < -maxElems || e > maxElems {
			return fmt.Errorf("pads %v: values out of range [-2^48, 2^48]", pads)
		}
		if out[a] += b + e; out[a] < 0 {
			return fmt.Errorf("pads %v remove more than dimension %d of %v", pads, a, x.shape)
		}
	}
	if err := checkShape(out); err != nil {
		return err
	}
	c.set(0, x.dtype, out, nil)
	return nil
}

// inferResize takes the output size from sizes, else floor(dim * scale);
// FLOPs = 4 per output element (bilinear-like interpolation).
func inferResize(c *nodeCtx) error {
	if err := c.arity(1, 4, 1, 1); err != nil {
		return err
	}
	x := c.in[0]
	out := clone(x.shape)
	switch {
	case c.opt(3) != nil:
		sizes, err := c.ints(3, "sizes")
		if err != nil {
			return err
		}
		if len(sizes) != len(x.shape) {
			return fmt.Errorf("sizes %v: want one per dimension of %v", sizes, x.shape)
		}
		out = clone(sizes)
	case c.opt(2) != nil:
		sc := c.opt(2)
		if sc.constant() && len(sc.shape) == 1 && sc.shape[0] == 0 {
			return fmt.Errorf("scales is empty and sizes is not given")
		}
		return fmt.Errorf("scales %q: %w", sc.name, errDynamic) // float scales: take value_info
	default:
		return fmt.Errorf("one of scales (input 2) or sizes (input 3) is required")
	}
	if err := checkShape(out); err != nil {
		return err
	}
	c.flops = 4 * float64(numel(out))
	c.set(0, x.dtype, out, nil)
	return nil
}

func inferRange(c *nodeCtx) error {
	if err := c.arity(3, 3, 1, 1); err != nil {
		return err
	}
	var v [3]int64
	for i, what := range []string{"start", "limit", "delta"} {
		vals, err := c.ints(i, what)
		if err != nil {
			return err
		}
		if len(vals) != 1 {
			return fmt.Errorf("input %d (%s) of shape %v: want a scalar", i, what, c.in[i].shape)
		}
		v[i] = vals[0]
	}
	start, limit, delta := v[0], v[1], v[2]
	if delta == 0 {
		return fmt.Errorf("delta is 0")
	}
	n := (float64(limit) - float64(start)) / float64(delta)
	if n > float64(maxElems) {
		return fmt.Errorf("range(%d, %d, %d) has more than 2^48 elements", start, limit, delta)
	}
	count := max(int64(math.Ceil(n)), 0)
	var vals []int64
	if count <= maxFold {
		for k := int64(0); k < count; k++ {
			vals = append(vals, start+k*delta)
		}
	}
	c.set(0, c.in[0].dtype, []int64{count}, vals)
	return nil
}

func inferConstantOfShape(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	sv, err := c.ints(0, "shape")
	if err != nil {
		return err
	}
	out, err := shapeFromVals(sv, "shape")
	if err != nil {
		return err
	}
	dt, fill := int32(dtFloat), int64(0)
	if a := c.attr("value"); a != nil {
		if a.typ != attrTensor || a.t == nil {
			return fmt.Errorf("attribute value: want a one-element tensor")
		}
		v, err := tensorValue(a.t)
		if err != nil {
			return fmt.Errorf("attribute value: %w", err)
		}
		if numel(v.shape) != 1 {
			return fmt.Errorf("attribute value of shape %v: want one element", v.shape)
		}
		dt = v.dtype
		if v.vals != nil {
			fill = v.vals[0]
		}
	}
	var vals []int64
	if isInt(dt) && numel(out) <= maxFold {
		vals = make([]int64, numel(out))
		for i := range vals {
			vals[i] = fill
		}
	}
	c.set(0, dt, out, vals)
	return nil
}

func inferShape(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	s := c.in[0].shape
	r := int64(len(s))
	start, err := c.attrInt("start", 0)
	if err != nil {
		return err
	}
	end, err := c.attrInt("end", r)
	if err != nil {
		return err
	}
	clamp := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end = clamp(start), clamp(end)
	vals := []int64{}
	if end > start {
		vals = clone(s[start:end])
	}
	c.set(0, dtInt64, []int64{int64(len(vals))}, vals)
	return nil
}

func inferSize(c *nodeCtx) error {
	if err := c.arity(1, 1, 1, 1); err != nil {
		return err
	}
	c.set(0, dtInt64, []int64{}, []int64{numel(c.in[0].shape)})
	return nil
}

// inferConstant reads the value, value_int(s) or value_float(s) attribute.
func inferConstant(c *nodeCtx) error {
	if err := c.arity(0, 0, 1, 1); err != nil {
		return err
	}
	if len(c.n.attribute) != 1 {
		names := []string{}
		for _, a := range c.n.attribute {
			names = append(names, a.name)
		}
		sort.Strings(names)
		return fmt.Errorf("attributes %v: want exactly one of value, value_int, value_ints, value_float, value_floats", names)
	}
	a := &c.n.attribute[0]
	switch {
	case a.name == "value" && a.typ == attrTensor && a.t != nil:
		v, err := tensorValue(a.t)
		if err != nil {
			return fmt.Errorf("attribute value: %w", err)
		}
		c.set(0, v.dtype, v.shape, v.vals)
	case a.name == "value_int" && a.typ == attrInt:
		c.set(0, dtInt64, []int64{}, []int64{a.i})
	case a.name == "value_ints" && a.typ == attrInts:
		c.set(0, dtInt64, []int64{int64(len(a.ints))}, clone(a.ints))
	case a.name == "value_float" && a.typ == attrFloat:
		c.set(0, dtFloat, []int64{}, nil)
	case a.name == "value_floats" && a.typ == attrFloats:
		c.set(0, dtFloat, []int64{int64(len(a.floats))}, nil)
	default:
		return errorf(ErrUnsupported, "attribute %s of type %d (supported: value, value_int, value_ints, value_float, value_floats)", a.name, a.typ)
	}
	return nil
}
