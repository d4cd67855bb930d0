package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// interruptGrace bounds how long the interrupted process may take to exit.
// The promise is one second; the test allows for a loaded CI machine.
const interruptGrace = 3 * time.Second

// built is the binary the tests share, built once.
var built struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// buildPlacesim builds the command once into a temporary directory.
func buildPlacesim(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "placesim-test-bin-"); built.err != nil {
			return
		}
		built.out, built.err = exec.Command("go", "build", "-o", filepath.Join(built.dir, "placesim"), ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "placesim")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// TestInterrupt sends SIGINT to running commands: each must exit with
// code 130 within interruptGrace, leave no file in its output directory
// and no scratch directory in its temporary directory.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPlacesim(t)
	tests := []struct {
		name string
		args func(out string) []string
	}{
		{"compare", func(out string) []string {
			return []string{"compare", "-w", "zoo:transformer?training=true&layers=6", "-c", "8xV100-nvlink", "-q", "--out", out}
		}},
		{"sweep", func(out string) []string {
			return []string{"sweep", "-w", "zoo:transformer?training=true&layers=96", "-c", "8xV100-nvlink", "--placers", "local-search,m-sct",
				"--vary", "link.nvlink.bandwidth=0.5x..2x:9", "-q", "--out", out}
		}},
		{"run", func(out string) []string {
			sc := filepath.Join(filepath.Dir(out), "s.yaml")
			_ = os.WriteFile(sc, []byte("name: s\nworkloads: [\"zoo:transformer?training=true&layers=96\"]\nclusters: [8xV100-nvlink]\nplacers: [local-search, m-sct]\n"), 0o644)
			return []string{"run", sc, "-q", "--out", out}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, tc.args(out)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// the output directory is made once the inputs are read, after
			// placesim took over SIGINT
			waitExists(t, out)
			time.Sleep(500 * time.Millisecond) // placers at work
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit %v, want code 130", err)
			}
			if took > interruptGrace {
				t.Errorf("exited %v after SIGINT, want under %v", took, interruptGrace)
			}
			t.Logf("exited %v after SIGINT", took)
			for _, d := range []string{out, tmp} {
				ents, err := os.ReadDir(d)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				for _, e := range ents {
					if tc.name != "compare" && d == out && e.Name() == "journal.jsonl" {
						continue // finished points, kept for the resume
					}
					t.Errorf("%s left %s", d, e.Name())
				}
			}
		})
	}
}

// TestInterruptRemovesSolverTemp interrupts pesto while CBC solves its
// ILP: the solver's scratch directory (placesim-mip-*) existed, and after
// Ctrl-C nothing of placesim is left in the temporary directory.
func TestInterruptRemovesSolverTemp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc not installed (make deps)")
	}
	bin := buildPlacesim(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "place", "-p", "pesto", "-w", "zoo:mlp?training=true", "-c", "8xV100-nvlink", "--opt", "timelimit=60s")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	found := ""
	for deadline := time.Now().Add(30 * time.Second); found == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_ = filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "placesim-mip-") {
				found = p
			}
			return nil
		})
	}
	if found == "" {
		t.Skip("pesto did not start CBC within 30 s")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want code 130", err)
	}
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		t.Errorf("left %s in the temporary directory (the solver's was %s)", e.Name(), found)
	}
}

// waitExists waits until path exists.
func waitExists(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s was not created within 30 s", path)
}
