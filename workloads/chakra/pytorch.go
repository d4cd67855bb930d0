package chakra

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"placesim/internal/readfile"
	"placesim/workloads"
	"placesim/workloads/chakra/etdef"
)

// KnownPyTorchSchemas are the PyTorch execution-trace schemas Chakra's
// converter reads (mlcommons/chakra src/converter/pytorch_node.py
// SUPPORTED_VERSIONS).
var KnownPyTorchSchemas = []string{"1.0.2-chakra.0.0.4", "1.0.3-chakra.0.0.4", "1.1.0-chakra.0.0.4", "1.1.1-chakra.0.0.4", "1.1.1-chakra.1.0.0"}

// ptTrace is a PyTorch execution trace (JSON) as the execution-trace
// observer writes it.
type ptTrace struct {
	Schema *string  `json:"schema"`
	PID    int64    `json:"pid"`
	Nodes  []ptNode `json:"nodes"`
}

// ptNode is one node: an operator call; ctrl_deps is its caller.
type ptNode struct {
	ID       int64    `json:"id"`
	Name     string   `json:"name"`
	Parent   int64    `json:"ctrl_deps"`
	Inputs   ptIO     `json:"inputs"`
	Outputs  ptIO     `json:"outputs"`
	Attrs    []ptAttr `json:"attrs"`
	Cat      *string  `json:"cat"`
	ExclDur  *float64 `json:"exclusive_dur"`
	PGName   string   `json:"pg_name"`
	children []int
	rfID     int64
}

type ptIO struct {
	Values []json.RawMessage `json:"values"`
	Shapes []json.RawMessage `json:"shapes"`
	Types  []string          `json:"types"`
}

type ptAttr struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// IsPyTorch reports whether data looks like a PyTorch execution trace: a
// JSON object whose top level has schema and nodes (and pid).
func IsPyTorch(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	var schema, nodes, pid bool
	for d.More() && !(schema && nodes) {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case "schema":
			schema = true
		case "nodes":
			nodes = true
		case "pid":
			pid = true
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return schema && pid
		}
	}
	return schema && (nodes || pid)
}

// ptRoots are the observer's label nodes, not operators.
func ptRoot(name string) bool {
	return strings.HasPrefix(name, "[pytorch|profiler|execution_trace|")
}

// LoadPyTorch reads a PyTorch execution trace (name names it in errors):
// the operators its threads call at top level become ops (their nested
// calls are part of them), an operator that calls a collective
// (record_param_comms) a collective of the process group it names, the
// tensors an operator reads that an earlier one wrote its dependencies;
// with opts.Kineto, the kernels Kineto recorded for an operator and its
// callees give its measured time.
func LoadPyTorch(data []byte, name string, opts Options) (*workloads.Graph, *Summary, error) {
	t, err := DecodePyTorch(data, name, opts)
	if err != nil {
		return nil, nil, err
	}
	return Build(t, opts)
}

