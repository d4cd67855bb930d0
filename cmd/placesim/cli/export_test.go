package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"placesim/study"
	"placesim/workloads"
	"placesim/workloads/native"
)

func TestExportNative(t *testing.T) {
	const spec = "zoo:mlp?training=true&batch=16&layers=2&hidden=64&input=32&classes=10"
	want, err := study.LoadWorkload(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mlp.json")
	code, out, stderr := run(t, "export", spec, "--out", path)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	got, err := native.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(workloads.Graph{}), cmpopts.IgnoreFields(workloads.Graph{}, "Precision", "Framework")); d != "" {
		t.Fatalf("exported graph differs (-want +got):\n%s", d)
	}
	// to standard output, byte-identical to the file
	code, out, _ = run(t, "export", spec)
	file, _ := os.ReadFile(path)
	if code != 0 || out != string(file) {
		t.Fatalf("exit %d; stdout differs from the --out file", code)
	}
	// the exported file simulates exactly like the zoo spec
	sim := func(w string) float64 {
		code, out, stderr := run(t, "simulate", "-w", w, "-c", "4xV100-pcie", "-p", "round-robin", "--json", "--reproducible")
		if code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", w, code, stderr)
		}
		var obj struct{ StepTime float64 }
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatal(err)
		}
		return obj.StepTime
	}
	if a, b := sim(spec), sim(path); a != b || a <= 0 {
		t.Fatalf("step time %g from the zoo, %g from the exported file", a, b)
	}
}

func TestExportDOT(t *testing.T) {
	code, out, stderr := run(t, "export", "zoo:mlp?layers=2&hidden=8&input=4&classes=2", "--format", "dot")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, "digraph ") || !strings.Contains(out, " -> ") || !strings.HasSuffix(out, "}\n") {
		t.Fatalf("not a DOT graph:\n%s", out)
	}
}

func TestExportErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad format", []string{"export", "zoo:mlp", "--format", "svg"}, `--format "svg" (valid: native, dot, chakra)`},
		{"no workload", []string{"export"}, "accepts 1 arg(s), received 0"},
		{"missing file", []string{"export", "nope.json"}, `read workload "nope.json"`},
		{"unwritable output", []string{"export", "zoo:mlp", "--out", "/nonexistent-dir/x.json"}, "/nonexistent-dir/x.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}
