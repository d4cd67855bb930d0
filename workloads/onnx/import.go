package onnx

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"placesim/workloads"
)

// Options control an import.
type Options struct {
	// Dims gives the value of each symbolic dimension (dim_param) of the
	// graph inputs, by name, e.g. {"batch_size": 32, "sequence": 128}. A
	// symbolic dimension without a value is an error, and so is a name that
	// no input uses.
	Dims map[string]int64
	// Training derives the training step (forward, backward and update
	// ops, workloads.DeriveTraining) from the imported forward graph.
	Training bool
	// RNN says how LSTM, GRU and RNN nodes import: RNNUnroll (the
	// default, also "") makes one op per time step and direction, so that
	// placers can split a sequence; RNNFused one op per node.
	RNN string
	// Lenient imports a node of an unsupported op type (or domain) as a
	// zero-cost placeholder op of type "unsupported" instead of failing,
	// with one warning per unsupported op type in the graph's Warnings.
	// Outputs whose shape no value_info gives have no size, and a node
	// that reads one becomes a placeholder too.
	Lenient bool
}

// Recurrent import modes (Options.RNN, the rnn= option).
const (
	RNNUnroll = "unroll"
	RNNFused  = "fused"
)

// ParseOptions reads options from a URL query such as
// "training=true&batch_size=32": the keys training and lenient take true
// or false, rnn takes unroll or fused (Options.RNN); every other key is a
// symbolic dimension and takes an integer >= 1.
func ParseOptions(query string) (Options, error) {
	var o Options
	params, err := workloads.ParseQuery("onnx", query)
	if err != nil {
		return o, err
	}
	for _, kv := range params {
		k, v := kv.Key, kv.Value
		switch k {
		case "training", "lenient":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, fmt.Errorf("onnx option %s=%q (valid: true, false)", k, v)
			}
			if k == "training" {
				o.Training = b
			} else {
				o.Lenient = b
			}
			continue
		case "rnn":
			if v != RNNUnroll && v != RNNFused {
				return o, fmt.Errorf("onnx option rnn=%q (valid: %s, %s)", v, RNNUnroll, RNNFused)
			}
			o.RNN = v
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxElems {
			return o, fmt.Errorf("onnx option %s=%q: a symbolic dimension takes an integer in [1, 2^48]", k, v)
		}
		if o.Dims == nil {
			o.Dims = map[string]int64{}
		}
		o.Dims[k] = n
	}
	return o, nil
}

// ReadFile imports the ONNX model at path.
func ReadFile(path string, opts Options) (*workloads.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read onnx model %q: %w", path, err)
	}
	return Parse(data, path, opts)
}

// Detect reports whether data decodes as an ONNX ModelProto with a graph
// of at least one node.
func Detect(data []byte) bool {
	m, err := decodeModel(data)
	return err == nil && m.graph != nil && len(m.graph.nodes) > 0
}

// pendingOp is a graph op before parameters and edges are resolved.
type pendingOp struct {
	name, typ, layer string
	flops            float64
	bytesAccessed    int64
	outputBytes      int64
	tempBytes        int64
	inputs           []*value // distinct tensors read, in input order
}

// importer holds the state of one Parse.
type importer struct {
	file      string
	opts      Options
	usedDims  map[string]bool
	vals      map[string]*value
	valueInfo map[string]*valueInfoProto
	ops       []pendingOp
	handlers  map[string]handler
	// unrolled counts the step ops of unrolled recurrent nodes.
	unrolled int
	// placeholders lists, by op type, the nodes imported as placeholders
	// (lenient import); downstream those that read an unknown shape.
	placeholders map[string][]string
	downstream   []string
}

