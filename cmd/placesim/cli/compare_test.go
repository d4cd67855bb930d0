package cli_test

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"placesim/cmd/placesim/cli"
	"placesim/reports"
)

// compareHelperEnv carries the arguments (JSON) of a compare run in a
// subprocess: the test binary itself, running TestCompareHelperProcess.
const compareHelperEnv = "PLACESIM_COMPARE_HELPER_ARGS"

// TestCompareHelperProcess is not a test: it is the CLI in a subprocess
// for TestCompareKilledMidway.
func TestCompareHelperProcess(t *testing.T) {
	raw := os.Getenv(compareHelperEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(3)
	}
	os.Exit(cli.Main(args, os.Stdout, os.Stderr))
}

var tempName = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// TestCompareKilledMidway kills a compare --out with SIGKILL while it
// writes its files and checks that every file present is whole, that the
// only leftovers are hidden temporary files, and that the next run
// removes them.
func TestCompareKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI in subprocesses")
	}
	dir := filepath.Join(t.TempDir(), "out")
	// ~12k ops: writing the charts, trace and report takes a few hundred
	// milliseconds, a wide window to kill in
	args := []string{"compare", "-w", "zoo:mlp?batch=64&training=true&layers=1000&hidden=1024", "-c", "4xV100-pcie",
		"--placers", "single,round-robin,random,m-etf", "--out", dir, "--quiet", "--format", "json"}
	enc, _ := json.Marshal(args)
	interrupted := 0
	// kill after the first, the fourth and the ninth file is in place
	for _, after := range []int{1, 4, 9} {
		os.RemoveAll(dir)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompareHelperProcess$")
		cmd.Env = append(os.Environ(), compareHelperEnv+"="+string(enc))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.After(2 * time.Minute)
	poll:
		for {
			select {
			case err := <-done:
				t.Logf("kill after %d files: the run ended first (%v)", after, err)
				break poll
			case <-deadline:
				cmd.Process.Kill()
				t.Fatal("compare did not write its files within 2 minutes")
			default:
			}
			if visible(t, dir) >= after {
				if err := cmd.Process.Signal(syscall.SIGKILL); err == nil {
					err := <-done
					var ee *exec.ExitError
					if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
						interrupted++
					}
				}
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		tmp := checkWhole(t, dir)
		t.Logf("killed after %d files: %d files whole, temporary files left: %v", after, visible(t, dir), tmp)
	}
	if interrupted == 0 {
		t.Fatal("no run was killed midway: every compare finished before the kill")
	}
	t.Logf("%d of 3 runs killed midway", interrupted)

	// the next run into the same directory removes the leftovers (if the
	// last kill left none, one as a kill during a write leaves it)
	if len(checkWhole(t, dir)) == 0 {
		if err := os.WriteFile(filepath.Join(dir, ".trace.json.tmp12345"), []byte(`{"traceEv`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := run(t, "compare", "-w", "zoo:mlp?batch=8&training=true&layers=2&hidden=64", "-c", "4xV100-pcie",
		"--out", dir, "--quiet", "--placers", "single,round-robin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("%s left after a complete run", e.Name())
		}
	}
	checkWhole(t, dir)
}

// visible counts the non-hidden files in dir.
func visible(t *testing.T, dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// checkWhole checks that every visible file in dir is whole and every
// hidden one is a temporary file of an atomic write, and returns those.
func checkWhole(t *testing.T, dir string) (temps []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			if !tempName.MatchString(e.Name()) {
				t.Errorf("leftover %s is not a temporary file of an atomic write", e.Name())
			}
			temps = append(temps, e.Name())
			continue
		}
		if err := reports.CheckOutput(filepath.Join(dir, e.Name())); err != nil {
			t.Errorf("half-written output: %v", err)
		}
	}
	return temps
}

func TestCompareOutputs(t *testing.T) {
	w := "zoo:mlp?batch=16&training=true&layers=3&hidden=256"
	t.Run("json", func(t *testing.T) {
		code, out, errs := run(t, "compare", "-w", w, "--format", "json", "--reproducible", "--placers", "round-robin,single,random")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc struct{ Results []map[string]any }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 3 {
			t.Fatalf("%v, %d results:\n%s", err, len(doc.Results), out)
		}
		for _, r := range doc.Results {
			for _, k := range []string{"placer", "stepTime", "throughput", "peakMemory", "oom", "placeTime"} {
				if _, ok := r[k]; !ok {
					t.Errorf("%v lacks %q", r["placer"], k)
				}
			}
		}
		// not a terminal: no bar, only the summary line
		if errs != "compare: 3 runs, 3 ok, 0 failed\n" {
			t.Errorf("stderr when it is not a terminal: %q, want only the summary line", errs)
		}
	})
	t.Run("csv", func(t *testing.T) {
		code, out, errs := run(t, "compare", "-w", w, "--format", "csv", "--placers", "single,round-robin")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) != 3 || recs[0][0] != "placer" {
			t.Fatalf("%v: %q", err, out)
		}
	})
	t.Run("out with gantt", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "b")
		code, out, errs := run(t, "compare", "-w", w, "--out", dir, "--gantt", "round-robin", "--placers", "single,round-robin")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "round-robin") || !strings.Contains(errs, "timelines of round-robin") {
			t.Fatalf("stdout %s\nstderr %s", out, errs)
		}
		var trace struct{ OtherData map[string]any }
		data, err := os.ReadFile(filepath.Join(dir, "trace.json"))
		if err != nil || json.Unmarshal(data, &trace) != nil || trace.OtherData["placer"] != "round-robin" {
			t.Fatalf("trace.json is not of round-robin's run: %v %v", err, trace.OtherData)
		}
		checkWhole(t, dir)
	})
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := "zoo:mlp?batch=8&layers=2&hidden=64"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown placer", []string{"--placers", "single,magic"}, []string{`--placers: unknown placer "magic"`, "valid:", "round-robin", "single"}},
		{"repeated placer", []string{"--placers", "single,single"}, []string{`"single" is listed twice`}},
		{"out under a regular file", []string{"--out", filepath.Join(file, "out")}, []string{"output directory", file, "not a directory"}},
		{"out is a regular file", []string{"--out", file}, []string{"output directory", file}},
		{"bad format", []string{"--format", "xml"}, []string{`--format "xml"`, "table, csv, json"}},
		{"gantt not compared", []string{"--placers", "single", "--gantt", "random"}, []string{`--gantt: "random"`, "single"}},
		{"negative timeout", []string{"--timeout", "-1s"}, []string{"--timeout", "negative"}},
		{"bad timeout", []string{"--timeout", "soon"}, []string{"soon"}},
		{"negative jobs", []string{"--jobs", "-2"}, []string{"--jobs -2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, append([]string{"compare", "-w", w}, tc.args...)...)
			if code != cli.ExitError {
				t.Fatalf("exit %d, want %d; stderr %s", code, cli.ExitError, errs)
			}
			if out != "" {
				t.Errorf("stdout not empty on an input error: %q", out)
			}
			line := strings.TrimSpace(errs)
			if strings.Count(line, "\n") > 0 && !strings.Contains(line, "Usage:") {
				t.Fatalf("error is not one line:\n%s", errs)
			}
			for _, s := range tc.want {
				if !strings.Contains(line, s) {
					t.Fatalf("stderr %q lacks %q", line, s)
				}
			}
		})
	}
}