// DecodePyTorch reads a PyTorch execution trace into a Trace.
func DecodePyTorch(data []byte, name string, opts Options) (*Trace, error) {
	var pt ptTrace
	if err := json.Unmarshal(data, &pt); err != nil {
		return nil, fmt.Errorf("%w: %s: PyTorch execution trace: %v", ErrFormat, name, err)
	}
	if pt.Schema == nil {
		return nil, fmt.Errorf("%w: %s: PyTorch execution trace without a schema field", ErrFormat, name)
	}
	if len(pt.Nodes) > MaxNodes {
		return nil, fmt.Errorf("%w: %s: %d nodes (valid range: <= %d)", ErrFormat, name, len(pt.Nodes), MaxNodes)
	}
	t := &Trace{Format: "pytorch", Name: name, Groups: map[string]*Group{}, warn: newWarner(name, opts.Strict)}
	known := false
	for _, s := range KnownPyTorchSchemas {
		known = known || s == *pt.Schema
	}
	if !known {
		if err := t.warn.add(fmt.Sprintf("unknown PyTorch execution-trace schema %q (known: %s)", *pt.Schema, strings.Join(KnownPyTorchSchemas, ", ")), "top level"); err != nil {
			return nil, err
		}
	}
	idx := make(map[int64]int, len(pt.Nodes))
	for i := range pt.Nodes {
		n := &pt.Nodes[i]
		if j, dup := idx[n.ID]; dup {
			return nil, fmt.Errorf("%w: %s: nodes[%d] and nodes[%d] both have id %d", ErrFormat, name, j, i, n.ID)
		}
		idx[n.ID] = i
		for _, a := range n.Attrs {
			if a.Name == "rf_id" {
				_ = json.Unmarshal(a.Value, &n.rfID)
			}
		}
	}
	for i := range pt.Nodes {
		n := &pt.Nodes[i]
		if p, ok := idx[n.Parent]; ok && p != i {
			pt.Nodes[p].children = append(pt.Nodes[p].children, i)
		}
	}
	// process groups
	for i := range pt.Nodes {
		n := &pt.Nodes[i]
		if !strings.Contains(n.Name, "process_group:init") {
			continue
		}
		for _, v := range n.Inputs.Values {
			var s string
			if json.Unmarshal(v, &s) == nil {
				if err := t.addGroups(s, name, uint64(n.ID)); err != nil {
					return nil, err
				}
			}
		}
	}
	var kineto map[int64]float64
	if opts.Kineto != "" {
		kd, err := readfile.Read(opts.Kineto, readfile.MaxWorkload)
		if err != nil {
			return nil, fmt.Errorf("read Kineto trace %q: %w", opts.Kineto, err)
		}
		if kineto, err = kinetoKernelTimes(kd, opts.Kineto); err != nil {
			return nil, err
		}
	}
	r := &Rank{File: name, Schema: *pt.Schema}
	rankSet := false
	producer := map[[2]uint64]uint64{}
	for i := range pt.Nodes {
		n := &pt.Nodes[i]
		p, ok := idx[n.Parent]
		if ptRoot(n.Name) || strings.Contains(n.Name, "process_group:init") || !ok || !ptRoot(pt.Nodes[p].Name) {
			continue
		}
		// a top-level operator
		nd := Node{ID: uint64(n.ID), Name: n.Name, Kind: Compute}
		nd.inputs = jsonTensors(n.Inputs.Values)
		nd.outputs = jsonTensors(n.Outputs.Values)
		nd.OutputBytes = tensorBytes(nd.outputs)
		nd.Bytes = tensorBytes(nd.inputs) + nd.OutputBytes
		nd.FLOPs = gemmFLOPs(n)
		if n.Cat != nil {
			nd.CPU = false
		}
		if comm := findComm(pt.Nodes, i); comm >= 0 {
			c := &pt.Nodes[comm]
			coll, rank, pgID, ok := commInfo(c)
			if ok {
				nd.Kind, nd.Coll = Collective, coll
				nd.CommSize = tensorBytes(jsonTensors(c.Inputs.Values[:1]))
				if !rankSet && rank >= 0 {
					r.Rank, rankSet = rank, true
				}
				g := groupByID(t.Groups, pgID, c.PGName)
				if g == "" {
					return nil, fmt.Errorf("%w: %s: node %d %q (record_param_comms node %d) names process group id %d, which the trace does not define (groups: %s)", ErrRank, name, n.ID, n.Name, c.ID, pgID, t.groupNames())
				}
				nd.Group = g
			}
		}
		if kineto != nil {
			var d float64
			var found bool
			walk(pt.Nodes, i, func(j int) {
				if v, ok := kineto[pt.Nodes[j].rfID]; ok {
					d += v
					found = true
				}
			})
			if found {
				nd.Duration, nd.HasDuration = d*1e-6, true
			}
		} else if n.ExclDur != nil && *n.ExclDur > 0 && !math.IsInf(*n.ExclDur, 0) {
			nd.Duration, nd.HasDuration = *n.ExclDur*1e-6, true
		}
		// dependencies: the last earlier operator that wrote a tensor this one reads
		seen := map[uint64]bool{}
		for _, tr := range nd.inputs {
			if p, ok := producer[[2]uint64{tr.id, tr.storage}]; ok && !seen[p] {
				seen[p] = true
				nd.Deps = append(nd.Deps, p)
			}
		}
		sort.Slice(nd.Deps, func(a, b int) bool { return nd.Deps[a] < nd.Deps[b] })
		for _, tr := range nd.outputs {
			producer[[2]uint64{tr.id, tr.storage}] = nd.ID
		}
		r.Nodes = append(r.Nodes, nd)
	}
	t.Ranks = []*Rank{r}
	return t, nil
}

