package fiddle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"placesim/workloads"
)

// PCIeBandwidth is the bandwidth (bytes/s per direction) that turns an edge
// cost into bytes: an edge whose cost is t ms carries t × 1e-3 ×
// PCIeBandwidth bytes (rounded to the byte). It is PCIe 3.0 x16, the link
// the paper's machine joins each accelerator to CPU memory with (section 6:
// "connected to the CPU over a PCIe 3.0 interconnect") and the link of
// devices.AccCPU, whose links have zero latency: on that cluster the
// engine's transfer over one hop (accelerator to host memory) then takes
// exactly the file's cost, and an accelerator-to-accelerator transfer,
// staged through host memory, twice that (paid once at each end, as in the
// paper's model). A test checks that this constant equals links.PCIe3.
const PCIeBandwidth = 15.75e9

// msPerSecond converts the file's milliseconds to the graph's seconds.
const msPerSecond = 1e3

// The fields the artifact's writer emits and its reader
// (throughput-dp/dp.cpp) understands.
var (
	topFields  = []string{"maxSizePerFPGA", "maxFPGAs", "maxCPUs", "nodes", "edges"}
	nodeFields = []string{"id", "name", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode", "colorClass", "size", "layerId"}
	edgeFields = []string{"sourceId", "destId", "cost", "size", "isArtificial"}
)

// Options change how a file is read.
type Options struct {
	// Strict makes an unknown field an error; by default it is ignored
	// with a warning in Graph.Warnings, as the artifact's reader ignores
	// it.
	Strict bool
	// ContractLayers colocates every node with the others of its layer
	// (layerId), as the artifact's -contractLayers does (Appendix E.3): the
	// colour classes that share a layer become one class. A node without
	// layerId is a layer of its own.
	ContractLayers bool
}

// ParseOptions reads the options of a file spec's query
// ("model.json?contract=layers&strict=true"): contract takes layers or
// none, strict takes true or false.
func ParseOptions(query string) (Options, error) {
	var o Options
	params, err := workloads.ParseQuery("msr-fiddle", query)
	if err != nil {
		return o, err
	}
	for _, kv := range params {
		k, v := kv.Key, kv.Value
		switch k {
		case "strict":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, fmt.Errorf("msr-fiddle option strict=%q (valid: true, false)", v)
			}
			o.Strict = b
		case "contract":
			switch v {
			case "layers":
				o.ContractLayers = true
			case "none":
				o.ContractLayers = false
			default:
				return o, fmt.Errorf("msr-fiddle option contract=%q (valid: layers, none)", v)
			}
		default:
			return o, fmt.Errorf("unknown msr-fiddle option %q (valid: contract, strict)", k)
		}
	}
	return o, nil
}

// Detect reports whether data looks like an msr-fiddle file: a JSON object
// with the top-level fields maxFPGAs and nodes. It does not validate it.
func Detect(data []byte) bool {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return false
	}
	_, k := top["maxFPGAs"]
	_, n := top["nodes"]
	return k && n
}

// ReadFile reads and parses the msr-fiddle file at path; the graph is
// named after the path and errors name it.
func ReadFile(path string) (*workloads.Graph, error) {
	return ReadFileWith(path, Options{})
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, opts Options) (*workloads.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read msr-fiddle workload: %w", err)
	}
	return ParseWith(data, path, opts)
}

// Parse decodes an msr-fiddle file (name is used for the graph's name and in
// errors). The semantics, from the paper (section 3) and the artifact:
//
//   - fpgaLatency and cpuLatency (ms per sample) become the op's measured
//     times in seconds under workloads.MeasuredAccelerator and
//     workloads.MeasuredCPU;
//   - supportedOnFpga = false (or 0) makes the op CPUOnly;
//   - isBackwardNode = true (or 1) gives role Backward, else Forward;
//   - colorClass N puts the op in colocation group "color<N>" (absent: a
//     class of its own, the artifact's default);
//   - layerId N sets the op's Layer to "layer<N>" (and, with
//     Options.ContractLayers, merges the colour classes of a layer);
//   - size (bytes of weights and activations on an accelerator) becomes
//     ParamBytes, resident for the whole run (absent: 0, the artifact's
//     default); OutputBytes stays 0, so the memory a placer sees for the
//     node is exactly size;
//   - an edge's cost (ms to move the source's output between accelerator
//     and CPU memory) becomes Bytes = cost × 1e-3 × PCIeBandwidth;
//   - maxFPGAs, maxCPUs and maxSizePerFPGA become Graph.Hint.
//
// Every field the artifact's writer emits is understood. An unknown field
// is ignored with a warning in Graph.Warnings (an error with
// Options.Strict). A field of the wrong type, a missing required field, a
// negative or non-finite number, a duplicate node id, an edge to a missing
// node, a self-loop, a cycle or a truncated file is an error naming the
// file and the field. The edge fields size and isArtificial of the
// artifact are checked (a number >= 0, a flag) and otherwise unused: the
// artifact charges an artificial edge's cost as any other's.
func Parse(data []byte, name string) (*workloads.Graph, error) {
	return ParseWith(data, name, Options{})
}

