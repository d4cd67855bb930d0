package fiddle_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"placesim/internal/sharedtest"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/workloads"
	"placesim/workloads/fiddle"
)

// tol is the relative tolerance for times that went through a ms -> s
// conversion or a byte rounding.
const tol = 1e-9

// sharedDir is ../shared/workloads/msr-fiddle relative to the repository
// root (found by walking up to go.mod).
func sharedDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Fiddle(t)
}

// rawFile is an independent, loose decoding of a file for cross-checks.
type rawFile struct {
	MaxSizePerFPGA float64 `json:"maxSizePerFPGA"`
	MaxFPGAs       int     `json:"maxFPGAs"`
	MaxCPUs        int     `json:"maxCPUs"`
	Nodes          []struct {
		FpgaLatency float64 `json:"fpgaLatency"`
		CPULatency  float64 `json:"cpuLatency"`
		Size        float64 `json:"size"`
	} `json:"nodes"`
	Edges []struct {
		Cost float64 `json:"cost"`
	} `json:"edges"`
}

func TestSharedWorkloads(t *testing.T) {
	dir := sharedDir(t)
	// node and edge counts as the README's table gives them
	tests := []struct {
		file         string
		nodes, edges int
		training     bool
	}{
		{"LayerGraphs/bert24_inference.json", 32, 55, false},
		{"LayerGraphs/bert24_training.json", 64, 110, true},
		{"LayerGraphs/resnet50_inference.json", 177, 193, false},
		{"LayerGraphs/resnet50_training.json", 354, 386, true},
		{"OperatorGraphs/bert_l-3_inference.json", 235, 250, false},
		{"OperatorGraphs/bert_l-3_training.json", 600, 817, true},
		{"OperatorGraphs/resnet50_inference.json", 604, 619, false},
		{"OperatorGraphs/resnet50_training.json", 1243, 1806, true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !fiddle.Detect(data) {
				t.Fatal("Detect = false on an msr-fiddle file")
			}
			g, err := fiddle.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var raw rawFile
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			if len(g.Ops) != len(raw.Nodes) || len(g.Ops) != tc.nodes {
				t.Errorf("%d ops, file has %d nodes, README %d", len(g.Ops), len(raw.Nodes), tc.nodes)
			}
			if len(g.Edges) != len(raw.Edges) || len(g.Edges) != tc.edges {
				t.Errorf("%d edges, file has %d, README %d", len(g.Edges), len(raw.Edges), tc.edges)
			}
			if g.Training != tc.training {
				t.Errorf("Training = %v, want %v", g.Training, tc.training)
			}
			h := g.Hint
			if h == nil || h.Accelerators != raw.MaxFPGAs || h.CPUs != raw.MaxCPUs || h.AcceleratorMemory != int64(raw.MaxSizePerFPGA) {
				t.Errorf("hint %+v, file k=%d l=%d M=%g", h, raw.MaxFPGAs, raw.MaxCPUs, raw.MaxSizePerFPGA)
			}
			var accMs, cpuMs, size, costMs, gotAcc, gotCPU, gotBytes float64
			var gotSize int64
			for i, n := range raw.Nodes {
				accMs += n.FpgaLatency
				cpuMs += n.CPULatency
				size += n.Size
				gotAcc += g.Ops[i].Measured[workloads.MeasuredAccelerator]
				gotCPU += g.Ops[i].Measured[workloads.MeasuredCPU]
				gotSize += g.Ops[i].ParamBytes
			}
			for i, e := range raw.Edges {
				costMs += e.Cost
				gotBytes += float64(g.Edges[i].Bytes)
			}
			check := func(what string, got, want float64) {
				if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, tol) {
					t.Errorf("%s: got %g, want %g", what, got, want)
				}
			}
			check("accelerator time (s)", gotAcc, accMs/1e3)
			check("CPU time (s)", gotCPU, cpuMs/1e3)
			check("size (bytes)", float64(gotSize), size)
			// each edge is rounded to the byte
			if d := gotBytes - costMs/1e3*fiddle.PCIeBandwidth; d > float64(len(raw.Edges)) || d < -float64(len(raw.Edges)) {
				t.Errorf("edge bytes %g, want %g within a byte per edge", gotBytes, costMs/1e3*fiddle.PCIeBandwidth)
			}
		})
	}
}

