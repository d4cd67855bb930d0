package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"placesim/internal/sharedtest"
	"placesim/workloads/zoo"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// fiddleFile is ../shared/workloads/msr-fiddle/file from the repo root.
func fiddleFile(t *testing.T, file string) string {
	t.Helper()
	return sharedtest.Fiddle(t, file)
}

func TestPlaceFiddleJSON(t *testing.T) {
	tests := []struct {
		file    string
		optimum float64 // README, ms per sample
	}{
		{"LayerGraphs/bert24_inference.json", 17.789906},
		{"OperatorGraphs/resnet50_training.json", 255.194416},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := fiddleFile(t, tc.file)
			args := []string{"place", "--placer", "tarnawski-dp", "--workload", path, "--json", "--reproducible"}
			code, out, errOut := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			_, again, _ := run(t, args...)
			if again != out {
				t.Fatal("--reproducible output differs between two runs")
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(out), &obj); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"placer", "stepTime", "throughput", "peakMemory", "oom", "placeTime", "maxLoad", "placement"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("JSON lacks %q", k)
				}
			}
			ml, ok := obj["maxLoad"].(float64)
			if !ok || !scalar.EqualWithinRel(ml*1e3, tc.optimum, 1e-6) {
				t.Errorf("maxLoad = %v s, README optimum %g ms", obj["maxLoad"], tc.optimum)
			}
			if obj["placeTime"] != nil {
				t.Error("placeTime should be null with --reproducible")
			}
		})
	}
}

func TestPlaceText(t *testing.T) {
	path := fiddleFile(t, "LayerGraphs/bert24_training.json")
	code, out, errOut := run(t, "place", "-p", "tarnawski-dp", "-w", path, "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"max-load", "ms per sample", "placement time", "split", "acc0", "bottleneck: acc", "<- bottleneck"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlaceErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"zoo without cluster", []string{"place", "-p", "tarnawski-dp", "-w", "zoo:mlp"}, "no cluster given"},
		{"unknown placer", []string{"place", "-p", "no-such", "-w", "zoo:mlp", "-c", "4xV100-pcie"}, "unknown placer"},
		{"bad option", []string{"place", "-p", "tarnawski-dp", "-w", "zoo:mlp", "-c", "1xV100", "--opt", "max-memory-mib=0"}, "max-memory-mib"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, tc.args...)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q: want exit 1 mentioning %q", code, errOut, tc.want)
			}
		})
	}
}

// TestPlaceExpertMaxLoad scores an expert split (a placer that reports no
// max-load) in the max-load model: it cannot beat the DP's optimum.
func TestPlaceExpertMaxLoad(t *testing.T) {
	path := fiddleFile(t, "LayerGraphs/bert24_inference.json")
	var b strings.Builder
	b.WriteString(`{"ops": {`)
	for i := 1; i <= 32; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"node%d": "acc%d"`, i, min(5, (i-1)*6/32))
	}
	b.WriteString("}}")
	file := filepath.Join(t.TempDir(), "expert.json")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "place", "-p", "expert", "--opt", "file="+file, "-w", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var obj struct {
		MaxLoad *float64 `json:"maxLoad"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.MaxLoad == nil || *obj.MaxLoad*1e3 < 17.789906*(1-1e-6) {
		t.Fatalf("expert split's maxLoad %v: want one >= the optimum 17.789906 ms", obj.MaxLoad)
	}
}

// TestPlaceRewrittenGraph: fastt-os-dpos splits ops, so its plan is for a
// rewritten graph with more ops than the workload; place lists that
// graph's ops (it once indexed the workload's ops with the plan's IDs and
// panicked).
func TestPlaceRewrittenGraph(t *testing.T) {
	const w = "zoo:vgg19?image=64&batch=16&training=true"
	g, err := zoo.Build(w)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "place", "-p", "fastt-os-dpos", "-w", w, "-c", "4xV100-pcie", "--json", "--reproducible")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var obj struct {
		Placement []struct {
			Ops []string `json:"ops"`
		} `json:"placement"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range obj.Placement {
		n += len(p.Ops)
	}
	if n <= len(g.Ops) { // a split adds ops
		t.Fatalf("placement lists %d ops, want the rewritten graph's (more than the workload's %d)", n, len(g.Ops))
	}
}