// Parse imports an ONNX model (a serialized ModelProto); file names the
// source in errors. It infers every tensor's shape from the initializers
// and the graph inputs' shapes, and makes one op per node (see the package
// documentation for what is folded away and how costs are counted).
func Parse(data []byte, file string, opts Options) (*workloads.Graph, error) {
	m, err := decodeModel(data)
	if err != nil {
		return nil, errorf(ErrFormat, "onnx model %q: %v", file, err)
	}
	if m.graph == nil {
		return nil, errorf(ErrFormat, "onnx model %q: model.graph is missing (not an ONNX model?)", file)
	}
	if opts.RNN != "" && opts.RNN != RNNUnroll && opts.RNN != RNNFused {
		return nil, errorf(ErrInvalid, "onnx model %q: option rnn = %q (valid: %s, %s)", file, opts.RNN, RNNUnroll, RNNFused)
	}
	imp := &importer{file: file, opts: opts, usedDims: map[string]bool{}, vals: map[string]*value{},
		valueInfo: map[string]*valueInfoProto{}, handlers: newHandlers(), placeholders: map[string][]string{}}
	g, err := imp.run(m.graph)
	if err != nil {
		return nil, fmt.Errorf("onnx model %q: %w", file, err)
	}
	g.Warnings = imp.warnings()
	if opts.Training {
		if g, err = workloads.DeriveTraining(g); err != nil {
			return nil, fmt.Errorf("onnx model %q: deriving the training step: %w", file, err)
		}
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("onnx model %q: imported graph is invalid (a bug): %w", file, err)
	}
	return g, nil
}

func (imp *importer) run(gp *graphProto) (*workloads.Graph, error) {
	for i := range gp.valueInfo {
		imp.valueInfo[gp.valueInfo[i].name] = &gp.valueInfo[i]
	}
	for i := range gp.output {
		imp.valueInfo[gp.output[i].name] = &gp.output[i]
	}
	for i := range gp.initializer {
		if err := imp.addInitializer(&gp.initializer[i], fmt.Sprintf("graph.initializer[%d]", i)); err != nil {
			return nil, err
		}
	}
	batch := 0
	for i := range gp.input {
		in := &gp.input[i]
		if _, isInit := imp.vals[in.name]; isInit {
			continue // IR < 4 lists initializers among the inputs
		}
		v, err := imp.addInput(in, fmt.Sprintf("graph.input[%d]", i))
		if err != nil {
			return nil, err
		}
		if batch == 0 {
			batch = 1
			if len(v.shape) > 0 && v.shape[0] >= 1 && v.shape[0] <= 1<<30 {
				batch = int(v.shape[0])
			}
		}
	}
	for k := range imp.opts.Dims {
		if !imp.usedDims[k] {
			return nil, errorf(ErrInvalid, "option %s: no graph input has a symbolic dimension of that name", k)
		}
	}
	for i := range gp.nodes {
		if err := imp.addNode(&gp.nodes[i], i); err != nil {
			return nil, err
		}
	}
	if len(imp.ops) == 0 {
		return nil, errorf(ErrInvalid, "the graph has no op to simulate (no input and every node folds to a constant)")
	}
	// inputs alone are no computation: a step of them takes 0 s and its
	// throughput is meaningless (issue 31)
	compute := 0
	for _, op := range imp.ops {
		if op.typ != "input" {
			compute++
		}
	}
	if compute == 0 {
		return nil, errorf(ErrInvalid, "graph.node: %d nodes, none left to compute once constants fold (valid: at least one operator on the graph's inputs)", len(gp.nodes))
	}
	name := gp.name
	if name == "" {
		name = "onnx"
	}
	if batch == 0 {
		batch = 1
	}
	return imp.build(name, batch), nil
}

