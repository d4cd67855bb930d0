package cli

import (
	"path/filepath"
	"testing"
)

// TestDefaultRunDir: run writes into out/run/NAME, NAME the scenario
// file's name as the person typed it, never a name from the file.
func TestDefaultRunDir(t *testing.T) {
	for in, want := range map[string]string{
		"scenarios/whatif-nvlink.yaml": filepath.Join("out", "run", "whatif-nvlink"),
		"s.json":                       filepath.Join("out", "run", "s"),
		"/tmp/x/../y.yaml":             filepath.Join("out", "run", "y"),
		"..":                           filepath.Join("out", "run", "scenario"),
	} {
		if got := defaultRunDir(in); got != want {
			t.Errorf("defaultRunDir(%q) = %q, want %q", in, got, want)
		}
	}
}
