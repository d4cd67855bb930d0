package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"placesim/cmd/placesim/cli"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/builtin"
)

// stuck is a placer that runs until its context ends.
type stuck struct{}

func (stuck) Name() string { return "stuck" }

func (stuck) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCompareProgressAndTimeoutExit: outside a terminal, compare prints a
// progress line every ProgressEvery naming what runs, done/total and the
// time elapsed; a row that timed out makes it exit 1 with a summary line
// (exit 0 with --allow-failures, which says what failed).
func TestCompareProgressAndTimeoutExit(t *testing.T) {
	reg := func() (*placers.Registry, error) {
		r, err := builtin.NewRegistry()
		if err != nil {
			return nil, err
		}
		if err := r.Add(placers.Define("stuck", "runs until its timeout", func(placers.NoArgs) (placers.Placer, error) { return stuck{}, nil })); err != nil {
			return nil, err
		}
		return r, nil
	}
	for _, allow := range []bool{false, true} {
		var out, errb bytes.Buffer
		f := &cli.Factory{Out: &out, ErrOut: &errb, Registry: reg, Getenv: func(string) string { return "" }, ProgressEvery: 20 * time.Millisecond, LongRun: 100 * time.Millisecond}
		args := []string{"compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "single,stuck", "--timeout", "300ms"}
		want := cli.ExitError
		if allow {
			args, want = append(args, "--allow-failures"), cli.ExitOK
		}
		code := cli.MainContext(context.Background(), f, args)
		errs := errb.String()
		if code != want {
			t.Fatalf("allow %v: exit %d, want %d\n%s", allow, code, want, errs)
		}
		if !strings.Contains(errs, "compare: 1/2 done") || !strings.Contains(errs, "elapsed; running: stuck") {
			t.Errorf("allow %v: no progress line naming the running placer on stderr:\n%s", allow, errs)
		}
		if !strings.Contains(errs, "compare: stuck has been running for over 100ms") {
			t.Errorf("allow %v: the long run is not named while it runs:\n%s", allow, errs)
		}
		if !strings.Contains(errs, "compare: 2 runs, 1 ok, 1 failed (1 timed out)") {
			t.Errorf("allow %v: no summary line:\n%s", allow, errs)
		}
		if allow && !strings.Contains(errs, "exit 0: --allow-failures") {
			t.Errorf("--allow-failures does not say what failed:\n%s", errs)
		}
		if !allow && !strings.Contains(errs, "1 of 2 runs failed") {
			t.Errorf("the error does not say how many failed:\n%s", errs)
		}
	}
}

// TestValidateProgress: outside a terminal, validate prints a progress
// line every ProgressEvery naming the row that runs, done/total and the
// time elapsed (a token-mix row simulates over a thousand batch shapes).
func TestValidateProgress(t *testing.T) {
	t.Parallel()
	header, err := os.ReadFile("../../../validation/published.tsv")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(header), "\n")
	path := filepath.Join(t.TempDir(), "rows.tsv")
	body := first + "\nmix\tzoo:transformer?layers=1&hidden=128&heads=2&ff=256&vocab=1000&training=true&lengths=wmt16-en-de&max-tokens=2560\t8xV100-nvlink\t8\tfp32\tpytorch\t1000\ttokens/s\t1\tsrc\t\tfairseq\t-\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	f := &cli.Factory{Out: &out, ErrOut: &errb, Registry: builtin.NewRegistry, Getenv: func(string) string { return "" }, ProgressEvery: 20 * time.Millisecond}
	if code := cli.MainContext(context.Background(), f, []string{"validate", path}); code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if errs := errb.String(); !strings.Contains(errs, "validate: 0/1 done") || !strings.Contains(errs, "elapsed; running: mix") {
		t.Errorf("no progress line naming the running row on stderr:\n%s", errs)
	}
	if !strings.Contains(out.String(), "1 rows: median") {
		t.Errorf("no summary on stdout:\n%s", out.String())
	}
}
