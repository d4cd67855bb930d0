package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// BenchmarkMergePeakMemory merges the shards of a sweep of 20,000 x
// PLACESIM_MERGE_SEEDS points (default 20: 400,000 records, two 120 MB
// shard files, the case of issue 31 whose merge peaked at 1.64 GB; 50:
// 1,000,000 records, MaxPoints, in four 150 MB shards) with the built
// command and reports the process's peak resident memory (getrusage's
// ru_maxrss) as peak-RSS-MB and per record as peak-RSS-B/record. Issue 31
// asks that it stay under 1 GB: merge reads each shard as a stream and
// stores each record at its index (study.MergeFiles), and writes
// results.json, results.csv and table.txt one record at a time.
//
//	PLACESIM_MERGE_SEEDS=50 go test ./cmd/placesim -run '^$' -bench MergePeakMemory -benchtime 1x
func BenchmarkMergePeakMemory(b *testing.B) {
	seeds := 20
	if v := os.Getenv("PLACESIM_MERGE_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			b.Fatalf("PLACESIM_MERGE_SEEDS=%q: want an integer in [1, 100]", v)
		}
		seeds = n
	}
	bin := buildPlacesim(b)
	dir := b.TempDir()
	shards := writeShards(b, dir, seeds)
	records := 20000 * seeds
	b.ResetTimer()
	var peak int64
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "merged")
		cmd := exec.Command(bin, append([]string{"merge", "--out", out}, shards...)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("merge: %v\n%s", err, msg)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			b.Skip("no rusage on this system")
		}
		peak = max(peak, ru.Maxrss*1024) // Linux reports kilobytes
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(peak)/float64(records), "peak-RSS-B/record")
}