// TestPCIeBandwidth checks that the constant that turns costs into bytes is
// the bandwidth of devices.AccCPU's zero-latency links, so that one hop
// takes exactly the file's cost.
func TestPCIeBandwidth(t *testing.T) {
	if fiddle.PCIeBandwidth != links.PCIe3.Bandwidth {
		t.Fatalf("fiddle.PCIeBandwidth = %g, links.PCIe3.Bandwidth = %g", fiddle.PCIeBandwidth, links.PCIe3.Bandwidth)
	}
	c, err := devices.AccCPU("t", 2, 1, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	const ms = 0.75
	b := fiddle.CostToBytes(ms)
	// acc0 -> host memory -> acc1: one hop of cost ms at each end
	if got := c.TransferTime(0, 1, b); !scalar.EqualWithinAbsOrRel(got, 2*ms/1e3, 1e-15, tol) {
		t.Fatalf("accelerator-to-accelerator transfer of a %g ms edge takes %g s, want %g", ms, got, 2*ms/1e3)
	}
	for _, l := range c.Topology.Links {
		if l.Kind == links.PCIe3.Name && (l.Latency != 0 || l.Bandwidth != fiddle.PCIeBandwidth) {
			t.Fatalf("AccCPU link %+v: want zero latency and %g B/s", l, fiddle.PCIeBandwidth)
		}
	}
}

// TestThreeNodes checks the cost semantics on a hand-made file by
// simulating it on the machine it describes.
func TestThreeNodes(t *testing.T) {
	g, err := fiddle.ReadFile(filepath.Join("testdata", "three.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := 0, 1, 2
	for i, want := range []struct {
		name     string
		acc, cpu float64
		cpuOnly  bool
		role     workloads.Role
		colo     string
		params   int64
	}{
		{"a", 1e-3, 10e-3, false, workloads.Forward, "color1", 1000},
		{"b", 2e-3, 20e-3, false, workloads.Forward, "", 2000},
		{"c", 0.3e-3, 3e-3, true, workloads.Backward, "color1", 0},
	} {
		op := g.Ops[i]
		if op.Name != want.name || op.CPUOnly != want.cpuOnly || op.Role != want.role || op.Colocation != want.colo || op.ParamBytes != want.params ||
			!scalar.EqualWithinAbsOrRel(op.Measured[workloads.MeasuredAccelerator], want.acc, 0, tol) ||
			!scalar.EqualWithinAbsOrRel(op.Measured[workloads.MeasuredCPU], want.cpu, 0, tol) {
			t.Errorf("op %d = %+v, want %+v", i, op, want)
		}
	}
	if !g.Training {
		t.Error("a file with a backward node should be a training graph")
	}
	cl, err := devices.AccCPU("three", g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory)
	if err != nil {
		t.Fatal(err)
	}
	const costAB, costBC = 0.5e-3, 0.25e-3 // seconds
	tests := []struct {
		name   string
		device []int
		// gap between a producer's end and its consumer's start
		gapAB, gapBC float64
	}{
		// a and b on different accelerators: staged through host memory,
		// the cost paid at each end; b's output to the CPU: one PCIe hop
		// plus the host-memory hop to the CPU core
		{"acc-acc-cpu", []int{0, 1, 2}, 2 * costAB, costBC + float64(fiddle.CostToBytes(0.25))/devices.XeonSocket.MemBandwidth},
		// a and b together: no transfer
		{"acc-acc-same", []int{0, 0, 2}, 0, costBC + float64(fiddle.CostToBytes(0.25))/devices.XeonSocket.MemBandwidth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := engine.Simulate(g, cl, &engine.Plan{Device: tc.device}, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.OOM != nil {
				t.Fatalf("OOM: %v", res.OOM.Err())
			}
			check := func(what string, got, want float64) {
				t.Helper()
				if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, tol) {
					t.Errorf("%s = %g s, want %g s", what, got, want)
				}
			}
			check("a's run time", res.OpEnd[a]-res.OpStart[a], 1e-3)
			check("b's run time", res.OpEnd[b]-res.OpStart[b], 2e-3)
			check("c's run time (CPU)", res.OpEnd[c]-res.OpStart[c], 3e-3)
			check("transfer a->b", res.OpStart[b]-res.OpEnd[a], tc.gapAB)
			check("transfer b->c", res.OpStart[c]-res.OpEnd[b], tc.gapBC)
			if got := res.Devices[tc.device[a]].ParamBytes; got < 1000 {
				t.Errorf("a's device holds %d parameter bytes, want >= 1000 (size)", got)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "three.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(good)
	tests := []struct {
		name, data string
		want       []string // substrings of the error
	}{
		{"truncated", s[:len(s)/2], []string{"bad.json", "truncated"}},
		{"empty", "", []string{"bad.json", "empty"}},
		{"not an object", "[1, 2]", []string{"bad.json", "top level", "object"}},
		{"wrong type latency", strings.Replace(s, `"cpuLatency": 20.0`, `"cpuLatency": "20"`, 1), []string{"bad.json", "nodes[1] (id 20)", "cpuLatency", "want a number", "string"}},
		{"wrong type flag", strings.Replace(s, `"supportedOnFpga": true`, `"supportedOnFpga": "yes"`, 1), []string{"nodes[1] (id 20)", "supportedOnFpga", "want true, false, 0 or 1"}},
		{"wrong type nodes", strings.Replace(s, `"nodes": [`, `"nodes": 3, "x": [`, 1), []string{"bad.json", "field nodes: want an array", "a number (3)"}},
		{"edge to missing node", strings.Replace(s, `"destId": 30`, `"destId": 31`, 1), []string{"bad.json", "edges[1]", "destId = 31", "missing node"}},
		{"negative size", strings.Replace(s, `"size": 2000`, `"size": -5`, 1), []string{"bad.json", "nodes[1] (id 20)", "field size", "valid range: >= 0"}},
		{"negative cost", strings.Replace(s, `"cost": 0.25`, `"cost": -0.25`, 1), []string{"edges[1]", "cost", ">= 0"}},
		{"negative memory", strings.Replace(s, `1000000000.0`, `-1`, 1), []string{"maxSizePerFPGA", "valid range"}},
		{"fractional k", strings.Replace(s, `"maxFPGAs": 2`, `"maxFPGAs": 2.5`, 1), []string{"maxFPGAs", "integer"}},
		{"wrong type layerId", strings.Replace(s, `"name": "b"`, `"name": "b", "layerId": "x"`, 1), []string{"nodes[1] (id 20)", "layerId", "want a number"}},
		{"fractional layerId", strings.Replace(s, `"name": "b"`, `"name": "b", "layerId": 1.5`, 1), []string{"nodes[1] (id 20)", "layerId", "integer"}},
		{"wrong type isArtificial", strings.Replace(s, `"cost": 0.25`, `"cost": 0.25, "isArtificial": "no"`, 1), []string{"edges[1]", "isArtificial", "want true, false, 0 or 1"}},
		{"missing field", strings.Replace(s, `"fpgaLatency": 2.0,`, ``, 1), []string{"nodes[1]", "missing required field fpgaLatency"}},
		{"missing top field", strings.Replace(s, `"maxCPUs": 1,`, ``, 1), []string{"missing required top-level field maxCPUs"}},
		{"duplicate id", strings.Replace(s, `"id": 20`, `"id": 10`, 1), []string{"nodes[1]", "id = 10 duplicates nodes[0]"}},
		{"duplicate name", strings.Replace(s, `"name": "b"`, `"name": "a"`, 1), []string{"nodes[1]", "duplicates the name"}},
		{"self-loop", strings.Replace(s, `"destId": 30`, `"destId": 20`, 1), []string{"edges[1]", "self-loop"}},
		{"cycle", strings.Replace(s, `{"sourceId": 20, "destId": 30, "cost": 0.25}`, `{"sourceId": 20, "destId": 30, "cost": 0.25}, {"sourceId": 30, "destId": 10, "cost": 1}`, 1), []string{"bad.json", "cycle"}},
		{"trailing data", s + "{}", []string{"trailing data"}},
		{"no nodes", `{"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [], "edges": []}`, []string{"nodes is empty"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.data == s {
				t.Fatal("test case did not change the file")
			}
			g, err := fiddle.Parse([]byte(tc.data), "bad.json")
			if err == nil {
				t.Fatalf("no error; graph with %d ops", len(g.Ops))
			}
			if !errors.Is(err, fiddle.ErrFormat) {
				t.Errorf("error does not wrap ErrFormat: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data string
		want       bool
	}{
		{"fiddle", `{"maxFPGAs": 1, "nodes": []}`, true},
		{"other json", `{"name": "x", "ops": []}`, false},
		{"not json", `name: x`, false},
		{"array", `[]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fiddle.Detect([]byte(tc.data)); got != tc.want {
				t.Fatalf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnknownFields checks that an unknown field is ignored with one
// warning per field and place (the artifact's reader ignores it), leaves
// the graph as without it, and is an error in strict mode.
func TestUnknownFields(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "three.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(good)
	withExtra := strings.NewReplacer(
		`"name": "a"`, `"name": "a", "flops": 3, "containedSubnodes": [1]`,
		`"name": "b"`, `"name": "b", "flops": 4`,
		`"cost": 0.25`, `"cost": 0.25, "bandwidth": 1`,
		`"maxCPUs": 1,`, `"maxCPUs": 1, "comment": "x",`,
	).Replace(s)
	if withExtra == s {
		t.Fatal("test file unchanged")
	}
	want, err := fiddle.Parse(good, "f.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := fiddle.Parse([]byte(withExtra), "f.json")
	if err != nil {
		t.Fatalf("unknown fields are an error by default: %v", err)
	}
	wantWarn := []string{
		`f.json: unknown field "bandwidth" ignored in 1 of the edges (first edges[1])`,
		`f.json: unknown field "containedSubnodes" ignored in 1 of the nodes (first nodes[0])`,
		`f.json: unknown field "flops" ignored in 2 of the nodes (first nodes[0])`,
		`f.json: unknown top-level field "comment" ignored`,
	}
	if strings.Join(g.Warnings, "\n") != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(g.Warnings, "\n"), strings.Join(wantWarn, "\n"))
	}
	if len(want.Warnings) != 0 {
		t.Errorf("warnings on a clean file: %v", want.Warnings)
	}
	g.Warnings = nil
	if a, b := fmt.Sprintf("%+v", g.Ops), fmt.Sprintf("%+v", want.Ops); a != b {
		t.Errorf("ops differ with unknown fields:\n%s\n%s", a, b)
	}
	_, err = fiddle.ParseWith([]byte(withExtra), "f.json", fiddle.Options{Strict: true})
	if err == nil || !errors.Is(err, fiddle.ErrFormat) || !strings.Contains(err.Error(), `unknown field "comment"`) || !strings.Contains(err.Error(), "strict") {
		t.Errorf("strict mode: error %v, want an unknown field error", err)
	}
	if _, err := fiddle.ParseWith(good, "f.json", fiddle.Options{Strict: true}); err != nil {
		t.Errorf("strict mode rejects a clean file: %v", err)
	}
}

// TestLayers checks layerId (the op's Layer), the optional colorClass and
// size, and the layer contraction of the artifact's -contractLayers: the
// colour classes of a layer become one colocation group.
func TestLayers(t *testing.T) {
	path := filepath.Join("testdata", "layers.json")
	g, err := fiddle.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings) != 0 {
		t.Errorf("warnings: %v", g.Warnings)
	}
	type row struct{ layer, colo string }
	want := []row{{"layer0", "color1"}, {"layer0", ""}, {"layer1", "color3"}, {"layer1", "color4"}, {"", ""}, {"layer1", "color3"}, {"layer0", "color1"}}
	for i, w := range want {
		if op := g.Ops[i]; op.Layer != w.layer || op.Colocation != w.colo {
			t.Errorf("op %s: layer %q colocation %q, want %q %q", op.Name, op.Layer, op.Colocation, w.layer, w.colo)
		}
	}
	if g.Ops[1].ParamBytes != 0 {
		t.Errorf("a node without size has %d bytes, want 0", g.Ops[1].ParamBytes)
	}
	c, err := fiddle.ReadFileWith(path, fiddle.Options{ContractLayers: true})
	if err != nil {
		t.Fatal(err)
	}
	wantC := []string{"layers0", "layers0", "layers1", "layers1", "", "layers1", "layers0"}
	for i, w := range wantC {
		if got := c.Ops[i].Colocation; got != w {
			t.Errorf("contracted: op %s colocation %q, want %q", c.Ops[i].Name, got, w)
		}
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		query string
		want  fiddle.Options
		err   string
	}{
		{"", fiddle.Options{}, ""},
		{"contract=layers", fiddle.Options{ContractLayers: true}, ""},
		{"contract=none&strict=true", fiddle.Options{Strict: true}, ""},
		{"contract=ops", fiddle.Options{}, `contract="ops" (valid: layers, none)`},
		{"strict=maybe", fiddle.Options{}, `strict="maybe" (valid: true, false)`},
		{"strict=true&strict=false", fiddle.Options{}, "given 2 times"},
		{"batch=2", fiddle.Options{}, `unknown msr-fiddle option "batch" (valid: contract, strict)`},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got, err := fiddle.ParseOptions(tc.query)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