// ParseWith is Parse with options.
func ParseWith(data []byte, name string, opts Options) (*workloads.Graph, error) {
	p := parser{file: name, opts: opts, unknown: map[string]*unknownField{}}
	g, err := p.parse(data)
	if err != nil {
		return nil, err
	}
	return g, nil
}

type parser struct {
	file string
	opts Options
	// unknown fields seen so far, by place ("nodes", "edges", "top
	// level") and name
	unknown map[string]*unknownField
	// layerId and colorClass of each node (0 where the node has none: its
	// Layer or Colocation is then empty)
	layers, colors []int64
}

// unknownField counts an ignored field: where it was first seen and how
// often.
type unknownField struct {
	first string
	count int
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrFormat, p.file, fmt.Sprintf(format, args...))
}

// object decodes raw as a JSON object. A field outside allowed is an
// error in strict mode, else it is counted for a warning (kind names the
// place: "nodes", "edges", "top level").
func (p *parser) object(where, kind string, raw json.RawMessage, allowed []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, p.errf("%s: want a JSON object, got %s", where, describe(raw))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if contains(allowed, k) {
			continue
		}
		if p.opts.Strict {
			return nil, p.errf("%s: unknown field %q (valid: %s; strict mode)", where, k, strings.Join(allowed, ", "))
		}
		key := kind + "\x00" + k
		u := p.unknown[key]
		if u == nil {
			u = &unknownField{first: where}
			p.unknown[key] = u
		}
		u.count++
		delete(m, k)
	}
	return m, nil
}

// warnings lists the ignored fields, one line per place and name.
func (p *parser) warnings() []string {
	keys := make([]string, 0, len(p.unknown))
	for k := range p.unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		kind, name, _ := strings.Cut(k, "\x00")
		u := p.unknown[k]
		if kind == "top level" {
			out = append(out, fmt.Sprintf("%s: unknown top-level field %q ignored", p.file, name))
			continue
		}
		out = append(out, fmt.Sprintf("%s: unknown field %q ignored in %d of the %s (first %s)", p.file, name, u.count, kind, u.first))
	}
	return out
}

func (p *parser) parse(data []byte) (*workloads.Graph, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, p.syntaxError(data, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, p.errf("trailing data after the top-level JSON object (offset %d)", dec.InputOffset())
	}
	top, err := p.object("top level", "top level", raw, topFields)
	if err != nil {
		return nil, err
	}
	for _, f := range topFields {
		if _, ok := top[f]; !ok {
			return nil, p.errf("missing required top-level field %s", f)
		}
	}
	mem, err := p.number("maxSizePerFPGA", top["maxSizePerFPGA"], 0)
	if err != nil {
		return nil, err
	}
	if mem <= 0 || mem > math.MaxInt64/2 {
		return nil, p.errf("field maxSizePerFPGA = %g (valid range: > 0 bytes, < 2^62)", mem)
	}
	k, err := p.integer("maxFPGAs", top["maxFPGAs"], 0, 1<<16)
	if err != nil {
		return nil, err
	}
	l, err := p.integer("maxCPUs", top["maxCPUs"], 0, 1<<16)
	if err != nil {
		return nil, err
	}
	// the machine is k accelerators and l CPUs, one device each
	if k+l > workloads.MaxDevices {
		return nil, p.errf("fields maxFPGAs + maxCPUs = %d devices (valid range: at most %d)", k+l, workloads.MaxDevices)
	}
	var nodes, edges []json.RawMessage
	if err := json.Unmarshal(top["nodes"], &nodes); err != nil || nodes == nil {
		return nil, p.errf("field nodes: want an array of node objects, got %s", describe(top["nodes"]))
	}
	if err := json.Unmarshal(top["edges"], &edges); err != nil || edges == nil {
		return nil, p.errf("field edges: want an array of edge objects, got %s", describe(top["edges"]))
	}
	if len(nodes) == 0 {
		return nil, p.errf("field nodes is empty (a workload needs at least one node)")
	}
	g := workloads.NewGraph(p.file, 1)
	g.Hint = &workloads.ClusterHint{Accelerators: int(k), CPUs: int(l), AcceleratorMemory: int64(mem)}
	byID := make(map[int64]int, len(nodes))
	names := make(map[string]int, len(nodes))
	for i, rawNode := range nodes {
		op, id, err := p.node(i, rawNode)
		if err != nil {
			return nil, err
		}
		if j, dup := byID[id]; dup {
			return nil, p.errf("nodes[%d]: field id = %d duplicates nodes[%d]", i, id, j)
		}
		if j, dup := names[op.Name]; dup {
			return nil, p.errf("nodes[%d]: field name = %q duplicates the name of nodes[%d]", i, op.Name, j)
		}
		byID[id] = i
		names[op.Name] = i
		if op.Role == workloads.Backward {
			g.Training = true
		}
		g.AddOp(op)
	}
	for i, rawEdge := range edges {
		if err := p.edge(g, i, rawEdge, byID); err != nil {
			return nil, err
		}
	}
	if p.opts.ContractLayers {
		p.contractLayers(g)
	}
	g.Warnings = p.warnings()
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrFormat, p.file, err)
	}
	return g, nil
}

