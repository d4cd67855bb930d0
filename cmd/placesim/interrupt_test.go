package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// interruptGrace bounds how long the interrupted process may take to exit.
// The promise is one second; the test allows for a loaded CI machine.
const interruptGrace = 3 * time.Second

// buildPlacesim builds the command into a temporary directory.
func buildPlacesim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "placesim")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
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
			return []string{"sweep", "-w", "zoo:transformer?training=true&layers=6", "-c", "8xV100-nvlink", "--placers", "local-search,m-sct",
				"--vary", "link.nvlink.bandwidth=0.5x..2x:9", "-q", "--out", out}
		}},
		{"place", func(out string) []string {
			return []string{"place", "-p", "local-search", "-w", "zoo:transformer?training=true&layers=12", "-c", "8xV100-nvlink"}
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
			time.Sleep(1500 * time.Millisecond) // inputs loaded, placers at work
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
					if tc.name == "sweep" && d == out && e.Name() == "journal.jsonl" {
						continue // finished points, kept for the resume
					}
					t.Errorf("%s left %s", d, e.Name())
				}
			}
		})
	}
}
