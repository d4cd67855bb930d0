package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/internal/sharedtest"
)

// TestStatsChakraTrace: stats of the shared Chakra ET prints its 3,664
// nodes by kind and its compute durations; of the PyTorch ET, its process
// group.
func TestStatsChakraTrace(t *testing.T) {
	et := sharedtest.Path(t, "traces", "chakra", "chakra.0.et")
	code, out, stderr := run(t, "stats", et)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"trace nodes        3664 (3643 compute, 21 collective", "compute durations  343.769 ms total (343769 µs"} {
		if !strings.Contains(out, want) {
			t.Fatalf("stats output lacks %q:\n%s", want, out)
		}
	}
	pt := sharedtest.Path(t, "traces", "chakra", "pytorch-et-1.0.2-chakra.0.0.4.json")
	code, out, stderr = run(t, "stats", pt)
	if code != 0 || !strings.Contains(out, `process group      "0": 2 ranks (all ranks), backend cuda:nccl`) {
		t.Fatalf("exit %d, stderr %s, output:\n%s", code, stderr, out)
	}
	code, _, stderr = run(t, "stats", et+"?device=H42")
	if code != 1 || !strings.Contains(stderr, `unknown device kind "H42"`) {
		t.Fatalf("exit %d, stderr %s: want an error naming the device kind", code, stderr)
	}
}

// TestExportChakra: export --format chakra writes one ET per device, and
// the set simulates, rank r on device r (the expert placer on the ranks'
// layers), to the exported step's time.
func TestExportChakra(t *testing.T) {
	const spec = "zoo:mlp?training=true&batch=16&layers=2&hidden=64&input=32&classes=10"
	dir := t.TempDir()
	code, _, stderr := run(t, "export", spec, "--format", "chakra", "-c", "4xV100-pcie", "-p", "round-robin", "-o", dir)
	if code != 0 || !strings.Contains(stderr, "wrote 4 ranks") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ranks := filepath.Join(dir, "ranks.json")
	if err := os.WriteFile(ranks, []byte(`{"layers": {"rank0": 0, "rank1": 1, "rank2": 2, "rank3": 3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := func(args ...string) float64 {
		code, out, stderr := run(t, append([]string{"simulate", "-c", "4xV100-pcie", "--json", "--reproducible"}, args...)...)
		if code != 0 {
			t.Fatalf("simulate %v: exit %d: %s", args, code, stderr)
		}
		var obj struct{ StepTime float64 }
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatal(err)
		}
		return obj.StepTime
	}
	a := sim("-w", spec, "-p", "round-robin")
	b := sim("-w", filepath.Join(dir, "trace.%d.et"), "-p", "expert", "--opt", "expert.file="+ranks)
	if !scalar.EqualWithinRel(a, b, 1e-3) || a <= 0 {
		t.Fatalf("step %g s from the zoo, %g s from the exported traces", a, b)
	}
	code, _, stderr = run(t, "export", spec, "--format", "chakra", "-o", dir)
	if code != 1 || !strings.Contains(stderr, "--format chakra needs --cluster") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}
