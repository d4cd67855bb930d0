package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"placesim/workloads"
)

// ReadFile reads and validates a native workload file.
func ReadFile(path string) (*workloads.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read workload %q: %w", path, err)
	}
	return Parse(data, path)
}

// Detect reports whether data looks like a native workload file: a JSON
// object whose top level has a "format" field (Parse then checks its
// value). It reads only as far as needed and tolerates a truncated or
// malformed rest, so that Parse can report the precise error.
func Detect(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if tok == "format" {
			return true
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// edgeRef is an edge as read, before names are resolved.
type edgeRef struct {
	from, to string
	bytes    int64
	line     int // where the edge begins, for errors
}

// Parse decodes a native workload; file names the source in errors. Every
// error about the content is an *Error wrapping ErrFormat. The graph is
// validated.
func Parse(data []byte, file string) (*workloads.Graph, error) {
	r := newReader(data, file)
	g := &workloads.Graph{}
	var edges []edgeRef
	seen := map[string]bool{}
	names := map[string]int{}
	err := r.object("", func(key, path string) error {
		seen[key] = true
		var err error
		switch key {
		case "format":
			var s string
			if s, err = r.str(path); err == nil && s != FormatName {
				err = r.errf(path, "%q (valid: %q)", s, FormatName)
			}
		case "version":
			var v int64
			if v, err = r.integer(path, 1, math.MaxInt64); err == nil && v != Version {
				err = r.errf(path, "%d (valid: %d; this reader knows version %d only)", v, Version, Version)
			}
		case "name":
			g.Name, err = r.str(path)
		case "batch":
			var b int64
			b, err = r.integer(path, 1, math.MaxInt32)
			g.Batch = int(b)
		case "training":
			g.Training, err = r.boolean(path)
		case "hint":
			g.Hint, err = r.hint(path)
		case "ops":
			err = r.array(path, func(i int, path string) error {
				op, err := r.op(path)
				if err != nil {
					return err
				}
				if j, dup := names[op.Name]; dup {
					return r.errf(path+".name", "%q is also the name of ops[%d] (valid: unique names)", op.Name, j)
				}
				names[op.Name] = g.AddOp(op)
				return nil
			})
		case "edges":
			err = r.array(path, func(i int, path string) error {
				e, err := r.edge(path)
				edges = append(edges, e)
				return err
			})
		default:
			err = r.errf(path, "unknown field (valid: format, version, name, batch, training, hint, ops, edges)")
		}
		return err
	})
	if err == nil {
		err = r.end()
	}
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"format", "version", "batch", "ops"} {
		if !seen[k] {
			return nil, &Error{File: file, Path: k, Msg: "required field is missing"}
		}
	}
	if len(g.Ops) == 0 {
		return nil, &Error{File: file, Path: "ops", Msg: "no ops (valid: at least one op)"}
	}
	for i, e := range edges {
		from, ok := names[e.from]
		if !ok {
			return nil, &Error{File: file, Line: e.line, Path: fmt.Sprintf("edges[%d].from", i), Msg: fmt.Sprintf("no op named %q", e.from)}
		}
		to, ok := names[e.to]
		if !ok {
			return nil, &Error{File: file, Line: e.line, Path: fmt.Sprintf("edges[%d].to", i), Msg: fmt.Sprintf("no op named %q", e.to)}
		}
		if from == to {
			return nil, &Error{File: file, Line: e.line, Path: fmt.Sprintf("edges[%d]", i), Msg: fmt.Sprintf("self-loop on op %q (from and to must differ)", e.from)}
		}
		g.AddEdge(from, to, e.bytes)
	}
	if err := g.Validate(); err != nil {
		return nil, &Error{File: file, Msg: err.Error(), Err: err}
	}
	return g, nil
}

func (r *reader) hint(path string) (*workloads.ClusterHint, error) {
	h := &workloads.ClusterHint{}
	err := r.object(path, func(key, path string) error {
		var err error
		var v int64
		switch key {
		case "accelerators":
			v, err = r.integer(path, 0, workloads.MaxDevices)
			h.Accelerators = int(v)
		case "cpus":
			v, err = r.integer(path, 0, workloads.MaxDevices)
			h.CPUs = int(v)
		case "acceleratorMemory":
			h.AcceleratorMemory, err = r.integer(path, 0, math.MaxInt64)
		default:
			err = r.errf(path, "unknown field (valid: accelerators, cpus, acceleratorMemory)")
		}
		return err
	})
	if err == nil && h.Accelerators+h.CPUs > workloads.MaxDevices {
		err = r.errf(path, "accelerators + cpus = %d devices (valid range: at most %d)", h.Accelerators+h.CPUs, workloads.MaxDevices)
	}
	return h, err
}

func (r *reader) op(path string) (workloads.Op, error) {
	var op workloads.Op
	hasName := false
	err := r.object(path, func(key, path string) error {
		var err error
		switch key {
		case "name":
			if op.Name, err = r.str(path); err == nil && op.Name == "" {
				err = r.errf(path, "empty (valid: a non-empty unique name)")
			}
			hasName = true
		case "type":
			op.Type, err = r.str(path)
		case "layer":
			op.Layer, err = r.str(path)
		case "role":
			var s string
			if s, err = r.str(path); err != nil {
				return err
			}
			switch s {
			case "forward":
				op.Role = workloads.Forward
			case "backward":
				op.Role = workloads.Backward
			case "update":
				op.Role = workloads.Update
			default:
				err = r.errf(path, "%q (valid: forward, backward, update)", s)
			}
		case "flops":
			op.FLOPs, err = r.nonNegFloat(path)
		case "bytesAccessed":
			op.BytesAccessed, err = r.integer(path, 0, math.MaxInt64)
		case "fixedBytes":
			op.FixedBytes, err = r.integer(path, 0, math.MaxInt64)
		case "outputBytes":
			op.OutputBytes, err = r.integer(path, 0, math.MaxInt64)
		case "paramBytes":
			op.ParamBytes, err = r.integer(path, 0, math.MaxInt64)
		case "tempBytes":
			op.TempBytes, err = r.integer(path, 0, math.MaxInt64)
		case "gradBytes":
			op.GradBytes, err = r.integer(path, 0, math.MaxInt64)
		case "measured":
			op.Measured = map[string]float64{}
			err = r.object(path, func(key, _ string) error {
				v, err := r.nonNegFloat(fmt.Sprintf("%s[%q]", path, key))
				op.Measured[key] = v
				return err
			})
		case "colocation":
			op.Colocation, err = r.str(path)
		case "cpuOnly":
			op.CPUOnly, err = r.boolean(path)
		default:
			err = r.errf(path, "unknown field (valid: name, type, layer, role, flops, bytesAccessed, outputBytes, paramBytes, tempBytes, gradBytes, measured, colocation, cpuOnly)")
		}
		return err
	})
	if err == nil && !hasName {
		err = r.errf(path+".name", "required field is missing")
	}
	return op, err
}

func (r *reader) edge(path string) (edgeRef, error) {
	r.start()
	e := edgeRef{line: r.valLine}
	var hasFrom, hasTo bool
	err := r.object(path, func(key, path string) error {
		var err error
		switch key {
		case "from":
			e.from, err = r.str(path)
			hasFrom = true
		case "to":
			e.to, err = r.str(path)
			hasTo = true
		case "bytes":
			e.bytes, err = r.integer(path, 0, math.MaxInt64)
		default:
			err = r.errf(path, "unknown field (valid: from, to, bytes)")
		}
		return err
	})
	if err == nil && !hasFrom {
		err = r.errf(path+".from", "required field is missing")
	}
	if err == nil && !hasTo {
		err = r.errf(path+".to", "required field is missing")
	}
	return e, err
}
