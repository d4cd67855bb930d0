package collectives_test

import (
	"math"
	"testing"

	"placesim/collectives"
)

// The acceptance: busbw within 10 % of the published nccl-tests
// figures on dgx-h100 nodes=1 and 2 (acceptance rows); other rows (more
// nodes, other GPUs, RoCE clusters) within 25 %.
const (
	acceptanceTol = 0.10
	otherTol      = 0.25
)

func TestPublishedNCCLTests(t *testing.T) {
	t.Parallel()
	rows, err := collectives.LoadPublished("../validation/nccl-tests.tsv")
	if err != nil {
		t.Fatal(err)
	}
	checked, err := collectives.Check(rows)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, r := range checked {
		tol := otherTol
		if r.Acceptance {
			tol = acceptanceTol
			accepted++
		}
		t.Logf("%-26s %-24s %-14s %4d %11d published %5.0f placesim %5.1f GB/s (%s/%s) %+5.1f %%", r.ID, r.System, r.Op, r.GPUs, r.Size, r.Published.BusBW/1e9, r.Estimate.BusBW/1e9, r.Algorithm, r.Protocol, 100*r.Error)
		if math.Abs(r.Error) > tol {
			t.Errorf("%s: busbw %.1f GB/s against %.0f published: %+.1f %% (tolerance %.0f %%)", r.ID, r.Estimate.BusBW/1e9, r.Published.BusBW/1e9, 100*r.Error, 100*tol)
		}
	}
	if accepted < 6 {
		t.Fatalf("%d acceptance rows, want the dgx-h100 nodes=1 and 2 all-reduce, all-gather and reduce-scatter", accepted)
	}
}

func TestParsePublishedErrors(t *testing.T) {
	t.Parallel()
	head := "id\tsystem\top\tgpus\tsize\tbusbw\tacceptance\tsource\n"
	for name, body := range map[string]string{
		"no header column": "id\tsystem\n",
		"bad op":           head + "a\tdgx-h100\tall-mix\t8\t1024\t10\tyes\tsrc\n",
		"bad gpus":         head + "a\tdgx-h100\tall-reduce\t0\t1024\t10\tyes\tsrc\n",
		"bad size":         head + "a\tdgx-h100\tall-reduce\t8\t-1\t10\tyes\tsrc\n",
		"bad busbw":        head + "a\tdgx-h100\tall-reduce\t8\t1024\tfast\tyes\tsrc\n",
		"bad acceptance":   head + "a\tdgx-h100\tall-reduce\t8\t1024\t10\tmaybe\tsrc\n",
		"no source":        head + "a\tdgx-h100\tall-reduce\t8\t1024\t10\tyes\t\n",
		"duplicate id":     head + "a\tdgx-h100\tall-reduce\t8\t1024\t10\tyes\ts\na\tdgx-h100\tall-reduce\t8\t1024\t10\tyes\ts\n",
		"no rows":          head,
	} {
		if _, err := collectives.ParsePublished([]byte(body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	rows, err := collectives.ParsePublished([]byte(head + "a\tdgx-h100:nodes=1\tall-reduce\t9\t1024\t10\tyes\ts\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collectives.Check(rows); err == nil {
		t.Error("9 GPUs of an 8-GPU system: no error")
	}
}