func (p *parser) node(i int, raw json.RawMessage) (workloads.Op, int64, error) {
	where := fmt.Sprintf("nodes[%d]", i)
	m, err := p.object(where, "nodes", raw, nodeFields)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	for _, f := range []string{"id", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode"} {
		if _, ok := m[f]; !ok {
			return workloads.Op{}, 0, p.errf("%s: missing required field %s", where, f)
		}
	}
	id, err := p.integer(where+": field id", m["id"], math.MinInt32, math.MaxInt32)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	where = fmt.Sprintf("nodes[%d] (id %d)", i, id)
	op := workloads.Op{Name: fmt.Sprintf("node%d", id), Type: "msr-fiddle"}
	if rawName, ok := m["name"]; ok {
		var s string
		if err := json.Unmarshal(rawName, &s); err != nil || s == "" {
			return workloads.Op{}, 0, p.errf("%s: field name: want a non-empty string, got %s", where, describe(rawName))
		}
		op.Name = s
	}
	supported, err := p.flag(where+": field supportedOnFpga", m["supportedOnFpga"])
	if err != nil {
		return workloads.Op{}, 0, err
	}
	backward, err := p.flag(where+": field isBackwardNode", m["isBackwardNode"])
	if err != nil {
		return workloads.Op{}, 0, err
	}
	cpu, err := p.number(where+": field cpuLatency", m["cpuLatency"], 0)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	acc, err := p.number(where+": field fpgaLatency", m["fpgaLatency"], 0)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	size := 0.0 // the artifact's default
	if rawSize, ok := m["size"]; ok {
		if size, err = p.number(where+": field size", rawSize, 0); err != nil {
			return workloads.Op{}, 0, err
		}
	}
	if size > math.MaxInt64/2 {
		return workloads.Op{}, 0, p.errf("%s: field size = %g bytes (valid range: [0, 2^62])", where, size)
	}
	var color, layer int64
	if rawColor, ok := m["colorClass"]; ok {
		c, err := p.integer(where+": field colorClass", rawColor, math.MinInt32, math.MaxInt32)
		if err != nil {
			return workloads.Op{}, 0, err
		}
		op.Colocation = fmt.Sprintf("color%d", c)
		color = c
	}
	if rawLayer, ok := m["layerId"]; ok {
		l, err := p.integer(where+": field layerId", rawLayer, math.MinInt32, math.MaxInt32)
		if err != nil {
			return workloads.Op{}, 0, err
		}
		op.Layer = fmt.Sprintf("layer%d", l)
		layer = l
	}
	p.colors = append(p.colors, color)
	p.layers = append(p.layers, layer)
	op.CPUOnly = !supported
	if backward {
		op.Role = workloads.Backward
	}
	op.ParamBytes = int64(math.Round(size))
	op.Measured = map[string]float64{
		workloads.MeasuredAccelerator: acc / msPerSecond,
		workloads.MeasuredCPU:         cpu / msPerSecond,
	}
	return op, id, nil
}

