package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCollective(t *testing.T) {
	code, out, errs := run(t, "collective", "--op", "all-gather", "--system", "dgx-h100:nodes=2", "--min", "1MiB", "--max", "8GiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 1 MiB to 8 GiB by 2: 14 sizes, nccl-tests' columns
	var rows int
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			rows++
		}
	}
	if rows != 14 || !strings.Contains(out, "algbw") || !strings.Contains(out, "busbw") || !strings.Contains(out, "16 ranks") {
		t.Fatalf("%d rows:\n%s", rows, out)
	}
	code, out, errs = run(t, "collective", "--op", "all-reduce", "--system", "gb200-nvl72:racks=1", "--gpus", "64", "--min", "1GiB", "--max", "1GiB", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Ranks int
		Rows  []struct {
			Size  int64
			BusBW float64
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Ranks != 64 || len(res.Rows) != 1 || !(res.Rows[0].BusBW > 0) {
		t.Fatalf("json: %v %+v", err, res)
	}
	code, out, errs = run(t, "collective", "--validate", "../../../validation/nccl-tests.tsv")
	if code != 0 || !strings.Contains(out, "acceptance rows") {
		t.Fatalf("validate: exit %d: %s %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"collective", "--op", "all-mix", "--system", "dgx-h100"},
		{"collective", "--op", "all-reduce"},
		{"collective", "--system", "dgx-h100:nodes=0"},
		{"collective", "--system", "dgx-h100", "--min", "8GiB", "--max", "1MiB"},
		{"collective", "--system", "dgx-h100", "--factor", "1"},
		{"collective", "--system", "dgx-h100", "--gpus", "9"},
		{"collective", "--system", "dgx-h100", "--group", "0-9"},
		{"collective", "--system", "dgx-h100", "--min", "1", "--max", "8GiB", "--factor", "1.0001"},
	} {
		if code, _, errs := run(t, args...); code != 1 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	code, out, _ = run(t, "list", "clusters")
	if code != 0 || !strings.Contains(out, "dgx-h100:nodes=N") || !strings.Contains(out, "gb200-nvl72:racks=N") {
		t.Fatalf("list clusters:\n%s", out)
	}
}
