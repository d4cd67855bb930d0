package native_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"placesim/workloads"
	"placesim/workloads/native"
)

// graphCmp compares graphs field by field; adjacency is derived state.
var graphCmp = cmpopts.IgnoreUnexported(workloads.Graph{})

// everyField is a graph that sets every field the format holds, with
// values that are easy to lose: an empty but non-nil measured map, names
// that need escaping, a non-forward role, the hint, tiny and huge numbers.
func everyField() *workloads.Graph {
	g := workloads.NewGraph(`odd "name" <&> ü`, 7)
	g.Training = true
	g.Hint = &workloads.ClusterHint{Accelerators: 3, CPUs: 1, AcceleratorMemory: 17185374208}
	a := g.AddOp(workloads.Op{Name: "in\tput", Type: "input", Layer: "L0", OutputBytes: 1 << 40})
	b := g.AddOp(workloads.Op{Name: "w/grad", Type: "matmul-grad", Layer: "L1", Role: workloads.Backward,
		FLOPs: 1.2345678901234567e15, BytesAccessed: 9223372036854775807, FixedBytes: 7, OutputBytes: 3, ParamBytes: 5, GradBytes: 4,
		TempBytes: 11, Measured: map[string]float64{"V100-16GB": 1e-300, workloads.MeasuredCPU: 0.125, workloads.MeasuredAny: 0},
		Colocation: "grp", CPUOnly: true})
	c := g.AddOp(workloads.Op{Name: "w/update", Type: "apply-gradient", Role: workloads.Update, FLOPs: 0.1,
		Measured: map[string]float64{}, Colocation: "grp"})
	g.AddEdge(a, b, 0)
	g.AddEdge(b, c, 42)
	g.AddEdge(a, c, 1)
	return g
}

func roundTripGraphs(t testing.TB) map[string]*workloads.Graph {
	mlp := workloads.MLP(32, []int{64, 128, 10})
	train, err := workloads.DeriveTraining(mlp)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*workloads.Graph{
		"chain":        workloads.Chain(5, []float64{1e-3, 2.5e-4}, 4096),
		"diamond":      workloads.Diamond(1e-3, 1<<20),
		"forkjoin":     workloads.ForkJoin(3, 4, 2e-5, 512),
		"mlp":          mlp,
		"mlp-training": train,
		"random":       workloads.RandomLayered(2000, 40, 7),
		"every-field":  everyField(),
	}
}

func TestRoundTrip(t *testing.T) {
	for name, g := range roundTripGraphs(t) {
		t.Run(name, func(t *testing.T) {
			if err := g.Validate(); err != nil {
				t.Fatalf("test graph invalid: %v", err)
			}
			data, err := native.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := native.Parse(data, name+".json")
			if err != nil {
				t.Fatalf("Parse(Marshal(g)): %v", err)
			}
			if d := cmp.Diff(g, got, graphCmp); d != "" {
				t.Fatalf("round trip differs (-want +got):\n%s", d)
			}
			again, err := native.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, again) {
				t.Fatal("writing the read graph gave different bytes")
			}
		})
	}
}

func TestRoundTripFile(t *testing.T) {
	g := everyField()
	path := t.TempDir() + "/g.json"
	if err := native.WriteFile(path, g); err != nil {
		t.Fatal(err)
	}
	got, err := native.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(g, got, graphCmp); d != "" {
		t.Fatalf("file round trip differs (-want +got):\n%s", d)
	}
}

func TestDetect(t *testing.T) {
	full, err := native.Marshal(workloads.Diamond(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"native", string(full), true},
		{"truncated native", string(full[:len(full)/2]), true},
		{"format after other fields", `{"batch": 1, "ops": [{"name": "a"}], "format": "x"}`, true},
		{"wrong format value still claimed", `{"format": "other"}`, true},
		{"msr-fiddle", `{"maxSizePerFPGA": 1.0, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [], "edges": []}`, false},
		{"array", `[{"format": "placesim-workload"}]`, false},
		{"format nested only", `{"x": {"format": "placesim-workload"}}`, false},
		{"empty", ``, false},
		{"binary", "\x08\x07\x12\x04", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := native.Detect([]byte(tc.data)); got != tc.want {
				t.Fatalf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}
