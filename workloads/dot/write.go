package dot

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"placesim/internal/units"
	"placesim/workloads"
)

// roleColors fills op boxes by role.
func roleColor(r workloads.Role) string {
	switch r {
	case workloads.Backward:
		return "#fde2cf"
	case workloads.Update:
		return "#e2f0d9"
	}
	return "#dbe9f6"
}

// quote makes a DOT double-quoted string; newlines become centred line
// breaks.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// flops prints a FLOP count with an SI prefix.
func flops(f float64) string {
	for _, p := range []struct {
		s string
		v float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if f >= p.v {
			return fmt.Sprintf("%.3g %sFLOP", f/p.v, p.s)
		}
	}
	return fmt.Sprintf("%.3g FLOP", f)
}

// Write writes g in DOT. Ops are nodes n0, n1... (by ID) in a cluster per
// layer, in order of first appearance; edges carry their bytes as labels.
func Write(w io.Writer, g *workloads.Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", quote(g.Name))
	bw.WriteString("  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n")
	bw.WriteString("  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n")
	var layers []string
	byLayer := map[string][]int{}
	for i := range g.Ops {
		l := g.Ops[i].Layer
		if _, ok := byLayer[l]; !ok {
			layers = append(layers, l)
		}
		byLayer[l] = append(byLayer[l], i)
	}
	for k, l := range layers {
		indent := "  "
		if l != "" {
			fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s; style=dashed; color=\"#999999\"; fontname=\"Helvetica\"; fontsize=10;\n", k, quote(l))
			indent = "    "
		}
		for _, i := range byLayer[l] {
			writeOp(bw, indent, &g.Ops[i])
		}
		if l != "" {
			bw.WriteString("  }\n")
		}
	}
	for _, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Ops) || e.To < 0 || e.To >= len(g.Ops) {
			return fmt.Errorf("graph %q: edge %d->%d: endpoint out of range [0, %d)", g.Name, e.From, e.To, len(g.Ops))
		}
		fmt.Fprintf(bw, "  n%d -> n%d [label=%s];\n", e.From, e.To, quote(units.Bytes(e.Bytes)))
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeOp(w *bufio.Writer, indent string, op *workloads.Op) {
	label := op.Name
	if op.Type != "" {
		label += "\n" + op.Type
	}
	if op.FLOPs > 0 {
		label += "\n" + flops(op.FLOPs)
	}
	if op.OutputBytes > 0 {
		label += "\nout " + units.Bytes(op.OutputBytes)
	}
	if op.ParamBytes > 0 {
		label += "\nparams " + units.Bytes(op.ParamBytes)
	}
	attrs := fmt.Sprintf("label=%s, fillcolor=%s", quote(label), quote(roleColor(op.Role)))
	if op.Type == "input" || op.Type == "variable" {
		attrs += ", shape=ellipse"
	}
	if op.CPUOnly {
		attrs += ", peripheries=2"
	}
	if op.Colocation != "" {
		attrs += ", tooltip=" + quote("colocation "+op.Colocation)
	}
	fmt.Fprintf(w, "%sn%d [%s];\n", indent, op.ID, attrs)
}
