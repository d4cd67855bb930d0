package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDidYouMean: a misspelt zoo parameter, preset, cluster-file field or
// --vary target exits 1 before any simulation, naming the valid
// alternative and no Go type.
func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cluster, []byte("name: x\ndevices:\n  - {name: g0, kind: V100-16GB, memroy: 1GiB}\nlinks: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zoo parameter", []string{"simulate", "-w", "zoo:mlp?layer=3"}, `did you mean "layers"?`},
		{"zoo model", []string{"compare", "-w", "zoo:mlpp"}, `did you mean "mlp"?`},
		{"preset", []string{"compare", "-w", "zoo:mlp", "-c", "4xV100-pci"}, `did you mean "4xV100-pcie"?`},
		{"cluster field", []string{"simulate", "-w", "zoo:mlp", "-c", cluster}, `unknown field "memroy" (valid: name, kind, memory); did you mean "memory"?`},
		{"vary family", []string{"sweep", "-w", "zoo:mlp", "-c", "8xV100-nvlink", "--placers", "single", "--vary", "link.nvlnk.bandwidth=1x,2x", "-o", filepath.Join(dir, "s1")}, `did you mean "nvlink"?`},
		{"vary field", []string{"sweep", "-w", "zoo:mlp", "--placers", "single", "--vary", "link.pcie.bandwith=1x,2x", "-o", filepath.Join(dir, "s2")}, `did you mean "link.pcie.bandwidth"?`},
		{"sweep zoo parameter", []string{"sweep", "-w", "zoo:mlp?layer=3", "--placers", "single", "--vary", "batch=8,16", "-o", filepath.Join(dir, "s3")}, `did you mean "layers"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] != "simulate" {
				args = append(args, "-q")
			}
			code, out, errs := run(t, args...)
			if code != 1 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, errs, tc.want)
			}
			if strings.Contains(errs, "devices.") || out != "" || strings.Contains(errs, "points failed") {
				t.Fatalf("stdout %q, stderr %q: a Go type, output or points run", out, errs)
			}
		})
	}
}

// TestErrorsNameTypedFlag: study names the field (replicas); the CLI
// names the flag the person typed: --regimes dp:9 is not told about
// --data-parallel, and --data-parallel 9 is.
func TestErrorsNameTypedFlag(t *testing.T) {
	code, _, errs := run(t, "compare", "-w", "zoo:mlp", "--placers", "single", "--regimes", "dp:9", "-q")
	if code != 1 || !strings.Contains(errs, "(valid: dp:N in --regimes, N <= 4)") || strings.Contains(errs, "--data-parallel") {
		t.Errorf("--regimes dp:9: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, "compare", "-w", "zoo:mlp", "--placers", "single", "--data-parallel", "9", "-q")
	if code != 1 || !strings.Contains(errs, "(valid: --data-parallel <= 4)") {
		t.Errorf("--data-parallel 9: exit %d, %s", code, errs)
	}
}
