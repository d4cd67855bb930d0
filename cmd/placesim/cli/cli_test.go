package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
	"placesim/study"
)

// run calls the CLI in-process and returns exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(args, &out, &errb)
	if strings.Contains(errb.String(), "internal error") {
		t.Fatalf("placesim %v panicked:\n%s", args, errb.String())
	}
	return code, out.String(), errb.String()
}

func TestSimulateJSONDeterministic(t *testing.T) {
	args := []string{"simulate", "-w", "zoo:mlp?training=true&batch=64", "-c", "8xV100-nvlink", "-p", "random", "--seed", "11", "--json", "--reproducible"}
	code1, out1, err1 := run(t, args...)
	code2, out2, _ := run(t, args...)
	if code1 != 0 || code2 != 0 {
		t.Fatalf("exit codes %d %d: %s", code1, code2, err1)
	}
	if out1 != out2 {
		t.Fatal("two runs with the same inputs and seed printed different JSON")
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out1), &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"placer", "stepTime", "throughput", "peakMemory", "oom", "placeTime"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if obj["oom"] != nil || obj["placeTime"] != nil || !(obj["stepTime"].(float64) > 0) {
		t.Fatalf("oom %v, placeTime %v, stepTime %v", obj["oom"], obj["placeTime"], obj["stepTime"])
	}
	// another seed places differently
	args[8] = "12"
	if _, out3, _ := run(t, args...); out3 == out1 {
		t.Fatal("a different seed gave identical output")
	}
}