func (imp *importer) addInitializer(t *tensorProto, path string) error {
	if t.name == "" {
		return errorf(ErrInvalid, "%s: name is empty", path)
	}
	path = fmt.Sprintf("%s %q", path, t.name)
	if _, dup := imp.vals[t.name]; dup {
		return errorf(ErrInvalid, "%s: an initializer of that name is already defined", path)
	}
	v, err := tensorValue(t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	v.param = isFloat(v.dtype)
	imp.vals[t.name] = v
	return nil
}

// tensorValue checks a TensorProto and returns it as a constant value.
func tensorValue(t *tensorProto) (*value, error) {
	if err := checkDtype(t.dataType); err != nil {
		return nil, fmt.Errorf("data_type: %w", err)
	}
	if err := checkShape(t.dims); err != nil {
		return nil, errorf(ErrInvalid, "dims: %v", err)
	}
	v := &value{name: t.name, dtype: t.dataType, shape: clone(t.dims), producer: -1}
	n := numel(t.dims)
	if t.external {
		return v, nil
	}
	if t.hasRaw {
		if want := sizeBytes(t.dataType, n); int64(len(t.rawData)) != want {
			return nil, errorf(ErrInvalid, "raw_data has %d bytes, want %d for dims %v of data type %d", len(t.rawData), want, t.dims, t.dataType)
		}
	} else if have, ok := typedCount(t); ok && have != n && n > 0 {
		return nil, errorf(ErrInvalid, "%d data values for dims %v (%d elements)", have, t.dims, n)
	}
	if isInt(t.dataType) && n <= maxFold {
		v.vals = intContents(t, n)
	}
	return v, nil
}

// typedCount is the element count held in the typed data field of t's
// data type (ok false where the count is not checked: 4-bit types).
func typedCount(t *tensorProto) (int64, bool) {
	switch t.dataType {
	case dtFloat:
		return int64(len(t.floatData)), true
	case dtCplx64:
		return int64(len(t.floatData)) / 2, true
	case dtInt64:
		return int64(len(t.int64Data)), true
	case dtDouble:
		return int64(len(t.doubleData)), true
	case dtCplx128:
		return int64(len(t.doubleData)) / 2, true
	case dtUint32, dtUint64:
		return int64(len(t.uint64Data)), true
	case 21, 22, 23:
		return 0, false
	}
	return int64(len(t.int32Data)), true
}

// intContents decodes the values of an integer tensor of n elements.
func intContents(t *tensorProto, n int64) []int64 {
	out := make([]int64, n)
	if t.hasRaw {
		w := int(dtypeBits(t.dataType) / 8)
		signed := t.dataType == dtInt8 || t.dataType == dtInt16 || t.dataType == dtInt32 || t.dataType == dtInt64
		for i := range out {
			var u uint64
			for k := w - 1; k >= 0; k-- {
				u = u<<8 | uint64(t.rawData[i*w+k])
			}
			if signed && w < 8 && u&(1<<(8*w-1)) != 0 {
				u |= ^uint64(0) << (8 * w)
			}
			out[i] = int64(u)
		}
		return out
	}
	for i := range out {
		switch {
		case t.dataType == dtInt64:
			out[i] = t.int64Data[i]
		case t.dataType == dtUint32 || t.dataType == dtUint64:
			out[i] = int64(t.uint64Data[i])
		default:
			out[i] = int64(t.int32Data[i])
		}
	}
	return out
}

// resolveDims turns a value_info's dims into a static shape with the
// symbolic dimensions given in the options; ok false when one is unknown.
func (imp *importer) resolveDims(vi *valueInfoProto, record bool) ([]int64, string, bool) {
	shape := make([]int64, len(vi.dims))
	for i, d := range vi.dims {
		switch {
		case d.hasValue:
			shape[i] = d.value
		case d.param != "":
			v, ok := imp.opts.Dims[d.param]
			if !ok {
				return nil, fmt.Sprintf("dim[%d] is symbolic %q with no value given (set it, e.g. %s?%s=N)", i, d.param, imp.file, d.param), false
			}
			if record {
				imp.usedDims[d.param] = true
			}
			shape[i] = v
		default:
			return nil, fmt.Sprintf("dim[%d] has neither a value nor a name", i), false
		}
	}
	return shape, "", true
}

func (imp *importer) addInput(in *valueInfoProto, path string) (*value, error) {
	path = fmt.Sprintf("%s %q", path, in.name)
	if in.name == "" {
		return nil, errorf(ErrInvalid, "%s: name is empty", path)
	}
	if _, dup := imp.vals[in.name]; dup {
		return nil, errorf(ErrInvalid, "%s: an input of that name is already defined", path)
	}
	if !in.isTensor {
		return nil, errorf(ErrUnsupported, "%s: not a tensor (sequence, map and optional inputs are not supported)", path)
	}
	if !in.hasShape {
		return nil, errorf(ErrUnsupported, "%s: no shape (the importer needs static input shapes)", path)
	}
	if err := checkDtype(in.elemType); err != nil {
		return nil, fmt.Errorf("%s: elem_type: %w", path, err)
	}
	// Record symbolic dimensions first, so that an input with one unknown
	// does not make other, given ones look unused.
	for _, d := range in.dims {
		if d.param != "" {
			if _, ok := imp.opts.Dims[d.param]; ok {
				imp.usedDims[d.param] = true
			}
		}
	}
	shape, why, ok := imp.resolveDims(in, true)
	if !ok {
		return nil, errorf(ErrUnsupported, "%s: %s", path, why)
	}
	if err := checkShape(shape); err != nil {
		return nil, errorf(ErrInvalid, "%s: %v", path, err)
	}
	for i, d := range shape {
		if d < 1 {
			return nil, errorf(ErrInvalid, "%s: dim[%d] = %d (valid range: >= 1)", path, i, d)
		}
	}
	v := &value{name: in.name, dtype: in.elemType, shape: shape, producer: len(imp.ops)}
	imp.vals[in.name] = v
	imp.ops = append(imp.ops, pendingOp{name: in.name, typ: "input", layer: "input", outputBytes: v.bytes()})
	return v, nil
}

// addNode infers a node's outputs and records it as an op unless it folds
// to constants (or, for a recurrent node, as its unrolled steps).
func (imp *importer) addNode(n *nodeProto, idx int) error {
	c := &nodeCtx{imp: imp, n: n, idx: idx, typ: strings.ToLower(n.opType)}
	var unsupported error
	h, ok := imp.handlers[n.opType]
	switch {
	case n.domain != "" && n.domain != "ai.onnx":
		unsupported = fmt.Errorf("op domain %q is not supported (valid: the default ONNX domain)", n.domain)
	case !ok:
		unsupported = fmt.Errorf("unsupported op type %q (supported: %s)", n.opType, strings.Join(SupportedOps(), ", "))
	}
	if unsupported != nil && !imp.opts.Lenient {
		return c.wrap(ErrUnsupported, unsupported)
	}
	c.in = make([]*value, len(n.input))
	unknownIn := false
	for i, name := range n.input {
		if name == "" {
			continue // an omitted optional input
		}
		v, ok := imp.vals[name]
		if !ok {
			return c.wrap(ErrInvalid, fmt.Errorf("input %d %q is not a graph input, an initializer or an output of an earlier node (ONNX nodes are topologically sorted)", i, name))
		}
		c.in[i] = v
		unknownIn = unknownIn || v.unknown
	}
	c.out = make([]*value, len(n.output))
	for i, name := range n.output {
		if name == "" {
			continue
		}
		if _, dup := imp.vals[name]; dup {
			return c.wrap(ErrInvalid, fmt.Errorf("output %d %q is already defined (ONNX tensors have one producer)", i, name))
		}
		for j := 0; j < i; j++ {
			if n.output[j] == name {
				return c.wrap(ErrInvalid, fmt.Errorf("output %d %q is also output %d", i, name, j))
			}
		}
		c.out[i] = &value{name: name}
	}
	if unsupported != nil || unknownIn {
		return imp.placeholder(c, unsupported == nil)
	}
	// A lazy input stays lazy only as the sequence of a recurrent node
	// that unrolls, or through a view that keeps its time axis.
	for i, v := range c.in {
		if v != nil && v.lazy != nil && !(i == 0 && (h.view || n.opType == "Transpose" || (h.recurrent && imp.unrolls()))) {
			imp.materialize(v)
		}
	}
	err := h.infer(c)
	if errors.Is(err, errDynamic) {
		err = c.fromValueInfo(err)
	}
	if err != nil {
		return c.wrap(ErrInvalid, err)
	}
	for i, v := range c.out {
		if v == nil {
			continue
		}
		if v.dtype == 0 || v.shape == nil {
			return c.wrap(ErrUnsupported, fmt.Errorf("output %d %q: the importer does not infer it for %s (an optional output it does not support)", i, v.name, n.opType))
		}
		if err := checkShape(v.shape); err != nil {
			return c.wrap(ErrInvalid, fmt.Errorf("output %d %q: %v", i, v.name, err))
		}
		if err := checkDtype(v.dtype); err != nil {
			return c.wrap(ErrInvalid, fmt.Errorf("output %d %q: %w", i, v.name, err))
		}
	}
	if x := c.opt(0); x != nil && x.lazy != nil && c.rnn == nil {
		if axis, ok := keepsTimeAxis(n.opType, x, c); ok {
			imp.setLazy(c.out[0], x.lazy.parts, axis, c.name(), x.lazy.layer)
			imp.vals[c.out[0].name] = c.out[0]
			return nil
		}
		imp.materialize(x)
	}
	if c.rnn != nil && imp.unrolls() {
		if err := imp.unroll(c, c.name()); err != nil {
			return c.wrap(ErrUnsupported, err)
		}
		return nil
	}
	if c.folds(h) {
		for _, v := range c.out {
			if v != nil {
				v.producer = -1
				imp.vals[v.name] = v
			}
		}
		return nil
	}
	return imp.record(c)
}

// record adds the node as one op.
func (imp *importer) record(c *nodeCtx) error {
	n, h := c.n, imp.handlers[c.n.opType]
	op := pendingOp{name: c.name(), typ: c.typ, layer: layerOf(n.name), flops: c.flops}
	seen := map[string]bool{}
	var inBytes int64
	for _, v := range c.in {
		if v == nil || seen[v.name] {
			continue
		}
		seen[v.name] = true
		inBytes += v.bytes()
		op.inputs = append(op.inputs, v)
	}
	for _, v := range c.out {
		if v != nil {
			op.outputBytes += v.bytes()
			v.producer = len(imp.ops)
			imp.vals[v.name] = v
		}
	}
	switch {
	case h.view:
		op.bytesAccessed = 0
	case c.bytesAccessed > 0:
		op.bytesAccessed = c.bytesAccessed
	default:
		op.bytesAccessed = inBytes + op.outputBytes
	}
	imp.ops = append(imp.ops, op)
	return nil
}

// layerOf is the layer of a node named like a path ("/enc/layer.0/MatMul"
// is in layer "enc/layer.0"); a name without a slash has no layer.
func layerOf(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 {
		return ""
	}
	return strings.TrimPrefix(name[:i], "/")
}

// build resolves parameters and edges into the graph.
func (imp *importer) build(name string, batch int) *workloads.Graph {
	g := workloads.NewGraph(name, batch)
	consumers := map[string]int{}
	for i := range imp.ops {
		for _, v := range imp.ops[i].inputs {
			if v.param {
				consumers[v.name]++
			}
		}
	}
	names := map[string]bool{}
	unique := func(s string) string {
		u := s
		for k := 2; names[u]; k++ {
			u = fmt.Sprintf("%s#%d", s, k)
		}
		names[u] = true
		return u
	}
	gid := make([]int, len(imp.ops))
	variables := map[string]int{}
	for i := range imp.ops {
		p := &imp.ops[i]
		op := workloads.Op{Type: p.typ, Layer: p.layer, FLOPs: p.flops, BytesAccessed: p.bytesAccessed, OutputBytes: p.outputBytes, TempBytes: p.tempBytes}
		type in struct {
			from  int
			bytes int64
		}
		var ins []in
		add := func(from int, b int64) {
			for k := range ins {
				if ins[k].from == from {
					ins[k].bytes += b
					return
				}
			}
			ins = append(ins, in{from, b})
		}
		for _, v := range p.inputs {
			switch {
			case v.producer >= 0:
				add(gid[v.producer], v.bytes())
			case v.param && consumers[v.name] == 1:
				op.ParamBytes += v.bytes()
			case v.param:
				id, ok := variables[v.name]
				if !ok {
					id = g.AddOp(workloads.Op{Name: unique(v.name), Type: "variable", Layer: layerOf(strings.ReplaceAll(v.name, ".", "/")),
						BytesAccessed: v.bytes(), ParamBytes: v.bytes()})
					variables[v.name] = id
				}
				add(id, v.bytes())
			}
		}
		op.Name = unique(p.name)
		gid[i] = g.AddOp(op)
		for _, e := range ins {
			g.AddEdge(e.from, gid[i], e.bytes)
		}
	}
	return g
}
