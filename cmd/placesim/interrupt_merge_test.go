package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"placesim/placers/builtin"
	"placesim/study"
)

// writeShards writes the two shards of a sweep of n points (10,000-step
// vary of batch x seeds x 2 placers) with plausible fabricated records.
func writeShards(t testing.TB, dir string, seeds int) []string {
	t.Helper()
	vals := make([]string, 10000)
	for i := range vals {
		vals[i] = strconv.Itoa(i + 1)
	}
	ss := make([]uint64, seeds)
	for i := range ss {
		ss[i] = uint64(i + 1)
	}
	s := &study.Scenario{Name: "big", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"}, Placers: []string{"single", "round-robin"},
		Seeds: ss, Vary: &study.Vary{Param: "batch", Range: strings.Join(vals, ",")}}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points(reg)
	if err != nil {
		t.Fatal(err)
	}
	// shards of at most 250,000 records (about 150 MB each, within
	// readfile.MaxData)
	n := max(2, (len(pts)+249_999)/250_000)
	var paths []string
	for sh := 0; sh < n; sh++ {
		r := &study.Results{Scenario: s, Shard: fmt.Sprintf("%d/%d", sh, n)}
		for _, p := range pts {
			if p.Index%n == sh {
				st := 1e-3 * (1 + float64(p.Index%97)/10)
				r.Records = append(r.Records, study.Record{Point: p, StepTime: st, Throughput: 8 / st,
					PeakMemory: []int64{1 << 20, 0, 0, 0}, Capacity: []int64{1 << 34, 1 << 34, 1 << 34, 1 << 34}})
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("results-%d-of-%d.json", sh, n))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := study.EncodeResults(f, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, path)
	}
	return paths
}

// TestInterruptMerge: SIGINT while merge reads, checks, writes and charts
// the shards of a 60,000-point sweep ends the process with exit 130 within
// interruptGrace (issue 31: a merge of 400,000 records ignored SIGINT for
// more than 30 s while it drew a 209 MB SVG).
func TestInterruptMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPlacesim(t)
	dir := t.TempDir()
	shards := writeShards(t, dir, 3)
	for _, after := range []time.Duration{300 * time.Millisecond, 2 * time.Second} {
		t.Run(after.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			cmd := exec.Command(bin, append([]string{"merge", "--out", out}, shards...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(after)
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			switch {
			case err == nil:
				t.Logf("merge ended before SIGINT (%v): nothing to check", after)
			case !errors.As(err, &ee) || ee.ExitCode() != 130:
				t.Fatalf("exit %v, want code 130", err)
			case took > interruptGrace:
				t.Fatalf("exited %v after SIGINT, want within %v", took, interruptGrace)
			default:
				t.Logf("exited %v after SIGINT sent %v into the merge", took, after)
			}
		})
	}
}
