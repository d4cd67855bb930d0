package fastt

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

func smallVGG(t testing.TB) *workloads.Graph {
	t.Helper()
	g, err := zoo.Build("zoo:vgg19?image=32&batch=8&training=true&framework=tf1-graph")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// firstOf is the first op of the given type.
func firstOf(t testing.TB, g *workloads.Graph, typ string) int {
	t.Helper()
	for i := range g.Ops {
		if g.Ops[i].Type == typ {
			return i
		}
	}
	t.Fatalf("graph %q has no %s op", g.Name, typ)
	return -1
}

// outEdges lists "successor bytes" for each out-edge of op v.
func outEdges(g *workloads.Graph, v int) []string {
	var s []string
	for _, eid := range g.Out(v) {
		e := g.Edges[eid]
		s = append(s, g.Ops[e.To].Name+" "+itoa(e.Bytes))
	}
	sort.Strings(s)
	return s
}

func itoa(x int64) string {
	if x == 0 {
		return "0"
	}
	var b []byte
	for ; x > 0; x /= 10 {
		b = append([]byte{byte('0' + x%10)}, b...)
	}
	return string(b)
}

func TestSplitOperation(t *testing.T) {
	g := smallVGG(t)
	dp, err := replicate(g, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		w       *work
		typ     string
		dim     Dim
		n       int
		combine string
	}{
		{"conv2d along the batch", modelWork(g), "conv2d", Batch, 2, "concat"},
		{"conv2d along the batch into 8", modelWork(g), "conv2d", Batch, 8, "concat"},
		{"conv2d along the channels", modelWork(g), "conv2d", Channel, 4, "concat"},
		{"matmul along the features", modelWork(g), "matmul", Channel, 2, "concat"},
		{"weight gradient along the batch: a sum", modelWork(g), "conv2d-grad-weight", Batch, 4, "add-n"},
		{"input gradient along the batch", modelWork(g), "conv2d-grad", Batch, 2, "concat"},
		{"replica of conv2d (shared weights) along the batch", dp, "conv2d", Batch, 4, "concat"},
		{"replica of conv2d along the channels", dp, "conv2d", Channel, 2, "concat"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			v := firstOf(t, w.g, tc.typ)
			orig := w.g.Ops[v]
			nw, m, err := splitOperation(w, v, tc.dim, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			ng := nw.g
			if err := ng.Validate(); err != nil {
				t.Fatalf("rewritten graph: %v", err)
			}
			if len(nw.info) != len(ng.Ops) {
				t.Fatalf("%d infos for %d ops", len(nw.info), len(ng.Ops))
			}
			// the parts add up to the op's work
			var flops float64
			parts := 0
			for i := range ng.Ops {
				if strings.HasPrefix(ng.Ops[i].Name, orig.Name+"/part") {
					flops += ng.Ops[i].FLOPs
					parts++
					if ng.Ops[i].ParamBytes != 0 {
						t.Fatalf("part %q owns %d parameter bytes", ng.Ops[i].Name, ng.Ops[i].ParamBytes)
					}
				}
			}
			if parts != tc.n || !scalar.EqualWithinAbsOrRel(flops, orig.FLOPs, tol, tol) {
				t.Fatalf("%d parts with %g FLOPs, want %d with %g", parts, flops, tc.n, orig.FLOPs)
			}
			// the combining node sends every successor what the op sent it
			comb := -1
			for i := range ng.Ops {
				if ng.Ops[i].Name == orig.Name+"/concat" || ng.Ops[i].Name == orig.Name+"/sum" {
					comb = i
				}
			}
			if comb < 0 || ng.Ops[comb].Type != tc.combine {
				t.Fatalf("no %s node for %q", tc.combine, orig.Name)
			}
			if got, want := strings.Join(outEdges(ng, comb), ";"), strings.Join(outEdges(w.g, v), ";"); got != want {
				t.Fatalf("combined output goes to %s, the op's went to %s", got, want)
			}
			if ng.Ops[comb].OutputBytes != orig.OutputBytes || ng.Ops[comb].Colocation != orig.Colocation {
				t.Fatalf("combined output %d bytes in group %q, want %d in %q", ng.Ops[comb].OutputBytes, ng.Ops[comb].Colocation, orig.OutputBytes, orig.Colocation)
			}
			// every other op is kept, with its name, and the parameters stay
			var before, after int64
			for x := range w.g.Ops {
				before += w.g.Ops[x].ParamBytes
				if x == v {
					if m[x] != -1 {
						t.Fatalf("split op maps to %d", m[x])
					}
					continue
				}
				if ng.Ops[m[x]].Name != w.g.Ops[x].Name {
					t.Fatalf("op %q became %q", w.g.Ops[x].Name, ng.Ops[m[x]].Name)
				}
			}
			for x := range ng.Ops {
				after += ng.Ops[x].ParamBytes
			}
			if before != after {
				t.Fatalf("parameter bytes %d, were %d", after, before)
			}
		})
	}
}

func TestSplitBadInput(t *testing.T) {
	g := smallVGG(t)
	w := modelWork(g)
	conv := firstOf(t, g, "conv2d")
	relu := firstOf(t, g, "relu")
	upd := firstOf(t, g, "apply-momentum")
	tests := []struct {
		name string
		op   int
		dim  Dim
		n    int
		want string
	}{
		{"n < 2", conv, Batch, 1, "valid range: n >= 2"},
		{"n = 0", conv, Batch, 0, "valid range: n >= 2"},
		{"batch not divisible", conv, Batch, 3, "batch dimension of 8 is not divisible by n = 3"},
		{"channels not divisible", conv, Channel, 5, "channel dimension of 64 is not divisible by n = 5"},
		{"no channel dimension", relu, Channel, 2, `along "channel" (valid: batch)`},
		{"update op", upd, Batch, 2, "not splittable"},
		{"no such op", len(g.Ops), Batch, 2, "valid range: 0.."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := splitOperation(w, tc.op, tc.dim, tc.n)
			if !errors.Is(err, ErrBadSplit) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadSplit with %q", err, tc.want)
			}
		})
	}
	if _, err := ParseDim("height"); !errors.Is(err, ErrBadSplit) {
		t.Fatalf("ParseDim(height): %v", err)
	}
}

func TestChannels(t *testing.T) {
	g := smallVGG(t)
	// VGG-19's first convolution has 64 filters, the classifier 1000 classes
	if c := channels(&g.Ops[firstOf(t, g, "conv2d")]); c != 64 {
		t.Fatalf("first conv2d: %d channels, want 64", c)
	}
	last := -1
	for i := range g.Ops {
		if g.Ops[i].Type == "matmul" {
			last = i
		}
	}
	if c := channels(&g.Ops[last]); c != 1000 {
		t.Fatalf("last matmul: %d features, want 1000", c)
	}
	if c := channels(&g.Ops[firstOf(t, g, "relu")]); c != 0 {
		t.Fatalf("relu: %d channels, want 0", c)
	}
}