func (p *parser) edge(g *workloads.Graph, i int, raw json.RawMessage, byID map[int64]int) error {
	where := fmt.Sprintf("edges[%d]", i)
	m, err := p.object(where, "edges", raw, edgeFields)
	if err != nil {
		return err
	}
	for _, f := range []string{"sourceId", "destId", "cost"} {
		if _, ok := m[f]; !ok {
			return p.errf("%s: missing required field %s", where, f)
		}
	}
	ends := [2]int{}
	for j, f := range []string{"sourceId", "destId"} {
		id, err := p.integer(where+": field "+f, m[f], math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		op, ok := byID[id]
		if !ok {
			return p.errf("%s: field %s = %d names no node (edge to a missing node)", where, f, id)
		}
		ends[j] = op
	}
	if ends[0] == ends[1] {
		return p.errf("%s: self-loop on node %q (sourceId = destId)", where, g.Ops[ends[0]].Name)
	}
	cost, err := p.number(where+": field cost", m["cost"], 0)
	if err != nil {
		return err
	}
	if cost > 1e12 {
		return p.errf("%s: field cost = %g ms (valid range: [0, 1e12])", where, cost)
	}
	if rawSize, ok := m["size"]; ok {
		if _, err := p.number(where+": field size", rawSize, 0); err != nil {
			return err
		}
	}
	if rawArt, ok := m["isArtificial"]; ok {
		if _, err := p.flag(where+": field isArtificial", rawArt); err != nil {
			return err
		}
	}
	g.AddEdge(ends[0], ends[1], CostToBytes(cost))
	return nil
}

// contractLayers merges the colour classes that share a layer (the
// artifact's fuseLayers): the colocation groups become the connected
// components of nodes joined by a colour class or a layerId, each named
// after its smallest layerId ("layers<N>"), or its colour class when it
// has no layer.
func (p *parser) contractLayers(g *workloads.Graph) {
	n := len(g.Ops)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	byColor := map[int64]int{}
	byLayer := map[int64]int{}
	for i := 0; i < n; i++ {
		if c := p.colors[i]; g.Ops[i].Colocation != "" {
			if j, ok := byColor[c]; ok {
				union(i, j)
			} else {
				byColor[c] = i
			}
		}
		if l := p.layers[i]; g.Ops[i].Layer != "" {
			if j, ok := byLayer[l]; ok {
				union(i, j)
			} else {
				byLayer[l] = i
			}
		}
	}
	minLayer := map[int]int64{}
	size := map[int]int{}
	for i := 0; i < n; i++ {
		r := find(i)
		size[r]++
		if g.Ops[i].Layer == "" {
			continue
		}
		if l, ok := minLayer[r]; !ok || p.layers[i] < l {
			minLayer[r] = p.layers[i]
		}
	}
	for i := 0; i < n; i++ {
		r := find(i)
		switch l, ok := minLayer[r]; {
		case ok && size[r] > 1:
			g.Ops[i].Colocation = fmt.Sprintf("layers%d", l)
		case size[r] > 1:
			g.Ops[i].Colocation = g.Ops[r].Colocation
		}
	}
}

// CostToBytes is the number of bytes an edge of cost ms carries (see
// PCIeBandwidth).
func CostToBytes(ms float64) int64 {
	return int64(math.Round(ms / msPerSecond * PCIeBandwidth))
}

// number parses a JSON number >= min that is finite.
func (p *parser) number(where string, raw json.RawMessage, min float64) (float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return 0, p.errf("%s: want a number, got %s", where, describe(raw))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, p.errf("%s: %s is not a finite number", where, s)
	}
	if v < min {
		return 0, p.errf("%s = %s (valid range: >= %g)", where, s, min)
	}
	return v, nil
}

// integer parses a JSON number with an integral value in [lo, hi].
func (p *parser) integer(where string, raw json.RawMessage, lo, hi int64) (int64, error) {
	v, err := p.number(where, raw, math.Inf(-1))
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, p.errf("%s = %s (valid range: an integer in [%d, %d])", where, strings.TrimSpace(string(raw)), lo, hi)
	}
	return int64(v), nil
}

// flag parses true/false or the numbers 0/1 (the artifact uses both).
func (p *parser) flag(where string, raw json.RawMessage) (bool, error) {
	switch s := strings.TrimSpace(string(raw)); s {
	case "true", "1", "1.0":
		return true, nil
	case "false", "0", "0.0":
		return false, nil
	}
	return false, p.errf("%s: want true, false, 0 or 1, got %s", where, describe(raw))
}

// syntaxError names the offset and whether the file ended early.
func (p *parser) syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return p.errf("empty file (want a JSON object)")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return p.errf("truncated file: the JSON ends early, after %d bytes", len(data))
	case errors.As(err, &se):
		return p.errf("malformed JSON at offset %d: %v", se.Offset, se)
	}
	return p.errf("malformed JSON: %v", err)
}

// describe names the JSON type of raw, for wrong-type errors.
func describe(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "nothing"
	}
	kind := "a number"
	switch s[0] {
	case '"':
		kind = "a string"
	case '{':
		kind = "an object"
	case '[':
		kind = "an array"
	case 't', 'f':
		kind = "a boolean"
	case 'n':
		return "null"
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%s (%s)", kind, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
