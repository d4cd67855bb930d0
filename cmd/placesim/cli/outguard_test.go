package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"placesim/placers/builtin"
	"placesim/study"
)

// runCLI runs placesim in process and returns its exit code and stderr.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &Factory{Out: &out, ErrOut: &errb, Registry: builtin.NewRegistry, Getenv: func(string) string { return "" }}
	code := MainContext(context.Background(), f, args)
	if strings.Contains(errb.String(), "internal error") {
		t.Fatalf("placesim %q panicked:\n%s", args, errb.String())
	}
	return code, errb.String()
}

// TestExportOutRefusesSpecialFiles: export -o replaces only regular
// files: a character device, a FIFO, a symbolic link and a folder stay
// what they are, and the error names the flag and what the path is
// (issue 31: export --out /dev/null as root made /dev/null a file).
func TestExportOutRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	tests := []struct {
		name, path, want string
		mode             os.FileMode // what the path must still be
	}{
		{"character device", "/dev/null", "a character device", os.ModeDevice | os.ModeCharDevice},
		{"named pipe", fifo, "a named pipe (FIFO)", os.ModeNamedPipe},
		{"symbolic link", link, "a symbolic link", os.ModeSymlink},
		{"folder", dir, "a folder", os.ModeDir},
		{"root", "/", "the root folder", os.ModeDir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.Lstat(tc.path)
			if err != nil {
				t.Skipf("%s: %v", tc.path, err)
			}
			code, msg := runCLI(t, "export", "zoo:mlp", "--format", "native", "--out", tc.path)
			if code == ExitOK || !strings.Contains(msg, "--out "+tc.path) || !strings.Contains(msg, tc.want) {
				t.Fatalf("exit %d, stderr %q; want an error naming --out %s and %q", code, msg, tc.path, tc.want)
			}
			after, err := os.Lstat(tc.path)
			if err != nil || after.Mode()&tc.mode != tc.mode || after.Mode().Type() != before.Mode().Type() {
				t.Fatalf("%s is now %v (%v), was %v", tc.path, after.Mode(), err, before.Mode())
			}
		})
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "keep" {
		t.Fatalf("the link's target changed: %q, %v", data, err)
	}
	// a new path and a regular file are written
	for _, p := range []string{filepath.Join(dir, "new.json"), target} {
		if code, msg := runCLI(t, "export", "zoo:mlp", "--format", "native", "--out", p); code != ExitOK {
			t.Fatalf("export --out %s: exit %d: %s", p, code, msg)
		}
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			t.Fatalf("%s: %v, %v", p, st, err)
		}
	}
}

// TestOutDirGuards: an output folder is refused when it is the root, a
// symbolic link, a file, a folder of files placesim did not write, or
// another command's results; the refused command leaves the folder as it
// was. The command that wrote a folder may write it again (a resume).
func TestOutDirGuards(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scen, []byte("name: s\nworkloads: [\"zoo:mlp?batch=8\"]\nclusters: [4xV100-pcie]\nplacers: [single]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "run")
	if code, msg := runCLI(t, "run", scen, "-q", "--out", runDir); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, msg)
	}
	results, err := os.ReadFile(filepath.Join(runDir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "thesis.tex"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkDir := filepath.Join(dir, "linkdir")
	if err := os.Symlink(home, linkDir); err != nil {
		t.Fatal(err)
	}
	compare := []string{"compare", "-w", "zoo:mlp?batch=8", "--placers", "single", "-q", "--out"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"run into the root", []string{"run", scen, "-q", "--out", "/"}, "--out /: the root folder"},
		{"sweep into the root", []string{"sweep", "-w", "zoo:mlp?batch=8", "--placers", "single", "--vary", "batch=2,4", "-q", "--out", "/"}, "--out /: the root folder"},
		{"compare into a run's folder", append(compare, runDir), "was written by placesim run, not compare"},
		{"run into a folder of other files", []string{"run", scen, "-q", "--out", home}, `holds "thesis.tex", which placesim did not write`},
		{"compare into a symbolic link", append(compare, linkDir), "a symbolic link"},
		{"compare into a file", append(compare, scen), "not an output directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := runCLI(t, tc.args...)
			if code == ExitOK || !strings.Contains(msg, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %q", code, msg, tc.want)
			}
		})
	}
	if now, err := os.ReadFile(filepath.Join(runDir, "results.json")); err != nil || !bytes.Equal(now, results) {
		t.Fatalf("the run's results.json changed (%v)", err)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 1 {
		t.Fatalf("the folder of other files now holds %d entries", len(ents))
	}
	// the run's own folder is resumed; a comparison gets a subfolder
	if code, msg := runCLI(t, "run", scen, "-q", "--out", runDir); code != ExitOK {
		t.Fatalf("resume: exit %d: %s", code, msg)
	}
	if code, msg := runCLI(t, append(compare, filepath.Join(runDir, "compare"))...); code != ExitOK {
		t.Fatalf("compare into a subfolder: exit %d: %s", code, msg)
	}
}

// TestOutDirLock: while one writer holds an output folder, a second run,
// sweep, compare or merge into it is refused at once and leaves no file;
// shards of one run share the folder, but not with a whole run.
func TestOutDirLock(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	scen := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scen, []byte("name: s\nworkloads: [\"zoo:mlp?batch=8\"]\nclusters: [4xV100-pcie]\nplacers: [single, round-robin]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := claimOutDir("--out", out, "run", study.Shard{})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", scen, "-q", "--out", out},
		{"run", scen, "-q", "--out", out, "--shard", "0/2"},
		{"sweep", "-w", "zoo:mlp?batch=8", "--placers", "single", "--vary", "batch=2,4", "-q", "--out", out},
		{"compare", "-w", "zoo:mlp?batch=8", "--placers", "single", "-q", "--out", out},
	} {
		code, msg := runCLI(t, args...)
		if code == ExitOK || !strings.Contains(msg, "another placesim is writing into this folder") {
			t.Errorf("%q while the folder is held: exit %d, stderr %q", args, code, msg)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("refused writers left %d files", len(ents))
	}
	release()
	// two shards at once: each locks its own journal, both run
	r0, err := claimOutDir("--out", out, "run", study.Shard{I: 0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r0()
	if code, msg := runCLI(t, "run", scen, "-q", "--out", out, "--shard", "1/2"); code != ExitOK {
		t.Fatalf("a second shard beside the first: exit %d: %s", code, msg)
	}
	if code, msg := runCLI(t, "run", scen, "-q", "--out", out); code == ExitOK || !strings.Contains(msg, "another placesim") {
		t.Fatalf("a whole run beside a shard: exit %d: %s", code, msg)
	}
}
