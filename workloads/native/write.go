package native

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"placesim/workloads"
)

// FormatName is the value of the "format" field of a native workload file.
const FormatName = "placesim-workload"

// Version is the schema version this package writes and reads.
const Version = 1

// opJSON is one op as written; omitted fields take their zero value.
type opJSON struct {
	Name          string             `json:"name"`
	Type          string             `json:"type,omitempty"`
	Layer         string             `json:"layer,omitempty"`
	Role          string             `json:"role,omitempty"`
	FLOPs         float64            `json:"flops,omitempty"`
	BytesAccessed int64              `json:"bytesAccessed,omitempty"`
	FixedBytes    int64              `json:"fixedBytes,omitempty"`
	OutputBytes   int64              `json:"outputBytes,omitempty"`
	ParamBytes    int64              `json:"paramBytes,omitempty"`
	TempBytes     int64              `json:"tempBytes,omitempty"`
	GradBytes     int64              `json:"gradBytes,omitempty"`
	Measured      map[string]float64 `json:"measured,omitzero"`
	Colocation    string             `json:"colocation,omitempty"`
	CPUOnly       bool               `json:"cpuOnly,omitempty"`
}

type edgeJSON struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Bytes int64  `json:"bytes,omitempty"`
}

type hintJSON struct {
	Accelerators      int   `json:"accelerators"`
	CPUs              int   `json:"cpus"`
	AcceleratorMemory int64 `json:"acceleratorMemory"`
}

// roleNames maps workloads.Role to its name in the file.
var roleNames = [...]string{workloads.Forward: "forward", workloads.Backward: "backward", workloads.Update: "update"}

// Marshal returns g in the native format: a header, one op per line, one
// edge per line. The output is deterministic (measured keys sorted).
func Marshal(g *workloads.Graph) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write writes g to w in the native format. It refuses, with an error
// wrapping ErrUnwritable, a graph the format cannot hold exactly: an empty
// or duplicate op name, an edge whose endpoint is not an op, a NaN or
// infinite number, an unknown role or a string that is not valid UTF-8.
func Write(w io.Writer, g *workloads.Graph) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	name, _ := json.Marshal(g.Name)
	fmt.Fprintf(bw, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"name\": %s,\n  \"batch\": %d,\n  \"training\": %t,\n",
		FormatName, Version, name, g.Batch, g.Training)
	if h := g.Hint; h != nil {
		hb, _ := json.Marshal(hintJSON{h.Accelerators, h.CPUs, h.AcceleratorMemory})
		fmt.Fprintf(bw, "  \"hint\": %s,\n", hb)
	}
	bw.WriteString("  \"ops\": [")
	for i := range g.Ops {
		op := &g.Ops[i]
		o := opJSON{Name: op.Name, Type: op.Type, Layer: op.Layer, FLOPs: op.FLOPs,
			BytesAccessed: op.BytesAccessed, FixedBytes: op.FixedBytes, OutputBytes: op.OutputBytes, ParamBytes: op.ParamBytes,
			TempBytes: op.TempBytes, GradBytes: op.GradBytes, Measured: op.Measured, Colocation: op.Colocation, CPUOnly: op.CPUOnly}
		if op.Role != workloads.Forward {
			o.Role = roleNames[op.Role]
		}
		line, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("%w: graph %q: ops[%d] %q: %v", ErrUnwritable, g.Name, i, op.Name, err)
		}
		writeItem(bw, i, line)
	}
	bw.WriteString(closeList(len(g.Ops)) + ",\n  \"edges\": [")
	for i, e := range g.Edges {
		line, _ := json.Marshal(edgeJSON{From: g.Ops[e.From].Name, To: g.Ops[e.To].Name, Bytes: e.Bytes})
		writeItem(bw, i, line)
	}
	bw.WriteString(closeList(len(g.Edges)) + "\n}\n")
	return bw.Flush()
}

func writeItem(w *bufio.Writer, i int, item []byte) {
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteString("\n    ")
	w.Write(item)
}

func closeList(n int) string {
	if n == 0 {
		return "]"
	}
	return "\n  ]"
}

// checkWritable reports what the format cannot hold exactly.
func checkWritable(g *workloads.Graph) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: graph %q: %s", ErrUnwritable, g.Name, fmt.Sprintf(format, args...))
	}
	if !utf8.ValidString(g.Name) {
		return bad("name is not valid UTF-8")
	}
	names := make(map[string]int, len(g.Ops))
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Name == "" {
			return bad("ops[%d].name is empty (edges refer to ops by name)", i)
		}
		if j, dup := names[op.Name]; dup {
			return bad("ops[%d].name %q is also ops[%d]'s (edges refer to ops by name)", i, op.Name, j)
		}
		names[op.Name] = i
		for _, s := range []struct{ field, v string }{{"name", op.Name}, {"type", op.Type}, {"layer", op.Layer}, {"colocation", op.Colocation}} {
			if !utf8.ValidString(s.v) {
				return bad("ops[%d].%s %q is not valid UTF-8", i, s.field, s.v)
			}
		}
		if int(op.Role) >= len(roleNames) {
			return bad("ops[%d].role = %d (valid: forward, backward, update)", i, op.Role)
		}
		if math.IsNaN(op.FLOPs) || math.IsInf(op.FLOPs, 0) {
			return bad("ops[%d].flops = %g (valid range: finite)", i, op.FLOPs)
		}
		for k, v := range op.Measured {
			if !utf8.ValidString(k) {
				return bad("ops[%d].measured key %q is not valid UTF-8", i, k)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("ops[%d].measured[%q] = %g (valid range: finite)", i, k, v)
			}
		}
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Ops) || e.To < 0 || e.To >= len(g.Ops) {
			return bad("edges[%d] %d->%d: endpoint out of range [0, %d)", i, e.From, e.To, len(g.Ops))
		}
	}
	return nil
}

// WriteFile writes g to path in the native format.
func WriteFile(path string, g *workloads.Graph) error {
	data, err := Marshal(g)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write workload %q: %w", path, err)
	}
	return nil
}
