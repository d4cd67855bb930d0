package cli_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
)

// listTree returns every path under dir, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// hostileScript writes an executable that, if ever run, leaves marker.
func hostileScript(t *testing.T, dir string) (script, marker string) {
	t.Helper()
	marker = filepath.Join(dir, "EXECUTED")
	script = filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// recordBaseline runs a one-point scenario and returns its results.json,
// decoded as a generic object for crafting.
func recordBaseline(t *testing.T, dir string) (path string, obj map[string]any) {
	t.Helper()
	sc := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(sc, []byte("name: base\nworkloads: [\"zoo:mlp?batch=32\"]\nclusters: [4xV100-pcie]\nplacers: [round-robin, single]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "base")
	if code, _, errs := run(t, "run", sc, "--out", out, "-q"); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	path = filepath.Join(out, "results.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return path, obj
}

func writeJSONFile(t *testing.T, path string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrustBoundary gives every command that reads a data file a hostile
// one that names a program to run or a directory to write: each is
// refused with the field named, the program never runs and nothing is
// written outside the output directory.
func TestTrustBoundary(t *testing.T) {
	dir := t.TempDir()
	script, marker := hostileScript(t, dir)
	_, base := recordBaseline(t, dir)
	evilDir := filepath.Join(dir, "written-here")

	crafted := func(placer, key, value string) map[string]any {
		var c map[string]any
		b, _ := json.Marshal(base)
		_ = json.Unmarshal(b, &c)
		sc := c["scenario"].(map[string]any)
		sc["placers"] = []any{placer}
		sc["placerOptions"] = map[string]any{placer: map[string]any{key: value}}
		return c
	}
	scenario := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name  string
		args  []string
		code  int
		field string
	}{
		{"check baseline metis.bin", []string{"check", "--baseline", writeJSONFile(t, filepath.Join(dir, "metis.json"), crafted("metis", "bin", script))},
			cli.ExitUntrusted, "placerOptions.metis.bin"},
		{"check baseline scotch.bin", []string{"check", "--baseline", writeJSONFile(t, filepath.Join(dir, "scotch.json"), crafted("scotch", "bin", script))},
			cli.ExitUntrusted, "placerOptions.scotch.bin"},
		{"check baseline solver", []string{"check", "--baseline", writeJSONFile(t, filepath.Join(dir, "ip.json"), crafted("tarnawski-ip", "solver", script))},
			cli.ExitUntrusted, "placerOptions.tarnawski-ip.solver"},
		{"check baseline pesto.dir", []string{"check", "--baseline", writeJSONFile(t, filepath.Join(dir, "pesto.json"), crafted("pesto", "dir", evilDir))},
			cli.ExitUntrusted, "placerOptions.pesto.dir"},
		{"check baseline qualified key", []string{"check", "--baseline", writeJSONFile(t, filepath.Join(dir, "qual.json"), crafted("metis", "metis.bin", script))},
			cli.ExitUntrusted, "placerOptions.metis.metis.bin"},
		{"run scenario metis.bin", []string{"run", "-q", "--out", out, scenario("metis.yaml",
			"name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [metis]\nplacerOptions: {metis: {bin: "+script+"}}\n")},
			cli.ExitError, "placerOptions.metis.bin"},
		{"run scenario keep dir", []string{"run", "-q", "--out", out, scenario("keep.yaml",
			"name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [tarnawski-ip]\nplacerOptions: {tarnawski-ip: {keep: "+evilDir+"}}\n")},
			cli.ExitError, "placerOptions.tarnawski-ip.keep"},
		{"run scenario with all", []string{"run", "-q", "--out", out, scenario("all.yaml",
			"name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [all]\nplacerOptions: {scotch: {bin: "+script+"}}\n")},
			cli.ExitError, "placerOptions.scotch.bin"},
		{"cluster file naming a program", []string{"simulate", "-w", "zoo:mlp", "-c", scenario("cluster.yaml",
			"name: c\nbin: "+script+"\ndevices: [{name: g, kind: V100-16GB}]\nlinks: []\n")},
			cli.ExitError, "bin"},
		{"workload file naming a program", []string{"simulate", "-w", scenario("w.json",
			`{"format": "placesim-workload", "version": 1, "name": "w", "batch": 1, "bin": "`+script+`", "ops": [{"name": "a", "flops": 1}], "edges": []}`)},
			cli.ExitError, "bin"},
		{"merge of a crafted result", []string{"merge", "--out", out, writeJSONFile(t, filepath.Join(dir, "m.json"), crafted("metis", "bin", script))},
			cli.ExitError, "placerOptions.metis.bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := listTree(t, dir)
			code, _, errs := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errs)
			}
			if !strings.Contains(errs, tc.field) {
				t.Fatalf("stderr %q does not name %q", errs, tc.field)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the script named in the data file was executed")
			}
			after := listTree(t, dir)
			for _, p := range after {
				if !contains(before, p) && !strings.HasPrefix(p, out) {
					t.Errorf("wrote %s outside the output directory", p)
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestLocalOptionFromFlag checks that an executable named on the command
// line is used: the same hostile script given with --opt runs (the trust
// boundary is about who names it, not what it is).
func TestLocalOptionFromFlag(t *testing.T) {
	dir := t.TempDir()
	script, marker := hostileScript(t, dir)
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("name: x\nworkloads: [\"zoo:mlp?batch=32\"]\nclusters: [4xV100-pcie]\nplacers: [metis]\n"), 0o644)
	code, _, errs := run(t, "run", sc, "-q", "--out", filepath.Join(dir, "out"), "--allow-failures", "--opt", "metis.bin="+script)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("--opt metis.bin=SCRIPT did not run it (exit %d: %s)", code, errs)
	}
}

// TestCheckFailsClosed: every way a check could pass without checking is
// an error with its own exit code.
func TestCheckFailsClosed(t *testing.T) {
	dir := t.TempDir()
	path, base := recordBaseline(t, dir)
	variant := func(name string, edit func(m map[string]any)) string {
		var c map[string]any
		b, _ := json.Marshal(base)
		_ = json.Unmarshal(b, &c)
		edit(c)
		return writeJSONFile(t, filepath.Join(dir, name), c)
	}
	empty := variant("empty.json", func(m map[string]any) { m["records"] = []any{} })
	unmatched := variant("unmatched.json", func(m map[string]any) {
		m["records"].([]any)[0].(map[string]any)["seed"] = 99
	})
	oldVersion := variant("v0.json", func(m map[string]any) { delete(m, "version") })
	otherFormat := variant("other.json", func(m map[string]any) { m["format"] = "something-else" })
	duplicate := variant("dup.json", func(m map[string]any) {
		recs := m["records"].([]any)
		m["records"] = append(recs, recs[0])
	})
	zeroStep := variant("zero.json", func(m map[string]any) {
		m["records"].([]any)[0].(map[string]any)["stepTime"] = 0
	})
	negStep := variant("neg.json", func(m map[string]any) {
		m["records"].([]any)[1].(map[string]any)["stepTime"] = -1
	})
	negPeak := variant("negpeak.json", func(m map[string]any) {
		m["records"].([]any)[0].(map[string]any)["peakMemory"].([]any)[0] = -5
	})
	blank := filepath.Join(dir, "blank.json")
	os.WriteFile(blank, nil, 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"NaN%", []string{"--baseline", path, "--tolerance", "NaN%"}, cli.ExitBadTolerance, "tolerance"},
		{"NaN", []string{"--baseline", path, "--tolerance", "NaN"}, cli.ExitBadTolerance, "tolerance"},
		{"negative", []string{"--baseline", path, "--tolerance", "-1%"}, cli.ExitBadTolerance, "tolerance"},
		{"negative fraction", []string{"--baseline", path, "--tolerance", "-0.01"}, cli.ExitBadTolerance, "tolerance"},
		{"Inf", []string{"--baseline", path, "--tolerance", "Inf"}, cli.ExitBadTolerance, "tolerance"},
		{"+Inf%", []string{"--baseline", path, "--tolerance", "+Inf%"}, cli.ExitBadTolerance, "tolerance"},
		{"trailing text", []string{"--baseline", path, "--tolerance", "2%%"}, cli.ExitBadTolerance, "tolerance"},
		{"empty", []string{"--baseline", path, "--tolerance", ""}, cli.ExitBadTolerance, "tolerance"},
		{"empty baseline", []string{"--baseline", empty}, cli.ExitEmptyBaseline, "no records"},
		{"unmatched point", []string{"--baseline", unmatched}, cli.ExitUnmatched, "seed 99"},
		{"no version", []string{"--baseline", oldVersion}, cli.ExitFormatVersion, "version 0"},
		{"other format", []string{"--baseline", otherFormat}, cli.ExitFormatVersion, "something-else"},
		{"blank file", []string{"--baseline", blank}, cli.ExitError, "empty"},
		{"point recorded twice", []string{"--baseline", duplicate}, cli.ExitError, "records[0] and records[2] are the same point"},
		{"zero step time", []string{"--baseline", zeroStep}, cli.ExitError, "records[0].stepTime = 0 (valid: a time in (0, 1e+12] s"},
		{"negative step time", []string{"--baseline", negStep}, cli.ExitError, "records[1].stepTime = -1"},
		{"negative peak memory", []string{"--baseline", negPeak}, cli.ExitError, "records[0].peakMemory[0] = -5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, append([]string{"check"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) || strings.Contains(out, "ok:") {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, out, errs, tc.want)
			}
		})
	}
	if code, out, errs := run(t, "check", "--baseline", path, "--tolerance", "0"); code != 0 || !strings.Contains(out, "ok: 2 points") {
		t.Fatalf("the untouched baseline: exit %d %s %s", code, out, errs)
	}
}
