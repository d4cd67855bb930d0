package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/study"
)

func TestSearchSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	args := []string{"search", "-w", "zoo:llama3.1-8b?layers=8", "-c", "dgx-h100", "--gpus", "8", "--gbs", "16", "--seq", "4096",
		"--mbs", "1,2", "--max-vp", "2", "--top", "3", "--workers", "2", "-q", "--compare-to", "tp=2,pp=2,dp=2,mbs=1"}
	code, out, errs := run(t, append(args, "-o", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"layouts enumerated", "ruled out by the memory closed form before simulating", "iteration s", "tokens/s/GPU", "MFU %", "peak GB", "--compare-to tp=2,pp=2,dp=2,mbs=1", "rank "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n     "); n < 3 {
		t.Errorf("%d rows in the top 3:\n%s", n, out)
	}
	res, err := study.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) == 0 || res.Stamp == nil || res.Stamp.Command != "search" {
		t.Fatalf("results: %d records, stamp %+v", len(res.Records), res.Stamp)
	}
	for _, f := range []string{"search.png", "search.svg", "results.csv", "table.txt", "journal.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// shards, then --merge: the same table
	sdir := filepath.Join(t.TempDir(), "sh")
	for _, sh := range []string{"0/2", "1/2"} {
		if code, _, errs := run(t, append(args, "-o", sdir, "--shard", sh)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", sh, code, errs)
		}
	}
	code, merged, errs := run(t, append(args, "-o", sdir, "--merge")...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	table := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest } // the summary's time differs
	if table(merged) != table(out) {
		t.Errorf("merged shards:\n%s\nwhole:\n%s", merged, out)
	}
}

func TestSearchBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "0", "--gbs", "8"}, "--gpus 0"},
		{[]string{"--gpus", "8", "--gbs", "8", "--mbs", "0"}, "--mbs"},
		{[]string{"--gpus", "8", "--gbs", "8", "--recompute", "some"}, "recompute"},
		{[]string{"--gpus", "8", "--gbs", "8", "--max-tp", "0"}, "max-tp = 0"},
		{[]string{"--gpus", "8", "--gbs", "8", "--top", "0"}, "--top 0"},
	} {
		code, _, errs := run(t, append([]string{"search", "-w", "zoo:llama3.1-8b"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", tc.args, code, errs, tc.want)
		}
	}
}
