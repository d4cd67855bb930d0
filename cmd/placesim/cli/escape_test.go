package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapeTerminal: control characters are made visible as kubectl
// makes them (ESC "^["), C1 controls as \u00XX, also when a multi-byte
// C1 control is split between two writes; text, newlines, tabs and other
// UTF-8 pass unchanged.
func TestEscapeTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain name\tcol\n", "plain name\tcol\n"},
		{"\x1b[2J\x1b]0;pwned\x07", "^[[2J^[]0;pwned^G"},
		{"a\rb\x7f", "a^Mb^?"},
		{"csi \u009b31m", `csi \u009b31m`},
		{"µs, ü, 日本", "µs, ü, 日本"},
	}
	for _, tc := range tests {
		if got := EscapeTerminal(tc.in); got != tc.want {
			t.Errorf("EscapeTerminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var b bytes.Buffer
	w := newEscapeWriter(&b)
	c1 := []byte("x\u009by\u00b5")
	for i := range c1 {
		if _, err := w.Write(c1[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if b.String() != `x\u009byµ` {
		t.Errorf("byte by byte: %q", b.String())
	}
}

// TestNamesEscapedOnTheTerminal: simulate and stats print a workload whose
// op and workload names hold escape sequences with the sequences made
// visible; no ESC byte reaches standard output or standard error.
func TestNamesEscapedOnTheTerminal(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "evil.json")
	body := `{"format": "placesim-workload", "version": 1, "name": "evil\u001b[2J\u001b]0;owned\u0007", "batch": 1,
	  "ops": [{"name": "op\u001b[31mred", "flops": 1e9, "outputBytes": 1024}, {"name": "b", "flops": 1e9}],
	  "edges": [{"from": "op\u001b[31mred", "to": "b", "bytes": 1024}]}`
	if err := os.WriteFile(w, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate", "-w", w, "-c", "4xV100-pcie", "-p", "round-robin"},
		{"stats", w},
		{"simulate", "-w", w, "-c", filepath.Join(dir, "missing\x1b[2J.yaml")},
	} {
		var out, errb bytes.Buffer
		Main(args, &out, &errb)
		for name, s := range map[string]string{"stdout": out.String(), "stderr": errb.String()} {
			if strings.ContainsAny(s, "\x1b\x07") {
				t.Errorf("placesim %q: %s holds a raw escape: %q", args, name, s)
			}
		}
		if !strings.Contains(out.String()+errb.String(), "^[[2J") {
			t.Errorf("placesim %q: the name is not shown escaped:\n%s\n%s", args, out.String(), errb.String())
		}
	}
}