func TestOOMExitCode(t *testing.T) {
	dir := t.TempDir()
	cf := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(cf, []byte("name: tiny\ndevices: [{name: g, kind: V100-16GB, memory: 1MiB}]\nlinks: []\n"), 0o644)
	code, out, errs := run(t, "simulate", "-w", "zoo:mlp", "-c", cf, "--json")
	if code != cli.ExitOOM {
		t.Fatalf("exit %d, want %d; stderr %s", code, cli.ExitOOM, errs)
	}
	if !strings.Contains(errs, "out of memory on g") || !strings.Contains(out, `"deviceName": "g"`) {
		t.Fatalf("stdout %s\nstderr %s", out, errs)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cyclic := write("cyclic.json", `{"format": "placesim-workload", "version": 1, "name": "loop", "batch": 1,
  "ops": [{"name": "a", "flops": 1}, {"name": "b", "flops": 1}, {"name": "c", "flops": 1}],
  "edges": [{"from": "a", "to": "b", "bytes": 4}, {"from": "b", "to": "c", "bytes": 4}, {"from": "c", "to": "b", "bytes": 4}]}`)
	negative := write("negative.json", `{"format": "placesim-workload", "version": 1, "name": "neg", "batch": 1,
  "ops": [{"name": "a", "flops": 1, "outputBytes": -5}], "edges": []}`)
	badCluster := write("bad.yaml", "name: x\ndevices:\n  - {name: g0, kind: V100-16GB, memroy: 1GiB}\nlinks: []\n")
	expert := write("expert.json", `{"default": 7}`)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown placer", []string{"simulate", "-w", "zoo:mlp", "-p", "magic"}, []string{`unknown placer "magic"`, "valid:", "round-robin", "single"}},
		{"unknown preset", []string{"simulate", "-w", "zoo:mlp", "-c", "3xTPU"}, []string{`unknown cluster preset "3xTPU"`, "4xV100-pcie"}},
		{"malformed cluster file", []string{"simulate", "-w", "zoo:mlp", "-c", badCluster}, []string{badCluster, "memroy"}},
		{"missing cluster file", []string{"simulate", "-w", "zoo:mlp", "-c", filepath.Join(dir, "none.yaml")}, []string{"no such file"}},
		{"cyclic graph", []string{"simulate", "-w", cyclic}, []string{cyclic, `op "b" is on the cycle "b" -> "c" -> "b"`}},
		{"negative size", []string{"simulate", "-w", negative}, []string{negative, "outputBytes", "-5"}},
		{"unknown model", []string{"simulate", "-w", "zoo:alexnet9"}, []string{`unknown zoo model "alexnet9"`}},
		{"bad model parameter", []string{"simulate", "-w", "zoo:mlp?batch=0"}, []string{"batch=\"0\"", "valid range"}},
		{"unknown model parameter", []string{"simulate", "-w", "zoo:mlp?depth=3"}, []string{`unknown parameter "depth"`}},
		{"op on a missing device", []string{"simulate", "-w", "zoo:mlp", "-p", "expert", "--opt", "file=" + expert}, []string{"default: 7", "index in [0, 3]"}},
		{"bad option syntax", []string{"simulate", "-w", "zoo:mlp", "--opt", "novalue"}, []string{"want key=value"}},
		{"missing workload flag", []string{"simulate"}, []string{`"workload" not set`}},
		{"list what", []string{"list", "gpus"}, []string{"valid: placers, clusters, devices"}},
		{"bad estimates", []string{"simulate", "-w", "zoo:mlp", "--estimates", "psychic"}, []string{`estimate mode "psychic"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != cli.ExitError {
				t.Fatalf("exit %d, want %d", code, cli.ExitError)
			}
			line := strings.TrimSpace(errs)
			if strings.Count(line, "\n") > 0 {
				t.Fatalf("error is not one line:\n%s", errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Fatalf("stderr %q lacks %q", line, w)
				}
			}
		})
	}
}

func TestList(t *testing.T) {
	for what, want := range map[string]string{"placers": "round-robin", "clusters": "8xV100-nvlink-2node", "devices": "H100-80GB"} {
		code, out, _ := run(t, "list", what)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("list %s: exit %d, output %s", what, code, out)
		}
	}
}

func TestSweepMergeCheck(t *testing.T) {
	dir := t.TempDir()
	sweep := []string{"sweep", "-w", "zoo:mlp?batch=32", "-c", "8xV100-nvlink", "--placers", "single,round-robin",
		"--vary", "link.nvlink.bandwidth=0.5x..2x:3", "-q"}
	if code, out, errs := run(t, append(sweep, "--out", filepath.Join(dir, "whole"))...); code != 0 || !strings.Contains(out, "round-robin") {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, errs)
	}
	var parts []string
	for i := 0; i < 2; i++ {
		if code, _, errs := run(t, append(sweep, "--out", filepath.Join(dir, "sharded"), "--shard", fmt.Sprintf("%d/2", i))...); code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
		parts = append(parts, filepath.Join(dir, "sharded", fmt.Sprintf("results-%d-of-2.json", i)))
	}
	if code, _, errs := run(t, append([]string{"merge", "--out", filepath.Join(dir, "merged")}, parts...)...); code != 0 {
		t.Fatalf("merge: %s", errs)
	}
	// the same scenario and records; only the stamps (command, date) differ
	unstamped := func(path, command string) string {
		r, err := study.ReadResults(path)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stamp == nil || r.Stamp.Command != command || r.Stamp.Placesim == "" || r.Stamp.Date == "" {
			t.Fatalf("%s: stamp %+v, want command %s with a version and a date", path, r.Stamp, command)
		}
		r.Stamp = nil
		var b strings.Builder
		if err := study.EncodeResults(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a := unstamped(filepath.Join(dir, "whole", "results.json"), "sweep")
	b := unstamped(filepath.Join(dir, "merged", "results.json"), "merge")
	if len(a) == 0 || a != b {
		t.Fatal("merged shards differ from the whole sweep")
	}
	code, out, errs := run(t, "check", "--baseline", filepath.Join(dir, "whole", "results.json"))
	if code != 0 || !strings.Contains(out, "ok: 6 points") {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, errs)
	}
	// --format json: one object with the same facts as the table
	code, out, errs = run(t, "check", "--baseline", filepath.Join(dir, "whole", "results.json"), "--format", "json", "-q")
	var chk struct {
		OK          bool
		Points      int
		Regressions []struct{ Key, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &chk); code != 0 || err != nil || !chk.OK || chk.Points != 6 || chk.Regressions == nil || len(chk.Regressions) != 0 {
		t.Fatalf("check --format json: exit %d %v %+v\n%s\n%s", code, err, chk, out, errs)
	}
	code, out, errs = run(t, append([]string{"merge", "--format", "json", "--out", filepath.Join(dir, "merged-json")}, parts...)...)
	var mrg struct {
		Shards, Points int
		Results        string
	}
	if err := json.Unmarshal([]byte(out), &mrg); code != 0 || err != nil || mrg.Shards != 2 || mrg.Points != 6 || mrg.Results != filepath.Join(dir, "merged-json", "results.json") {
		t.Fatalf("merge --format json: exit %d %v %+v\n%s\n%s", code, err, mrg, out, errs)
	}
	if code, _, errs := run(t, append([]string{"merge", "--format", "csv", "--out", filepath.Join(dir, "merged-csv")}, parts...)...); code != cli.ExitError || !strings.Contains(errs, "valid: table, json") {
		t.Fatalf("merge --format csv: exit %d %s", code, errs)
	}
	// a budget too small for the records names merge's flag, not study's field
	if code, _, errs := run(t, append([]string{"merge", "--max-memory", "1KiB", "--out", filepath.Join(dir, "merged-small")}, parts...)...); code != cli.ExitError ||
		!strings.Contains(errs, "(valid: --max-memory >= ") || strings.Contains(errs, "max memory") {
		t.Fatalf("merge --max-memory 1KiB: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "check", "--baseline", filepath.Join(dir, "none.json")); code != cli.ExitError || !strings.Contains(errs, "no such file") {
		t.Fatalf("check of a missing baseline: exit %d %s", code, errs)
	}
}
