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

var (
	topFields  = []string{"maxSizePerFPGA", "maxFPGAs", "maxCPUs", "nodes", "edges"}
	nodeFields = []string{"id", "name", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode", "colorClass", "size"}
	edgeFields = []string{"sourceId", "destId", "cost", "size"}
)

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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read msr-fiddle workload: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes an msr-fiddle file (name is used for the graph's name and in
// errors). The semantics, from the paper (section 3) and the artifact:
//
//   - fpgaLatency and cpuLatency (ms per sample) become the op's measured
//     times in seconds under workloads.MeasuredAccelerator and
//     workloads.MeasuredCPU;
//   - supportedOnFpga = false (or 0) makes the op CPUOnly;
//   - isBackwardNode = true (or 1) gives role Backward, else Forward;
//   - colorClass N puts the op in colocation group "color<N>" (absent: none);
//   - size (bytes of weights and activations on an accelerator) becomes
//     ParamBytes, resident for the whole run; OutputBytes stays 0, so the
//     memory a placer sees for the node is exactly size;
//   - an edge's cost (ms to move the source's output between accelerator
//     and CPU memory) becomes Bytes = cost × 1e-3 × PCIeBandwidth;
//   - maxFPGAs, maxCPUs and maxSizePerFPGA become Graph.Hint.
//
// Decoding is strict: an unknown field, a field of the wrong type, a
// missing required field, a negative or non-finite number, a duplicate node
// id, an edge to a missing node, a self-loop, a cycle or a truncated file is
// an error naming the file and the field. The edge field size of the
// artifact is checked (a number >= 0) and otherwise unused.
func Parse(data []byte, name string) (*workloads.Graph, error) {
	p := parser{file: name}
	g, err := p.parse(data)
	if err != nil {
		return nil, err
	}
	return g, nil
}

type parser struct{ file string }

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrFormat, p.file, fmt.Sprintf(format, args...))
}

// object decodes raw as a JSON object, rejecting fields outside allowed.
func (p *parser) object(where string, raw json.RawMessage, allowed []string) (map[string]json.RawMessage, error) {
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
		if !contains(allowed, k) {
			return nil, p.errf("%s: unknown field %q (valid: %s)", where, k, strings.Join(allowed, ", "))
		}
	}
	return m, nil
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
	top, err := p.object("top level", raw, topFields)
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
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrFormat, p.file, err)
	}
	return g, nil
}

func (p *parser) node(i int, raw json.RawMessage) (workloads.Op, int64, error) {
	where := fmt.Sprintf("nodes[%d]", i)
	m, err := p.object(where, raw, nodeFields)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	for _, f := range []string{"id", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode", "size"} {
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
	size, err := p.number(where+": field size", m["size"], 0)
	if err != nil {
		return workloads.Op{}, 0, err
	}
	if size > math.MaxInt64/2 {
		return workloads.Op{}, 0, p.errf("%s: field size = %g bytes (valid range: [0, 2^62])", where, size)
	}
	if rawColor, ok := m["colorClass"]; ok {
		c, err := p.integer(where+": field colorClass", rawColor, math.MinInt64/2, math.MaxInt64/2)
		if err != nil {
			return workloads.Op{}, 0, err
		}
		op.Colocation = fmt.Sprintf("color%d", c)
	}
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
	m, err := p.object(where, raw, edgeFields)
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
	g.AddEdge(ends[0], ends[1], CostToBytes(cost))
	return nil
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
