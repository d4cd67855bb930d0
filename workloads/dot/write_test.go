package dot_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"placesim/workloads"
	"placesim/workloads/dot"
)

func TestWrite(t *testing.T) {
	train, err := workloads.DeriveTraining(workloads.MLP(4, []int{8, 16, 2}))
	if err != nil {
		t.Fatal(err)
	}
	odd := workloads.Diamond(1, 1)
	odd.Name = `a "quoted" \ name`
	odd.Ops[0].Name = "line\nbreak"
	odd.Ops[1].CPUOnly = true
	tests := []struct {
		name  string
		g     *workloads.Graph
		wants []string
	}{
		{"diamond", workloads.Diamond(1e-3, 1<<20), []string{`digraph "diamond" {`, `n0 -> n1 [label="1.00 MiB"];`}},
		{"training mlp", train, []string{`subgraph cluster_`, `label="fc1"`, `fillcolor="#fde2cf"`, `fillcolor="#e2f0d9"`, `FLOP`}},
		{"escaping", odd, []string{`digraph "a \"quoted\" \\ name" {`, `label="line\nbreak\ncompute`, `peripheries=2`}},
	}
	nodeRE := regexp.MustCompile(`(?m)^\s+n\d+ \[`)
	edgeRE := regexp.MustCompile(`(?m)^\s+n\d+ -> n\d+ `)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := dot.Write(&b, tc.g); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			for _, w := range tc.wants {
				if !strings.Contains(s, w) {
					t.Errorf("output lacks %q:\n%s", w, s)
				}
			}
			if n := len(nodeRE.FindAllString(s, -1)); n != len(tc.g.Ops) {
				t.Errorf("%d nodes, want %d", n, len(tc.g.Ops))
			}
			if n := len(edgeRE.FindAllString(s, -1)); n != len(tc.g.Edges) {
				t.Errorf("%d edges, want %d", n, len(tc.g.Edges))
			}
			if strings.Count(s, "{") != strings.Count(s, "}") {
				t.Error("unbalanced braces")
			}
		})
	}
}

func TestWriteDanglingEdge(t *testing.T) {
	g := workloads.Diamond(1, 1)
	g.Edges[0].To = 7
	if err := dot.Write(&bytes.Buffer{}, g); err == nil || !strings.Contains(err.Error(), "edge 0->7") {
		t.Fatalf("error %v, want one naming the edge", err)
	}
}