// walk calls f on node i and every node it calls.
func walk(nodes []ptNode, i int, f func(int)) {
	stack := []int{i}
	seen := map[int]bool{}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[j] {
			continue
		}
		seen[j] = true
		f(j)
		stack = append(stack, nodes[j].children...)
	}
}

// findComm finds the record_param_comms call of a collective under node
// i (-1 if none): PyTorch records every c10d collective through it.
func findComm(nodes []ptNode, i int) int {
	found := -1
	walk(nodes, i, func(j int) {
		if found < 0 && nodes[j].Name == "record_param_comms" {
			if _, _, _, ok := commInfo(&nodes[j]); ok {
				found = j
			}
		}
	})
	return found
}

// commInfo reads a record_param_comms call: its inputs are (tensors, seq,
// process group id, rank, collective name, input splits, output splits,
// world size) (torch/csrc/distributed/c10d/ParamCommsUtils.hpp,
// RECORD_PARAM_COMMS_DATA). ok is false for a wait or a call it cannot
// read.
func commInfo(n *ptNode) (coll etdef.CollectiveCommType, rank int, pgID int64, ok bool) {
	v := n.Inputs.Values
	if len(v) < 5 {
		return 0, 0, 0, false
	}
	var nm string
	if json.Unmarshal(v[4], &nm) != nil || nm == "wait" {
		return 0, 0, 0, false
	}
	c, known := collFromName(nm)
	if !known {
		return 0, 0, 0, false
	}
	if json.Unmarshal(v[2], &pgID) != nil {
		pgID = 0
	}
	var r int64 = -1
	if json.Unmarshal(v[3], &r) != nil || r < 0 || r > 1<<20 {
		r = -1
	}
	return c, int(r), pgID, true
}

// groupByID names the group of a backend id or pg_name ("" if none).
func groupByID(gs map[string]*Group, id int64, pgName string) string {
	if pgName != "" {
		if _, ok := gs[pgName]; ok {
			return pgName
		}
	}
	for _, name := range sortedGroupNames(gs) {
		if gs[name].ID == id {
			return name
		}
	}
	return ""
}

// jsonTensors lists the tensors among JSON values: arrays [tensor_id,
// storage_id, offset, num_elem, elem_bytes, "device"] at any depth.
func jsonTensors(values []json.RawMessage) []tensorRef {
	var out []tensorRef
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		a, ok := v.([]any)
		if !ok || depth > 8 {
			return
		}
		if len(a) == 6 {
			if _, isStr := a[5].(string); isStr {
				var f [5]float64
				good := true
				for k := 0; k < 5; k++ {
					x, ok := a[k].(float64)
					good = good && ok && x >= 0 && x < 1<<53
					f[k] = x
				}
				if good && f[4] <= 64 {
					out = append(out, tensorRef{id: uint64(f[0]), storage: uint64(f[1]), bytes: int64(f[3]) * int64(f[4])})
					return
				}
			}
		}
		for _, x := range a {
			visit(x, depth+1)
		}
	}
	for _, raw := range values {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			visit(v, 0)
		}
	}
	return out
}

// gemmFLOPs is a matrix product's work from its input shapes (2·M·K·N
// for aten::mm, aten::addmm, aten::bmm, aten::matmul, aten::linear), 0
// for other operators.
func gemmFLOPs(n *ptNode) float64 {
	switch n.Name {
	case "aten::mm", "aten::matmul", "aten::bmm", "aten::addmm", "aten::linear":
	default:
		return 0
	}
	var shapes [][]float64
	for _, s := range n.Inputs.Shapes {
		var dims []float64
		if json.Unmarshal(s, &dims) == nil && len(dims) >= 2 {
			shapes = append(shapes, dims)
		}
	}
	if n.Name == "aten::addmm" && len(shapes) == 3 {
		shapes = shapes[1:]
	}
	if len(shapes) < 2 {
		return 0
	}
	a, b := shapes[0], shapes[1]
	m, k := a[len(a)-2], a[len(a)-1]
	nn := b[len(b)-1]
	if n.Name == "aten::linear" {
		nn = b[0]
	}
	batch := 1.0
	for _, d := range a[:len(a)-2] {
		batch *= d
	}
	f := 2 * batch * m * k * nn
	if !(f >= 0) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
